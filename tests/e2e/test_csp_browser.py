"""A real browser loads every page with the Content-Security-Policy on and sees no violation.

The demo dataset is imported as shipped. The browser reports a violation two ways: a
console message, and a securitypolicyviolation event, which a script added before any
page script collects into window.__cspViolations. Either one fails the test.
"""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from errorkb.kb.models import ErrorEntry, Repository, Tag
from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium

pytestmark = BROWSER_TEST

PASSWORD = "correct horse battery staple"

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} ` +
    `at ${event.sourceFile}:${event.lineNumber}`
  );
});
"""


@pytest.fixture
def demo():
    load_demo()
    User.objects.create_superuser("root", password=PASSWORD)


@pytest.fixture
def browser(demo):
    with chromium() as browser:
        yield browser


class Watched:
    """A page whose CSP violations and script errors are written down as they happen."""

    def __init__(self, browser):
        self.page = browser.new_context().new_page()
        self.page.add_init_script(COLLECT_VIOLATIONS)
        self.console: list[str] = []
        self.errors: list[str] = []
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _on_console(self, message) -> None:
        text = message.text
        if "Content Security Policy" in text or "Content-Security-Policy" in text:
            self.console.append(text)

    def visit(self, url: str, *, ready: str = "body") -> list[str]:
        """Load a page until ready shows; what it violated or broke meanwhile, if anything."""
        response = self.page.goto(url)
        assert response.ok, f"{url}: {response.status}"
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy, f"{url} has no strict Content-Security-Policy"
        self.page.wait_for_selector(ready)
        found = self.page.evaluate("window.__cspViolations") + self.console + self.errors
        self.console.clear()
        self.errors.clear()
        return [f"{url}: {problem}" for problem in found]


def public_pages() -> list[str]:
    pages = ["/", "/api/docs/", "/admin/login/", "/verification/"]
    pages += [repository.get_absolute_url() for repository in Repository.objects.all()]
    published = Tag.objects.filter(entry_tags__entry__status=ErrorEntry.Status.PUBLISHED)
    pages += [
        reverse("web:tag", kwargs={"tag": tag})
        for tag in published.distinct().values_list("name", flat=True)
    ]
    for entry in ErrorEntry.objects.published().select_related("repository").order_by("id"):
        pages += [entry.get_absolute_url(), f"/errors/{entry.id}/", f"/errors/{entry.id}/report/"]
    return pages


def test_every_public_page_loads_without_a_csp_violation(live_server, browser):
    pages = public_pages()
    assert len(pages) > 3 * 17  # every demo entry, three ways, and the rest
    watched = Watched(browser)
    problems = []
    for path in pages:
        # The API docs are ready once Swagger UI ran its start script and drew the schema.
        ready = ".opblock" if path == "/api/docs/" else "body"
        problems += watched.visit(f"{live_server.url}{path}", ready=ready)
    assert problems == []


def test_the_admin_loads_without_a_csp_violation(live_server, browser):
    base = live_server.url
    watched = Watched(browser)
    page = watched.page
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")

    entry = ErrorEntry.objects.order_by("id").first()
    repository = Repository.objects.get()
    pages = [
        "/admin/",
        "/admin/kb/errorentry/",
        f"/admin/kb/errorentry/{entry.pk}/change/",
        "/admin/kb/errorentry/add/",
        f"/admin/kb/errorentry/{entry.pk}/history/",
        "/admin/kb/errorentry/upload/",
        f"/admin/kb/repository/{repository.pk}/change/",
        "/admin/verification/verificationrun/",
        "/admin/django_celery_beat/periodictask/",
        "/admin/django_celery_beat/periodictask/add/",
    ]
    problems = []
    for path in pages:
        problems += watched.visit(f"{base}{path}")
    assert problems == []
    # The periodic task form's script, now a file, still ran: it hides the raw field.
    assert page.locator(".field-crontab_translation").count() == 1
    assert page.locator(".field-crontab_translation").is_hidden()


def test_it_sees_a_violation_when_a_page_breaks_the_policy(live_server, browser):
    watched = Watched(browser)
    watched.visit(f"{live_server.url}/")
    watched.page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.__ran = true";
            document.body.append(script);
        }"""
    )
    watched.page.wait_for_function("window.__cspViolations.length > 0")
    assert watched.page.evaluate("window.__ran") is None  # blocked, not run
    assert any("script-src" in v for v in watched.page.evaluate("window.__cspViolations"))
