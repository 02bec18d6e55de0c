"""scan_source on a repository built by the test: drafts, re-pins, flags, releases, dry runs."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from reversion.models import Revision, Version

from errorkb.kb import editing
from errorkb.kb.models import ErrorEntry
from errorkb.upstream.models import Scan, ScannedFile
from errorkb.upstream.scan.repository import ScanRequest, scan_source
from tests.builders import import_records, make_record
from tests.kb.dataset.test_export_errors import assert_round_trip
from tests.upstream.history import LOAD, LOGGED, NEGATIVE, REPO, REWORDED, SAVE, build_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(tmp_path):
    return build_history(tmp_path / "rocket")


def scan(history, commit, *args) -> str:
    out = StringIO()
    call_command(
        "scan_source", "--repo", REPO, "--path", str(history.repo.path), "--commit", commit,
        "--no-progress", *args, stdout=out,
    )  # fmt: skip
    return out.getvalue()


def entry(message: str) -> ErrorEntry:
    return ErrorEntry.objects.get(error_message=message)


def test_a_first_scan_drafts_every_site_as_one_revision_and_publishes_none(history):
    out = scan(history, history.c1)

    assert set(ErrorEntry.objects.values_list("error_message", flat=True)) == {SAVE, LOAD, NEGATIVE}
    assert set(ErrorEntry.objects.values_list("status", flat=True)) == {"draft"}
    assert Revision.objects.count() == 1
    assert Version.objects.count() == 3
    assert Revision.objects.get().comment.startswith(
        f"Scan of {REPO} at {history.c1[:12]}: 3 drafted"
    )
    assert "drafted: 3" in out and "re-pinned: 0" in out


def test_a_draft_carries_the_site_its_pattern_and_its_address(history):
    scan(history, history.c1)

    save = entry(SAVE)
    assert (save.file_path, save.line_number, save.analyzed_sha) == (
        "src/learner.rs",
        4,
        history.c1,
    )
    assert save.message_pattern == r"Can save model checkpoint\."
    assert (save.error_type, save.error_class, save.severity) == ("panic", None, "error")
    assert (save.source_code_start, save.source_code_end) == (1, 5)
    assert save.source_code.splitlines()[3] == '        .expect("Can save model checkpoint.");'
    assert save.github_url == f"https://github.com/{REPO}/blob/{history.c1}/src/learner.rs#L1-L5"
    load = entry(LOAD)
    assert load.message_pattern == "Error when loading the state: .{0,1000}"
    assert load.line_number == 8
    negative = entry(NEGATIVE)
    assert (negative.error_type, negative.error_class) == ("exception", "ValueError")
    assert (negative.file_path, negative.line_number) == ("py/tool.py", 3)
    assert negative.slug == "negative-input-x-r"


def test_moved_lines_re_pin_known_entries_and_keep_their_curated_text(history):
    scan(history, history.c1)
    save = entry(SAVE)
    with editing.change(save, None, comment="Curated"):
        save.documentation = "The model file could not be written."
        save.save()

    out = scan(history, history.c2)

    save = entry(SAVE)
    assert (save.line_number, save.analyzed_sha) == (7, history.c2)
    assert save.github_url == f"https://github.com/{REPO}/blob/{history.c2}/src/learner.rs#L4-L8"
    assert save.source_code.splitlines()[3] == '        .expect("Can save model checkpoint.");'
    assert save.documentation == "The model file could not be written."
    assert entry(LOAD).line_number == 11
    assert "re-pinned: 2" in out and "drafted: 0" in out and "unchanged: 1" in out
    assert f"{save.id} {SAVE!r} src/learner.rs:4 -> src/learner.rs:7" in out


def test_an_entry_whose_file_did_not_change_keeps_its_pin(history):
    scan(history, history.c1)

    scan(history, history.c2)  # py/tool.py is the same file in c1 and c2

    negative = entry(NEGATIVE)
    assert (negative.file_path, negative.line_number, negative.analyzed_sha) == (
        "py/tool.py",
        3,
        history.c1,
    )


def test_a_reworded_message_is_flagged_removed_and_its_new_text_drafted(history):
    scan(history, history.c1)
    scan(history, history.c2)

    out = scan(history, history.c3)

    load = entry(LOAD)
    assert load.removed_upstream == {
        "commit": history.c3,
        "lastCommit": history.c2,
        "lastRelease": None,
    }
    assert load.line_number == 11  # the pin stays where it was last raised
    assert entry(REWORDED).status == "draft"
    assert "flagged removed upstream: 1" in out
    assert f"{load.id} {LOAD!r} (last raised {history.c2[:12]})" in out


def test_a_moved_file_re_pins_the_entry_to_its_new_path(history):
    scan(history, history.c1)
    negative_id = entry(NEGATIVE).id

    scan(history, history.c3)

    negative = ErrorEntry.objects.get(id=negative_id)
    assert (negative.file_path, negative.line_number) == ("py/tools/run.py", 3)
    assert ErrorEntry.objects.filter(error_message=NEGATIVE).count() == 1


def test_a_message_raised_again_loses_its_flag(history):
    scan(history, history.c3)
    scan(history, history.c4)
    assert entry(NEGATIVE).removed_upstream is not None

    out = scan(history, history.c3)

    assert entry(NEGATIVE).removed_upstream is None
    assert "raised again (flag cleared, re-pinned): 1" in out


def test_an_entry_the_scanner_cannot_see_is_never_flagged(history):
    pinned = {"filePath": "src/learner.rs", "lineNumber": 10, "analyzedSha": history.c1}
    record = make_record(LOGGED, repo=REPO, slug="training-interrupted", **pinned)
    (logged,) = import_records({**record, "sourceCodeStart": 9, "sourceCodeEnd": 10})

    out = scan(history, history.c4)

    logged.refresh_from_db()
    assert logged.removed_upstream is None
    assert f"{logged.id} {LOGGED!r}: no site the scanner reads raises it at its pin" in out


def test_an_unchanged_commit_changes_nothing(history):
    scan(history, history.c2)
    revisions = Revision.objects.count()

    out = scan(history, history.c2)

    assert "unchanged: 3" in out and "re-pinned: 0" in out and "drafted: 0" in out
    assert "0 read" in out
    assert Revision.objects.count() == revisions  # reversion keeps no empty revision


def test_releases_record_each_release_and_line_raising_a_message(history):
    scan(history, history.c1)

    out = scan(history, history.c4, "--releases")

    def rows(message):
        return [(r["release"], r["filePath"], r["lineNumber"]) for r in entry(message).raised_in]

    assert rows(SAVE) == [
        ("0.1.0", "src/learner.rs", 4),
        ("0.2.0", "src/learner.rs", 7),
        ("0.3.0", "src/learner.rs", 7),
    ]
    assert rows(REWORDED) == [("0.3.0", "src/learner.rs", 11)]
    assert rows(NEGATIVE) == [
        ("0.1.0", "py/tool.py", 3),
        ("0.2.0", "py/tool.py", 3),
        ("0.3.0", "py/tools/run.py", 3),
    ]
    assert entry(SAVE).raised_in[0]["commit"] == history.c1
    assert entry(NEGATIVE).removed_upstream["lastRelease"] == "0.3.0"
    assert "releases: 3 (0.1.0 … 0.3.0)" in out
    assert (
        f"{entry(SAVE).id} {SAVE!r}: raised in 0.1.0 – 0.3.0: "
        "0.1.0 src/learner.rs:4; 0.2.0 – 0.3.0 src/learner.rs:7" in out
    )
    assert list(Scan.objects.releases().order_by("release").values_list("release", flat=True)) == [
        "0.1.0",
        "0.2.0",
        "0.3.0",
    ]


def test_a_reworded_message_is_flagged_with_its_last_release(history):
    scan(history, history.c2)

    scan(history, history.c4, "--releases")

    load = entry(LOAD)
    assert [r["release"] for r in load.raised_in] == ["0.1.0", "0.2.0"]
    assert load.removed_upstream["lastRelease"] == "0.2.0"


def test_release_scans_read_only_the_files_changed_between_tags(history):
    out = scan(history, history.c4, "--releases", "v*", "--since", "v0.2.0")

    assert [s.files_read for s in Scan.objects.releases().order_by("release")] == [2, 2]
    assert "releases: 2 (0.2.0 … 0.3.0)" in out


def test_tags_that_are_no_releases_or_are_skipped_are_left_out(history):
    history.repo.git("tag", "v0.3.0-book", history.c3)
    history.repo.git("tag", "vnext", history.c4)

    out = scan(history, history.c4, "--releases", "--skip-tags", "*-book")

    assert Scan.objects.releases().count() == 3
    assert "tags matching but not releases, skipped: vnext" in out


def test_a_dry_run_reports_and_leaves_the_database_unchanged(history):
    scan(history, history.c1)
    before = _database()

    out = scan(history, history.c3, "--releases", "--dry-run")

    assert "flagged removed upstream: 1" in out and "drafted: 1" in out
    assert out.strip().splitlines()[-2] == "dry run: nothing was written"
    assert _database() == before


def _database():
    entries = list(ErrorEntry.objects.order_by("id").values())
    return (
        entries,
        list(Scan.objects.order_by("id").values()),
        list(ScannedFile.objects.order_by("path").values()),
        Revision.objects.count(),
        Version.objects.count(),
    )


def test_drafts_and_what_scans_found_export_with_status_all_and_import_back(history, tmp_path):
    scan(history, history.c1)
    scan(history, history.c4, "--releases")

    out = StringIO()
    call_command("export_errors", "-", "--status", "all", stdout=out)
    records = {r["errorMessage"]: r for r in json.loads(out.getvalue())["records"]}

    assert {r["status"] for r in records.values()} == {"draft"}
    assert records[NEGATIVE]["removedUpstream"] == {
        "commit": history.c4,
        "lastCommit": history.c3,
        "lastRelease": "0.3.0",
    }
    assert records[SAVE]["raisedIn"][0] == {
        "release": "0.1.0",
        "commit": history.c1,
        "filePath": "src/learner.rs",
        "lineNumber": 4,
    }
    assert_round_trip(tmp_path)


def test_export_status_published_leaves_drafts_out(history):
    scan(history, history.c1)

    out = StringIO()
    call_command("export_errors", "-", "--status", "published", stdout=out)

    assert json.loads(out.getvalue())["records"] == []


def test_progress_is_reported_per_tree_with_the_files_to_read(history):
    seen = []

    def progress(label):
        def start(total):
            seen.append([label, total, 0])
            return lambda count: seen[-1].__setitem__(2, seen[-1][2] + count)

        return start

    scan_source(ScanRequest(repo=REPO, path=str(history.repo.path), releases="v*"), progress)

    assert seen == [
        [f"{REPO} @ {history.c4[:12]}", 2, 2],
        ["v0.1.0", 2, 2],
        ["v0.2.0", 1, 1],
        ["v0.3.0", 2, 2],
    ]


def test_a_head_scan_flags_with_the_last_release_an_earlier_release_scan_found(history):
    scan(history, history.c1)
    scan(history, history.c3, "--releases")

    scan(history, history.c4)

    assert entry(NEGATIVE).removed_upstream == {
        "commit": history.c4,
        "lastCommit": history.c3,
        "lastRelease": "0.3.0",
    }
