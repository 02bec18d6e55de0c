"""Issue and source references in an entry's text are links: issues to GitHub, source
lines to burn's tag for the release named, else to the entry's pinned commit; never in
code, never to a file that could be two, and true to burn's own repository."""

import re
import subprocess
from pathlib import Path

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.web.markup import render_markdown, render_markdown_inline
from errorkb.web.references import Sources
from tests.builders import BURN_MAIN, import_records, load_demo, load_site_index, make_record

REPO = "tracel-ai/burn"
BLOB = f"https://github.com/{REPO}/blob"
LEARNER = "crates/burn-train/src/learner/base.rs"
MODULE = "crates/burn-core/src/module/base.rs"
SOURCES = Sources(
    repo=REPO,
    pinned=BURN_MAIN,
    tags={"0.19.1": "v0.19.1", "0.21.0": "v0.21.0"},
    files={
        BURN_MAIN: frozenset({LEARNER, MODULE}),
        "v0.19.1": frozenset({LEARNER}),
        "v0.21.0": frozenset({LEARNER, "crates/burn-store/src/burnpack/reader.rs"}),
    },
)


def hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def test_it_links_an_issue_reference_to_its_issue():
    html = render_markdown("Seen in tracel-ai/burn#3990's log.")
    assert hrefs(html) == ["https://github.com/tracel-ai/burn/issues/3990"]
    assert '<a href="https://github.com/tracel-ai/burn/issues/3990" rel="nofollow' in html
    assert ">tracel-ai/burn#3990</a>'s log." in html


def test_it_links_a_source_reference_at_the_release_it_names():
    html = render_markdown("The `expect` (learner/base.rs:92 at v0.19.1) panics.", SOURCES)
    assert hrefs(html) == [f"{BLOB}/v0.19.1/{LEARNER}#L92"]
    assert ">learner/base.rs:92</a> at v0.19.1)" in html


def test_it_links_a_range_of_lines_and_a_release_written_with_at_sign():
    html = render_markdown("See reader.rs:249–251@v0.21.0.", SOURCES)
    assert hrefs(html) == [f"{BLOB}/v0.21.0/crates/burn-store/src/burnpack/reader.rs#L249-L251"]


def test_it_links_main_and_an_unnamed_release_to_the_pinned_commit():
    html = render_markdown("learner/base.rs:196–200 at main; module/base.rs:337.", SOURCES)
    assert hrefs(html) == [
        f"{BLOB}/{BURN_MAIN}/{LEARNER}#L196-L200",
        f"{BLOB}/{BURN_MAIN}/{MODULE}#L337",
    ]


def test_it_reads_the_release_on_the_next_line():
    html = render_markdown("learner/base.rs:92\nat v0.19.1 is where.", SOURCES)
    assert hrefs(html) == [f"{BLOB}/v0.19.1/{LEARNER}#L92"]


def test_it_leaves_a_file_that_could_be_two_as_text():
    # base.rs is both the learner's and the module's at main.
    assert hrefs(render_markdown("base.rs:12 at main", SOURCES)) == []
    assert hrefs(render_markdown("burn-core base.rs:12 at main", SOURCES)) == [
        f"{BLOB}/{BURN_MAIN}/{MODULE}#L12"
    ]


def test_it_leaves_references_it_cannot_place_as_text():
    for text in (
        "learner/base.rs:30 before 0.14.0",  # a release named some other way
        "learner/base.rs:30 at 0.19.x",  # no such release
        "learner/base.rs:30 at v0.9.0",  # a release with no known files
        "module/base.rs:30 at v0.19.1",  # a file not known at that release
        "learner/other.rs:30",  # a file not known at all
        "learner/base.rs:40–30",  # lines backwards
    ):
        assert hrefs(render_markdown(text, SOURCES)) == [], text


def test_it_links_only_issues_without_the_entrys_sources():
    html = render_markdown("learner/base.rs:92 at v0.19.1 and tracel-ai/burn#5109")
    assert hrefs(html) == ["https://github.com/tracel-ai/burn/issues/5109"]


def test_it_never_links_inside_code_or_another_link():
    text = (
        "`learner/base.rs:92 at v0.19.1` and `tracel-ai/burn#1`\n\n"
        "```\nlearner/base.rs:92 at v0.19.1 tracel-ai/burn#1\n```\n\n"
        "    learner/base.rs:92 tracel-ai/burn#1\n\n"
        "[tracel-ai/burn#2 at learner/base.rs:92](https://example.org/x)"
    )
    assert hrefs(render_markdown(text, SOURCES)) == ["https://example.org/x"]


def test_it_links_references_in_a_fix():
    html = render_markdown_inline(
        "Fix the call (tracel-ai/burn#5012, learner/base.rs:92).", SOURCES
    )
    assert hrefs(html) == [
        "https://github.com/tracel-ai/burn/issues/5012",
        f"{BLOB}/{BURN_MAIN}/{LEARNER}#L92",
    ]


@pytest.mark.django_db
def test_the_entry_page_links_the_references_of_its_text(client):
    record = make_record(
        "Can save model checkpoint.",
        repo=REPO,
        filePath=LEARNER,
        analyzedSha=BURN_MAIN,
        documentation="Raised by the `expect` at learner/base.rs:178 (tracel-ai/burn#3990).",
        solutions=["Read checkpoint/file.rs:57 at main: no file known there, so no link."],
    )
    import_records(record)
    html = client.get(ErrorEntry.objects.get().get_absolute_url()).content.decode()
    meaning = html[html.index('id="meaning"') : html.index('id="source"')]
    assert hrefs(meaning) == [
        f"{BLOB}/{BURN_MAIN}/{LEARNER}#L178",
        "https://github.com/tracel-ai/burn/issues/3990",
    ]
    solutions = html[html.index('id="solutions"') :]
    assert "checkpoint/file.rs:57 at main" in solutions
    assert "blob" not in solutions.split("</ol>")[0]


BURN_GIT = Path("/work/.mirror/tracel-ai+burn/repo")


def lines_at(ref: str, path: str) -> int | None:
    shown = subprocess.run(
        ["git", "-C", str(BURN_GIT), "show", f"{ref}:{path}"], capture_output=True, text=True
    )
    return shown.stdout.count("\n") + 1 if shown.returncode == 0 else None


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.skipif(not BURN_GIT.exists(), reason="no mirror of burn's repository here")
def test_every_source_link_of_the_demo_names_lines_burn_has_at_that_ref(client):
    load_demo()
    load_site_index()
    links = set()
    for entry in ErrorEntry.objects.published():
        html = client.get(entry.get_absolute_url()).content.decode()
        links |= {
            href
            for href in re.findall(
                r'<div class="curated[^>]*>.*?</div>|<ol class="solutions">.*?</ol>', html, re.S
            )
            for href in hrefs(href)
            if href.startswith(BLOB)
        }
    print(len(links), "links")
    assert len(links) > 20
    wrong = []
    for link in sorted(links):
        ref, path, first, last = re.fullmatch(
            rf"{BLOB}/([^/]+)/(.+)#L(\d+)(?:-L(\d+))?", link
        ).groups()
        length = lines_at(ref, path)
        if length is None or int(last or first) > length:
            wrong.append(link)
    assert wrong == []


def test_it_leaves_a_panics_location_and_an_old_layouts_path_as_text():
    assert hrefs(render_markdown("at learner/base.rs:58:26, with", SOURCES)) == []
    # burn-train/src/... is the layout before crates/: not the pinned commit's file.
    assert hrefs(render_markdown("burn-train/src/learner/base.rs:31", SOURCES)) == []
    assert hrefs(render_markdown(f"{LEARNER}:31", SOURCES)) == [f"{BLOB}/{BURN_MAIN}/{LEARNER}#L31"]
