"""The site index: every error site of every scanned release, written by a release scan,
shipped for burn's release tags with the demo, and loaded without a git checkout."""

import gzip
import json
import tracemalloc
import zlib
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from errorkb.upstream.models import ReleaseSite, Scan
from errorkb.upstream.scan.releases import is_release
from errorkb.upstream.scan.site_index import MAX_SITE_INDEX_BYTES
from errorkb.upstream.sites.error_sites import find_sites
from tests.builders import BURN_SITE_INDEX, load_site_index
from tests.lookup.texts import demo_records
from tests.upstream.history import LOAD, REPO, SAVE, build_history
from tests.upstream.sources import COMMITS, KEPT

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(tmp_path):
    return build_history(tmp_path / "rocket")


def scan(history, *args) -> str:
    out = StringIO()
    call_command(
        "scan_source", "--repo", REPO, "--path", str(history.repo.path), "--commit",
        history.c4, "--no-progress", "--releases", *args, stdout=out,
    )  # fmt: skip
    return out.getvalue()


def sites() -> list[tuple[str, int, str, list[str]]]:
    rows = ReleaseSite.objects.order_by("path", "line", "message")
    return [(row.path, row.line, row.message, row.releases) for row in rows]


@pytest.mark.parametrize(
    "name,release",
    [
        ("0.19.1", True),
        ("0.22.0-pre.1", True),
        ("1.0.0-rc.2", True),
        ("2.0.0-alpha.1", True),
        ("0.19.0-book", False),
        ("next", False),
        ("0.3.0-nightly", False),
    ],
)
def test_a_release_is_a_version_or_a_pre_release_stage_not_a_book_snapshot(name, release):
    assert is_release(name) is release


def test_book_tags_are_not_scanned_as_releases_without_being_told(history):
    history.repo.git("tag", "v0.3.0-book", history.c3)
    history.repo.git("tag", "v0.4.0-pre.1", history.c4)

    out = scan(history)

    names = Scan.objects.releases().values_list("release", flat=True)
    assert sorted(names) == ["0.1.0", "0.2.0", "0.3.0", "0.4.0-pre.1"]
    assert "tags matching but not releases, skipped: v0.3.0-book" in out
    assert "-book" not in out.split("tags matching")[0]


def test_a_release_scan_keeps_every_site_with_the_releases_that_have_it_there(history):
    scan(history)

    found = sites()
    assert ("src/learner.rs", 4, SAVE, ["0.1.0"]) in found
    assert ("src/learner.rs", 7, SAVE, ["0.2.0", "0.3.0"]) in found
    assert ("src/learner.rs", 8, LOAD, ["0.1.0"]) in found
    assert ("src/learner.rs", 11, LOAD, ["0.2.0"]) in found


def test_scanning_some_releases_again_replaces_only_theirs(history):
    scan(history)
    before = sites()

    scan(history, "--since", "v0.2.0")

    assert sites() == before


def test_the_index_written_by_a_scan_loads_back_the_same(history, tmp_path):
    out = scan(history, "--site-index", str(tmp_path / "rocket.json.gz"))
    before, scans = sites(), _release_scans()
    assert "site index: 3 releases" in out

    ReleaseSite.objects.all().delete()
    Scan.objects.all().delete()
    call_command("load_site_index", str(tmp_path / "rocket.json.gz"), stdout=StringIO())

    assert sites() == before
    assert _release_scans() == scans


@pytest.mark.parametrize(
    "content,error",
    [
        (b"\x1f\x8b not gzip", "cannot read it"),
        (b"[1, 2]", "siteIndexVersion must be 1"),
        (b'{"siteIndexVersion": 1, "repo": "nobody"}', "repo must be owner/name"),
        (
            b'{"siteIndexVersion": 1, "repo": "a/b", "scannerVersion": 1, "releases": '
            b'[{"release": "0.1.0-book", "tag": "v", "commit": "c", "files": 1, "sites": 1}],'
            b' "sites": []}',
            "releases[0] must hold",
        ),
        (
            b'{"siteIndexVersion": 1, "repo": "a/b", "scannerVersion": 1, "releases": '
            b'[{"release": "0.1.0", "tag": "v0.1.0", "commit": "c", "files": 1, "sites": 1}],'
            b' "sites": [["src/a.rs", 3, "boom", "boom", "panic", "0-4"]]}',
            "sites[0] must be",
        ),
    ],
)
def test_a_bad_site_index_is_refused_by_name_and_changes_nothing(history, tmp_path, content, error):
    scan(history)
    before = sites()
    path = tmp_path / "bad.json"
    path.write_bytes(content)

    with pytest.raises(CommandError, match=error.replace("[", r"\[").replace("]", r"\]")):
        call_command("load_site_index", str(path), stdout=StringIO())

    assert sites() == before


def gzip_bomb(path: Path, expanded: int) -> Path:
    """A small gzip file of a JSON start and then expanded bytes of spaces."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: with a gzip header and trailer
    chunk = b" " * 2**20
    parts = [packer.compress(b'{"siteIndexVersion": 1, "sites": [')]
    parts += [packer.compress(chunk) for _ in range(expanded // len(chunk))]
    path.write_bytes(b"".join([*parts, packer.flush()]))
    return path


def test_a_gzip_bomb_is_refused_by_name_once_it_expands_past_the_limit(history, tmp_path):
    scan(history)
    before = sites()
    bomb = gzip_bomb(tmp_path / "bomb.json.gz", expanded=16 * MAX_SITE_INDEX_BYTES)
    assert bomb.stat().st_size < MAX_SITE_INDEX_BYTES // 16

    tracemalloc.start()
    try:
        with pytest.raises(CommandError) as caught:
            call_command("load_site_index", str(bomb), stdout=StringIO())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    limit = f"more than {MAX_SITE_INDEX_BYTES // 2**20} MB of JSON"
    assert str(caught.value).startswith(f"{bomb}: it holds {limit}"), caught.value
    # Expanded whole, it would have held sixteen times the limit.
    assert peak < 3 * MAX_SITE_INDEX_BYTES, peak
    assert sites() == before


def test_a_plain_index_past_the_limit_is_refused_as_a_gzip_one_is(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * MAX_SITE_INDEX_BYTES + b"]")
    with pytest.raises(CommandError, match="holds more than 16 MB of JSON"):
        call_command("load_site_index", str(path), stdout=StringIO())
    assert not Scan.objects.exists()


def test_an_endless_stream_is_read_no_further_than_the_limit():
    with pytest.raises(CommandError, match="^/dev/zero: it holds more than 16 MB of JSON"):
        call_command("load_site_index", "/dev/zero", stdout=StringIO())


def test_the_shipped_scan_holds_burns_releases_and_no_book_tags():
    index = json.loads(gzip.decompress(BURN_SITE_INDEX.read_bytes()))
    names = [release["release"] for release in index["releases"]]

    assert index["repo"] == "tracel-ai/burn"
    assert names[0] == "0.3.0" and names[-1] == "0.22.0-pre.2"
    assert {"0.19.1", "0.20.0", "0.21.0", "0.22.0-pre.1"} <= set(names)
    assert not [name for name in names if "book" in name]


KEPT_RELEASES = {"0.19.1": "v0.19.1", "0.21.0": "v0.21.0", "0.22.0-pre.2": "v0.22.0-pre.2"}


@pytest.mark.parametrize("release", sorted(KEPT_RELEASES))
def test_the_shipped_sites_are_what_the_scanner_finds_in_burns_kept_files(release):
    """Each kept burn file of a release: the index holds exactly the sites the scanner
    reads in it, at their lines, for that release."""
    load_site_index()
    sha = COMMITS[KEPT_RELEASES[release]]
    root = KEPT / sha
    files = [path for path in root.rglob("*.rs")]
    assert files
    for file in files:
        path = file.relative_to(root).as_posix()
        expected = sorted((site.line, site.message) for site in find_sites(path, file.read_bytes()))
        indexed = sorted(
            (row.line, row.message)
            for row in ReleaseSite.objects.filter(path=path)
            if release in row.releases
        )
        assert indexed == expected, path


def test_the_shipped_scan_loads_with_the_demo_as_bin_run_does():
    out = StringIO()
    call_command("load_site_index", str(BURN_SITE_INDEX), stdout=out)

    assert out.getvalue().startswith("tracel-ai/burn: 41 releases, ")
    assert Scan.objects.releases().filter(repository__name="burn").count() == 41
    assert "0.19.0-book" not in Scan.objects.values_list("release", flat=True)


def _release_scans():
    return list(
        Scan.objects.releases()
        .order_by("release")
        .values_list("release", "ref", "commit", "files", "sites")
    )


def test_the_demo_set_up_loads_the_shipped_scan():
    bin_folder = Path(__file__).resolve().parents[3] / "bin"
    assert "bin/setup --demo" in (bin_folder / "run").read_text()
    setup = (bin_folder / "setup").read_text()
    assert "load_site_index errorkb/upstream/fixtures/burn-releases.json.gz" in setup


def test_the_demo_entries_raised_in_rows_are_sites_of_the_shipped_scan():
    """Each raisedIn row of the demo is a site of that release in the shipped index, with
    the entry's message, at the release's commit: both come from one scan."""
    load_site_index()
    commits = dict(Scan.objects.releases().values_list("release", "commit"))
    records = [record for record in demo_records() if record.get("raisedIn")]
    assert len(records) >= 20
    for record in records:
        for row in record["raisedIn"]:
            site = ReleaseSite.objects.filter(
                path=row["filePath"], line=row["lineNumber"], message=record["errorMessage"]
            )
            assert any(row["release"] in s.releases for s in site), (record["id"], row)
            assert row["commit"] == commits[row["release"]]
