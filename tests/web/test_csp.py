"""Every response carries a strict Content-Security-Policy, and no page needs it loosened."""

import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from reversion.models import Version

from errorkb.kb.models import Repository
from tests.admin.admin_client import change_post, client_for
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

RECORD = make_record("Can save model checkpoint.")
ID = RECORD["id"]

PUBLIC_PAGES = [
    "/",
    "/repos/acme/rocket/",
    "/tags/rust/",
    "/repos/acme/rocket/errors/can-save-model-checkpoint/",
    f"/errors/{ID}/",
    f"/errors/{ID}/report/",
    "/api/docs/",
    "/verification/",
]
OTHER_PUBLIC = [
    "/api/docs/?script=",
    "/api/schema/",
    f"/api/errors/{ID}",
    "/api/errors/",
    "/no/such/page/",
    "/static/kb/site.css",
    "/admin/login/",
]
ADMIN_PAGES = [
    "/admin/",
    "/admin/kb/errorentry/",
    f"/admin/kb/errorentry/{ID}/change/",
    "/admin/kb/errorentry/add/",
    f"/admin/kb/errorentry/{ID}/history/",
    "/admin/kb/errorentry/upload/",
    "/admin/kb/repository/",
    "/admin/kb/repository/{repository}/change/",
    "/admin/kb/report/",
    "/admin/django_celery_beat/periodictask/",
    "/admin/django_celery_beat/periodictask/add/",
    "/admin/verification/verificationrun/",
]


@pytest.fixture
def entry():
    (entry,) = import_records(RECORD)
    return entry


@pytest.fixture
def admin_client(entry):
    return client_for(User.objects.create_superuser("root", password="root-password"))


def policy(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.request['PATH_INFO']} has no Content-Security-Policy"
    return policy_of(header)


def policy_of(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def assert_strict(directives: dict[str, list[str]]) -> None:
    assert directives["default-src"] == ["'none'"]
    for name in ("script-src", "style-src"):
        assert directives[name] == ["'self'"], name
    for name in ("frame-ancestors", "base-uri", "object-src"):
        assert directives.get(name, directives["default-src"]) == ["'none'"], name
    assert directives["form-action"] == ["'self'"]
    for sources in directives.values():
        assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"} & set(sources)


class InlineFinder(HTMLParser):
    """What a strict policy would block: inline scripts and styles, handlers, script URLs."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        # A data block (type="application/json", as json_script writes) never runs.
        runs = attrs.get("type") in (None, "", "text/javascript", "module")
        if tag == "script" and runs and not attrs.get("src"):
            self.in_script = True
        if tag == "style":
            self.found.append("<style>")
        for name, value in attrs.items():
            if name == "style":
                self.found.append(f'<{tag} style="{value}">')
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}>")
            if name in ("href", "src", "action") and re.match(r"\s*\w*script:", value or "", re.I):
                self.found.append(f'<{tag} {name}="{value}">')

    def handle_endtag(self, tag):
        self.in_script = self.in_script and tag != "script"

    def handle_data(self, data):
        if self.in_script and data.strip():
            self.found.append(f"<script>{data.strip()[:60]}")


def inline_parts(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def admin_path(path: str) -> str:
    return path.format(repository=Repository.objects.get().pk)


@pytest.mark.parametrize("path", PUBLIC_PAGES + OTHER_PUBLIC)
def test_every_public_response_carries_a_strict_policy(client, entry, path):
    response = client.get(path)
    assert response.status_code in (200, 404), path
    assert_strict(policy(response))


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_every_admin_page_carries_a_strict_policy(admin_client, path):
    response = admin_client.get(admin_path(path))
    assert response.status_code == 200, path
    assert_strict(policy(response))


@pytest.mark.parametrize("path", [*PUBLIC_PAGES, "/no/such/page/", "/admin/login/"])
def test_no_public_page_needs_inline_script_or_style(client, entry, path):
    html = client.get(path).content.decode()
    assert inline_parts(html) == []


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_no_admin_page_needs_inline_script_or_style(admin_client, path):
    html = admin_client.get(admin_path(path)).content.decode()
    assert inline_parts(html) == []


def test_no_admin_diff_revert_or_conflict_page_needs_inline_style(admin_client, entry):
    stale = change_post(entry, documentation="Mine.")
    import_records({**RECORD, "documentation": "Rewritten."}, version="2026-10-02T00:00:00.000Z")
    conflict = admin_client.post(f"/admin/kb/errorentry/{ID}/change/", stale)
    assert conflict.status_code == 409
    assert 'id="your-changes"' in conflict.content.decode()
    assert inline_parts(conflict.content.decode()) == []
    newer, older = Version.objects.get_for_object(entry)[:2]
    pages = [
        f"/admin/kb/errorentry/{ID}/history/compare/?a={older.pk}&b={newer.pk}",
        f"/admin/kb/errorentry/{ID}/history/{older.pk}/revert/",
    ]
    for path in pages:
        response = admin_client.get(path)
        assert response.status_code == 200, path
        assert 'class="kb-diff"' in response.content.decode()
        assert inline_parts(response.content.decode()) == [], path


def test_the_api_docs_load_their_start_script_from_this_server(client):
    html = client.get("/api/docs/").content.decode()
    assert '<script src="/api/docs/?script="></script>' in html

    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()


def test_a_page_the_response_cache_serves_again_still_carries_the_policy(client, entry):
    first = client.get(f"/errors/{ID}/")
    with CaptureQueriesContext(connection) as queries:
        again = client.get(f"/errors/{ID}/")
    assert len(queries) == 1  # the content token alone: the bytes came from the cache
    assert again["Content-Security-Policy"] == first["Content-Security-Policy"]
    assert_strict(policy_of(again["Content-Security-Policy"]))
