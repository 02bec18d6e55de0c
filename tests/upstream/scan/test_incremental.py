"""An incremental scan reads only what git says changed, and ends where a full scan does."""

import random
from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb.models import ErrorEntry
from errorkb.upstream.git import Checkout
from errorkb.upstream.models import Scan, ScannedFile
from errorkb.upstream.sites.commit import scan_tree
from tests.upstream.gitrepo import GitRepo
from tests.upstream.history import REPO, build_history

pytestmark = pytest.mark.django_db


def scan(path, repo: str, commit: str) -> None:
    call_command("scan_source", "--repo", repo, "--path", str(path), "--commit", commit,
                 "--no-progress", stdout=StringIO())  # fmt: skip


def stored(repo: str):
    owner, name = repo.split("/")
    files = ScannedFile.objects.filter(repository__owner=owner, repository__name=name)
    return sorted(files.values_list("path", "blob", "sites"))


def pins(repo: str, checkout: Checkout):
    """Each live entry's message, file and line, and the file's content at its pin.

    Not the pin's commit itself: an entry whose file did not change keeps the older one.
    """
    entries = ErrorEntry.objects.for_repo(repo).still_raised()
    rows = entries.values_list("error_message", "file_path", "line_number", "analyzed_sha")
    blobs = checkout.blobs_at([(sha, path) for _, path, _, sha in rows])
    return sorted((m, path, line, blobs[sha, path]) for m, path, line, sha in rows)


def test_a_later_commit_reads_only_the_changed_files_and_equals_a_full_scan(tmp_path):
    history = build_history(tmp_path / "rocket")
    checkout = Checkout(history.repo.path)

    first = scan_tree(checkout, history.c1)
    later = scan_tree(checkout, history.c4, base=first)
    full = scan_tree(checkout, history.c4)

    assert later.files == full.files
    # c1 -> c4: learner.rs changed, tool.py went, tools/run.py came; README is not source.
    assert (later.read, full.read) == (2, 2)
    assert (first.read, first.total) == (2, 2)


def test_an_incremental_scan_stores_what_a_full_scan_stores(tmp_path):
    history = build_history(tmp_path / "rocket")
    scan(history.repo.path, REPO, history.c1)
    scan(history.repo.path, REPO, history.c4)
    scan(history.repo.path, "acme/fresh", history.c4)

    assert stored(REPO) == stored("acme/fresh")
    checkout = Checkout(history.repo.path)
    assert pins(REPO, checkout) == pins("acme/fresh", checkout)
    increment, full = Scan.objects.heads().filter(commit=history.c4).order_by("id")
    assert (increment.files_read, full.files_read) == (2, 2)


def test_a_chain_of_random_edits_scanned_incrementally_equals_full_scans(tmp_path):
    rng = random.Random(13)
    repo = GitRepo(tmp_path / "random")
    files = {f"crates/c{n}/src/lib.rs": [] for n in range(6)}
    for step in range(8):
        for path in rng.sample(sorted(files), 3):
            files[path] = _edit(rng, files[path], step)
            repo.write(path, _rust(files[path]))
        commit = repo.commit(f"step {step}")
        scan(repo.path, "acme/chain", commit)
        scan(repo.path, f"acme/full-{step}", commit)
        assert stored("acme/chain") == stored(f"acme/full-{step}")
        assert pins("acme/chain", Checkout(repo.path)) == pins(
            f"acme/full-{step}", Checkout(repo.path)
        )


def _edit(rng: random.Random, messages: list[str], step: int) -> list[str]:
    messages = list(messages)
    if messages and rng.random() < 0.4:
        messages.pop(rng.randrange(len(messages)))
    for _ in range(rng.randint(0, 3)):
        messages.insert(
            rng.randint(0, len(messages)), f"Failure {rng.randint(0, 30)} at step {step}."
        )
    return messages


def _rust(messages: list[str]) -> str:
    body = "".join(f'    let _ = x.expect("{m}");\n' for m in messages)
    return f"pub fn f(x: Option<u8>) {{\n{body}}}\n"
