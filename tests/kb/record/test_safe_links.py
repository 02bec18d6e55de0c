"""Links a record carries: only http(s) to a real host gets in, and only such is ever a link."""

import json
import re
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset
from errorkb.kb.models import DatasetUpload, ErrorEntry, Repository
from errorkb.kb.record.links import link_error
from tests.admin.admin_client import change_post, client_for
from tests.builders import BURN_MAIN, applies_to_row, import_records, make_record, write_json

pytestmark = pytest.mark.django_db

GOOD_LINKS = [
    "https://github.com/tracel-ai/burn/blob/2c06be3/crates/x.rs#L1-L9",
    "http://example.org/",
    "HTTPS://GitHub.com/acme/rocket",
    "https://docs.example.org:8443/a/b?c=d&e=f",
    "https://140.82.112.3/x",
    "https://[2606:4700:4700::1111]/x",
    "https://xn--bcher-kva.example/",
]

BAD_LINKS = [
    "javascript:alert(document.domain)",
    " JaVaScRiPt:alert(2)",
    "JaVaScRiPt:alert(2)",
    "java\tscript:alert(3)",
    "\x01javascript:alert(4)",
    "vbscript:msgbox(5)",
    "data:text/html,<script>alert(6)</script>",
    "file:///etc/passwd",
    "ftp://github.com/acme/rocket",
    "https://",
    "https:///acme/rocket",
    "https:github.com/acme/rocket",
    "//github.com/acme/rocket",
    "/acme/rocket",
    "github.com/acme/rocket",
    "https://github.com/acme/rocket ",
    "https://git hub.com/",
    "https://github.com\\@evil.example/",
    "https://github.com@evil.example/",
    "https://user:password@github.com/",
    "https://localhost/",
    "https://127.0.0.1/",
    "https://[::1]/",
    "https://-github.com/",
    "https://github..com/",
    "https://github.com:99999/",
    "https://github.com/\u202eexe.txt",
    "https://" + "a" * 2100 + ".com/",
]

# Those the admin would take another way: its form strips the outer whitespace.
ADMIN_BAD_LINKS = [
    "javascript:alert(document.domain)",
    " JaVaScRiPt:alert(2)",
    "data:text/html,<script>alert(6)</script>",
    "ftp://github.com/acme/rocket",
    "https://github.com@evil.example/",
    "https://localhost/",
    "https://127.0.0.1/",
    "https://[::1]/",
]


@pytest.mark.parametrize("url", GOOD_LINKS)
def test_it_accepts_http_and_https_links_to_a_real_host(url):
    assert link_error(url) is None


@pytest.mark.parametrize("url", BAD_LINKS)
def test_it_says_why_anything_else_is_not_a_public_link(url):
    reason = link_error(url)
    assert isinstance(reason, str) and reason


# Links into the reader's own machine or network, each with the kind the refusal names.
LOCAL_LINKS = [
    ("https://localhost/", "a name for a local machine or network"),
    ("https://localhost./", "a name for a local machine or network"),
    ("https://admin.localhost/", "a name for a local machine or network"),
    ("https://Printer.LOCAL/", "a name for a local machine or network"),
    ("https://router.home.arpa/", "a name for a local machine or network"),
    ("https://db.internal/", "a name for a local machine or network"),
    ("https://127.0.0.1/", "a loopback address"),
    ("https://127.8.9.10:8000/", "a loopback address"),
    ("https://[::1]/", "a loopback address"),
    ("https://[::ffff:127.0.0.1]/", "a loopback address"),
    ("https://[::ffff:7f00:1]/", "a loopback address"),
    ("https://[2002:7f00:1::]/", "a loopback address"),
    ("https://0.0.0.0/", "an unspecified address"),
    ("https://[::]/", "an unspecified address"),
    ("https://169.254.169.254/latest/meta-data/", "a link-local address"),
    ("https://[fe80::1%25eth0]/", "a link-local address"),
    ("https://224.0.0.1/", "a multicast address"),
    ("https://[ff02::1]/", "a multicast address"),
    ("https://10.0.0.1/", "a private address"),
    ("https://172.16.0.1/", "a private address"),
    ("https://192.168.1.1/", "a private address"),
    ("https://[fd00::1]/", "a private address"),
    ("https://[::ffff:10.0.0.1]/", "a private address"),
    ("https://192.0.2.7/", "a private address"),  # documentation: no host answers
    ("https://[2001:db8::1]/", "a private address"),
    ("https://240.0.0.1/", "a private address"),
    ("https://[64:ff9b::7f00:1]/", "a reserved address"),
    ("https://100.64.0.1/", "not a public address"),  # carrier-grade NAT
]


@pytest.mark.parametrize(("url", "kind"), LOCAL_LINKS)
def test_it_refuses_a_link_into_the_readers_own_machine_or_network(url, kind):
    host = urlsplit(url).hostname
    assert link_error(url) == f"must name a public host, not {host!r} ({kind})"


# A browser reads each of these as 127.0.0.1: a number in decimal, hex or octal, or short.
@pytest.mark.parametrize(
    "url",
    [
        "http://2130706433/",
        "http://0x7f000001/",
        "http://017700000001/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://0x7f.1/",
        "http://0x7f.0x1/",
        "http://127.0.0.0x1/",
        "http://127.0.0.1./",
    ],
)
def test_it_refuses_a_loopback_address_in_a_browsers_other_forms(url):
    assert link_error(url) == f"must name a real host, not {url[7:-1]!r}"


def run_import(path) -> str:
    out = StringIO()
    call_command("import_errors", str(path), stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("url", BAD_LINKS)
def test_it_refuses_to_import_a_record_whose_github_url_is_not_a_public_link(tmp_path, url):
    import_records(make_record("Existing entry."))
    before = dumps_dataset(export_dataset())
    record = make_record("Can save model checkpoint.", githubUrl=url)
    path = write_json(tmp_path / "bad.json", [record])

    with pytest.raises(CommandError) as caught:
        run_import(path)

    message = str(caught.value)
    assert str(path) in message and record["id"] in message and "'githubUrl'" in message
    assert dumps_dataset(export_dataset()) == before


@pytest.mark.parametrize("url", GOOD_LINKS)
def test_it_imports_a_record_whose_github_url_is_a_public_link(tmp_path, url):
    record = make_record("Can save model checkpoint.", githubUrl=url)
    assert "1 created" in run_import(write_json(tmp_path / "good.json", [record]))
    assert ErrorEntry.objects.get(id=record["id"]).github_url == url


@pytest.fixture
def superuser():
    return User.objects.create_superuser("root", password="root-password")


@pytest.mark.parametrize("url", ["javascript:alert(document.domain)", " JaVaScRiPt:alert(2)"])
def test_it_refuses_an_uploaded_dataset_with_a_script_link(superuser, url):
    record = make_record("Can save model checkpoint.", githubUrl=url)
    file = SimpleUploadedFile("bad.json", json.dumps([record]).encode())

    response = client_for(superuser).post("/admin/kb/errorentry/upload/", {"file": file})

    assert response.status_code == 400
    html = response.content.decode()
    assert record["id"] in html and "githubUrl" in html
    assert not DatasetUpload.objects.exists()


@pytest.mark.parametrize("url", ADMIN_BAD_LINKS)
def test_the_entry_admin_refuses_to_save_a_github_url_that_is_not_a_public_link(superuser, url):
    (entry,) = import_records(make_record("Can save model checkpoint."))
    before = entry.github_url

    response = client_for(superuser).post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, github_url=url)
    )

    assert response.status_code == 200  # the form again, with its errors
    assert "github_url" in response.context["adminform"].form.errors
    assert ErrorEntry.objects.get(pk=entry.pk).github_url == before


def test_the_entry_admin_saves_a_github_url_that_is_a_public_link(superuser):
    (entry,) = import_records(make_record("Can save model checkpoint."))
    url = "https://github.com/acme/rocket/blob/main/src/engine.rs#L12"

    response = client_for(superuser).post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, github_url=url)
    )

    assert response.status_code == 302
    assert ErrorEntry.objects.get(pk=entry.pk).github_url == url


@pytest.mark.parametrize("url", ADMIN_BAD_LINKS)
def test_the_repository_admin_refuses_to_save_a_url_that_is_not_a_public_link(superuser, url):
    repository = Repository.objects.create(
        owner="acme", name="rocket", url="https://github.com/acme/rocket"
    )

    response = client_for(superuser).post(
        f"/admin/kb/repository/{repository.pk}/change/",
        {"owner": "acme", "name": "rocket", "url": url},
    )

    assert response.status_code == 200
    assert "url" in response.context["adminform"].form.errors
    assert Repository.objects.get(pk=repository.pk).url == "https://github.com/acme/rocket"


HREF = re.compile(r"""\b(?:href|src|action)\s*=\s*["']?([^"'\s>]*)""", re.IGNORECASE)


def hrefs(html: str) -> list[str]:
    return HREF.findall(html)


@pytest.mark.parametrize("url", ["javascript:alert(document.domain)", " JaVaScRiPt:alert(2)"])
def test_it_never_renders_a_bad_link_already_in_the_database_as_a_link(client, url):
    record = make_record("Can save model checkpoint.")
    import_records(record)
    # As raw SQL, or a row written before links were checked, would leave it.
    ErrorEntry.objects.filter(id=record["id"]).update(github_url=url)
    Repository.objects.filter(owner="acme", name="rocket").update(url=url)

    pages = [
        f"/errors/{record['id']}/",
        "/repos/acme/rocket/errors/can-save-model-checkpoint/",
        "/repos/acme/rocket/",
        f"/errors/{record['id']}/report/",
        "/",
    ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        html = response.content.decode()
        assert "script:" not in "".join(hrefs(html)).lower(), page
        for target in hrefs(html):
            assert target.startswith(("/", "#", "https://", "http://")), (page, target)

    entry_page = client.get(f"/errors/{record['id']}/").content.decode()
    assert 'id="pinned"' not in entry_page  # no "View on GitHub" link at all
    assert 'id="provenance">Analysis of acme/rocket@' in entry_page  # named, as plain text


def test_it_links_a_good_github_url_and_repository(client):
    record = make_record("Can save model checkpoint.")
    import_records(record)

    html = client.get(f"/errors/{record['id']}/").content.decode()

    assert f'<a href="{record["githubUrl"]}" id="pinned">' in html
    assert '<a href="https://github.com/acme/rocket">acme/rocket</a>' in html


def test_it_links_a_cited_source_line_whose_path_needs_encoding(client):
    row = applies_to_row(filePath="crates/burn train/src/a#b.rs")
    record = make_record("Can save model checkpoint.", appliesTo=[row])
    import_records(record)

    html = client.get(f"/errors/{record['id']}/").content.decode()

    assert (
        f'href="https://github.com/acme/rocket/blob/{BURN_MAIN}/crates/burn%20train/src/a%23b.rs#L46"'
        in html
    )
