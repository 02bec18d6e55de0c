"""scan_source refuses bad input with a clear error and writes nothing."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from errorkb.kb.models import ErrorEntry, Repository
from errorkb.upstream.models import Scan, ScannedFile
from tests.upstream.history import REPO, build_history
from tests.upstream.scan.test_scan import _database

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(tmp_path):
    return build_history(tmp_path / "rocket")


def refused(*args) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("scan_source", "--no-progress", *args, stdout=StringIO())
    return str(caught.value)


def nothing_written():
    return not (Repository.objects.exists() or ErrorEntry.objects.exists() or Scan.objects.exists())


def test_a_directory_that_is_not_a_git_checkout_is_refused(tmp_path):
    message = refused("--repo", REPO, "--path", str(tmp_path))

    assert message.startswith(f"{tmp_path}: not a git checkout")
    assert nothing_written()


def test_a_path_that_does_not_exist_is_refused(tmp_path):
    assert (
        refused("--repo", REPO, "--path", str(tmp_path / "gone"))
        == f"{tmp_path / 'gone'}: no such directory"
    )


def test_an_unknown_commit_is_refused(history):
    message = refused("--repo", REPO, "--path", str(history.repo.path), "--commit", "0" * 40)

    assert message == f"{'0' * 40!r}: unknown commit in {history.repo.path}"
    assert nothing_written()


def test_an_option_looking_commit_is_refused_not_passed_to_git(history):
    message = refused("--repo", REPO, "--path", str(history.repo.path), "--commit=--all")

    assert message.startswith("'--all': unknown commit")


def test_a_repository_name_that_is_not_owner_slash_name_is_refused(history):
    assert refused("--repo", "rocket", "--path", str(history.repo.path)) == (
        "'rocket': a repository is named owner/name"
    )


def test_a_file_that_is_not_utf8_is_refused_and_nothing_is_half_written(history):
    call_command("scan_source", "--repo", REPO, "--path", str(history.repo.path),
                 "--commit", history.c1, "--no-progress", stdout=StringIO())  # fmt: skip
    before = _database()
    history.repo.write(
        "src/latin1.rs", 'fn f() { panic!("caf\xe9 ferm\xe9"); }\n'.encode("latin-1")
    )
    bad = history.repo.commit("latin-1")

    message = refused("--repo", REPO, "--path", str(history.repo.path), "--commit", bad)

    assert message == f"at {bad[:12]}: src/latin1.rs: not UTF-8 at byte 20"
    assert _database() == before


def test_a_file_git_cannot_read_is_refused(history):
    blob = history.repo.blob(history.c1, "py/tool.py")
    history.repo.lose_object(blob)

    message = refused("--repo", REPO, "--path", str(history.repo.path), "--commit", history.c1)

    assert message == (
        f"py/tool.py at {history.c1[:12]}: cannot be read: "
        f"object {blob} is missing from the repository"
    )
    assert nothing_written() and not ScannedFile.objects.exists()


def test_releases_with_no_matching_tag_are_refused(history):
    message = refused("--repo", REPO, "--path", str(history.repo.path), "--releases", "release-*")

    assert message == f"no release tags match 'release-*' in {history.repo.path}"
    assert nothing_written()


def test_a_since_that_is_no_release_is_refused(history):
    message = refused(
        "--repo", REPO, "--path", str(history.repo.path), "--releases", "--since", "latest"
    )

    assert message == "--since 'latest': not a release such as v0.13.0"
    assert nothing_written()
