"""Server-rendered pages: the entry page, a repository's list, the home page."""

import re

import pytest

from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

SOURCE = "\n".join(
    [
        "fn save(&self) {",
        "    let actions = plan();",
        '    write().expect("Can save model checkpoint.");',
        "}",
    ]
)


@pytest.fixture
def entry_record():
    related = make_record("Can load model checkpoint.", filePath="crates/learner.rs")
    record = make_record(
        "Can save model checkpoint.",
        filePath="crates/learner.rs",
        sourceCode=SOURCE,
        sourceCodeStart=176,
        sourceCodeEnd=179,
        lineNumber=178,
        analyzedSha="d16f7ba2ed0d41408189384044cc886fb4c8f957",
        githubUrl="https://github.com/acme/rocket/blob/d16f7ba2ed/crates/learner.rs#L176-L179",
        solutions=["Free disk space.", "Check permissions."],
        preventionTips=["Watch the disk."],
        related=[related["id"]],
    )
    import_records(related, record)
    return record


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_it_shows_the_sections_in_the_seed_order(client, entry_record):
    html = client.get(f"/errors/{entry_record['id']}/").content.decode()
    ids = [
        "repo",
        "message",
        "meaning",
        "source",
        "solutions",
        "example-fix",
        "when",
        "prevention",
        "related",
        "provenance",
    ]
    positions = [html.index(f'id="{section}"') for section in ids]
    assert positions == sorted(positions)


def test_it_numbers_the_source_from_its_real_first_line_and_marks_the_raising_line(
    client, entry_record
):
    html = client.get(f"/errors/{entry_record['id']}/").content.decode()
    numbers = re.findall(r'<span class="linenos">\s*(\d+)</span>', html)
    assert numbers == ["176", "177", "178", "179"]
    raising_line = html[html.index('id="L-178"') : html.index('id="L-179"')]
    assert html.count('class="hll"') == 1 and 'class="hll"' in raising_line
    assert "Can save model checkpoint." in text_of(raising_line)
    assert '<span class="n">expect</span>' in raising_line, "the source should be highlighted"


def test_it_links_the_file_at_the_analysed_commit(client, entry_record):
    html = client.get(f"/errors/{entry_record['id']}/").content.decode()
    assert f'href="{entry_record["githubUrl"]}"' in html
    assert "pinned to d16f7ba2ed" in html


def test_it_numbers_solutions_and_links_related_entries(client, entry_record):
    html = client.get(f"/errors/{entry_record['id']}/").content.decode()
    assert (
        '<ol class="solutions"><li data-copy>Free disk space.</li>'
        "<li data-copy>Check permissions.</li></ol>" in html
    )
    assert 'href="/repos/acme/rocket/errors/can-load-model-checkpoint/"' in html


def test_its_footer_names_the_commit_and_links_the_json(client, entry_record):
    html = client.get(f"/errors/{entry_record['id']}/").content.decode()
    footer = html[html.index('id="provenance"') :]
    assert "acme/rocket" in footer and "d16f7ba2ed" in footer and "2026-09-05" in footer
    assert f'href="/api/errors/{entry_record["id"]}"' in footer
    assert 'id="report"' in footer


def test_it_has_a_title_description_and_canonical_link(client, entry_record):
    html = client.get(f"/errors/{entry_record['id']}/").content.decode()
    assert "<title>Can save model checkpoint. · acme/rocket · errorkb</title>" in html
    assert '<meta name="description" content="The engine gave up.">' in html
    canonical = '<link rel="canonical" href="http://testserver/repos/acme/rocket/errors/can-save-model-checkpoint/">'
    assert canonical in html
    assert 'name="viewport"' in html


def test_it_serves_the_same_page_at_the_canonical_address(client, entry_record):
    by_id = client.get(f"/errors/{entry_record['id']}/")
    canonical = client.get("/repos/acme/rocket/errors/can-save-model-checkpoint/")
    assert canonical.status_code == 200
    assert canonical.content == by_id.content


def test_it_escapes_curated_text(client):
    record = make_record(
        "Boom <script>alert(1)</script>",
        slug="boom",
        messagePattern="Boom",
        documentation='<img src=x onerror="alert(2)">',
        solutions=["<script>alert(3)</script>"],
        exampleFix="<script>alert(4)</script>",
        sourceCode='"<img onerror=alert(5)>"\n2\n3\n4\n5',
    )
    import_records(record)
    html = client.get(f"/errors/{record['id']}/").content.decode()
    assert "<script>alert" not in html
    assert "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "onerror=&quot;alert(2)&quot;" in html or "onerror=&quot;" in html


def test_it_returns_404_for_a_draft_entry(client):
    record = make_record(status="draft")
    import_records(record)
    assert client.get(f"/errors/{record['id']}/").status_code == 404
    assert client.get("/repos/acme/rocket/errors/something-went-wrong/").status_code == 404


def test_it_lists_a_repositorys_entries(client, entry_record):
    html = client.get("/repos/acme/rocket/").content.decode()
    assert "Can save model checkpoint." in html and "Can load model checkpoint." in html


def test_it_returns_404_for_an_unknown_repository(client):
    assert client.get("/repos/acme/nothing/").status_code == 404


def test_its_home_page_lists_repositories_and_recent_entries(client, entry_record):
    html = client.get("/").content.decode()
    assert 'href="/repos/acme/rocket/"' in html and "2 entries" in html
    assert "Can save model checkpoint." in html


@pytest.mark.parametrize(
    "url", ["/errors/%00/", "/errors/%00/report/", "/repos/a%00/b/", "/repos/a/b%00/errors/c/"]
)
def test_its_pages_answer_404_to_a_nul_in_the_address(client, url):
    assert client.get(url).status_code == 404
