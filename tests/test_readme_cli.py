"""The README's command line, run exactly as written, from the checkout after its set-up.

Each command runs in a shell, in a folder holding the reader's `train.log` (a log a user
pasted into burn's tracker) and `bin/` linked to the checkout's, with neither DEBUG nor
SECRET_KEY in the environment. The database is a file in that folder, so the checkout's
own (and CI's PostgreSQL) is never touched.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# A real paste whose placeholders once sent RE2 over its default memory budget.
LOG = ROOT / "tests/lookup/pastes/029-burn-ndarray-scatter-unsupported-dimension.txt"
BURN_LINE = (
    "no reviewed entry yet: tracel-ai/burn crates/burn-ndarray/src/ops/base.rs:645 at 0.18.0"
)
CAUSE = "1. [LIKELY CAUSE] panic on thread 'main', text line 1, release 0.18.0 (from the path)"


def readme_commands() -> list[str]:
    """The command lines of the README's "The command line" block, comments cut off."""
    section = README.split("\n## The command line\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def prints(*parts: str):
    def check(out: str) -> None:
        for part in parts:
            assert part in out, out

    return check


def tells_the_story(out: str) -> None:
    lines = out.splitlines()
    assert lines[:2] == ["What happened:", CAUSE], out
    assert f"   {BURN_LINE}: Unsupported dimension, only the last dimension can differ" in out


def answers_json(out: str) -> None:
    story = json.loads(out)["story"]
    assert story[0]["role"] == "cause" and story[0]["release"] == "0.18.0", out


# What each command of the README prints: the test fails when the README shows one that
# is not here, so every command a reader copies is run.
CHECKS = {
    "bin/setup --demo": prints("demo.json: 45 records", "41 releases, 8,638 sites"),
    "bin/errorkb lookup train.log": tells_the_story,
    "bin/errorkb lookup - < train.log": tells_the_story,
    "cat train.log | bin/errorkb lookup": tells_the_story,
    "bin/errorkb lookup --json train.log": answers_json,
    "bin/errorkb lookup --help": prints("usage: manage.py lookup", "[source]", "standard input"),
    "bin/errorkb --help": prints(
        *(
            f"    {name}\n"
            for name in ("lookup", "import_errors", "export_errors", "check_claims", "verify")
        )
    ),
    "bin/errorkb export_errors dump.json": prints("dump.json: exported"),
    "bin/errorkb import_errors dump.json": prints("dump.json: 45 records: 0 created"),
    "bin/errorkb check_claims": prints("45 records hold at every release they name"),
}


def test_the_readme_is_a_map_whose_links_lead_somewhere():
    assert len(README.splitlines()) <= 300
    links = re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)\)", README)
    assert len(links) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_every_command_the_readme_shows_is_run_here():
    assert readme_commands() == list(CHECKS)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The reader's folder: train.log, and bin/ as the checkout has it."""
    folder = tmp_path_factory.mktemp("reader")
    (folder / "bin").symlink_to(ROOT / "bin")
    shutil.copy(LOG, folder / "train.log")
    return folder


@pytest.fixture(scope="module")
def environment(folder) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    env["DATABASE_URL"] = f"sqlite:///{folder / 'db.sqlite3'}"
    env["CELERY_BROKER_DIR"] = str(folder / "broker")
    return env


def run(command: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_the_readmes_commands_run_as_written_without_debug_or_a_secret_key(folder, environment):
    printed = {}
    for command, check in CHECKS.items():
        result = printed[command] = run(command, folder, environment)
        said = f"$ {command}\n{result.stdout}{result.stderr}"
        assert result.returncode == 0, said
        try:
            check(result.stdout + result.stderr)
        except AssertionError as failed:
            raise AssertionError(f"$ {command}: {failed}") from None
        # RE2's memory budget: an ordinary lookup writes nothing to stderr.
        assert "DFA out of memory" not in result.stderr, said
        assert "Traceback" not in result.stderr, said
    # Every command the README names anywhere (the admin's, the production recipe's) exists.
    named = set(re.findall(r"bin/errorkb (\w+)", README))
    listed = printed["bin/errorkb --help"].stdout
    assert {name for name in named if f"    {name}\n" not in listed} == set()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("bin/errorkb lookup missing.log", "CommandError: missing.log: cannot read it: No such"),
        ("bin/errorkb lookup - < /dev/null", "CommandError: standard input is empty"),
        ("printf '\\n  \\n' | bin/errorkb lookup", "CommandError: standard input is empty"),
    ],
)
def test_the_lookup_refuses_what_it_cannot_read_in_one_line(folder, environment, command, error):
    result = run(command, folder, environment)

    assert result.returncode == 1
    assert result.stderr.strip() == error or result.stderr.startswith(error), result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_an_exported_secret_key_wins_and_debug_stays_off(folder, environment):
    probe = (
        "bin/errorkb shell -c 'from django.conf import settings as s; print(s.DEBUG, s.SECRET_KEY)'"
    )

    own = run(probe, folder, environment).stdout.splitlines()[-1].split()
    exported = run(probe, folder, {**environment, "SECRET_KEY": "from-the-environment"})

    assert own == ["False", (ROOT / "var/secret-key").read_text().strip()]
    assert exported.stdout.splitlines()[-1].split() == ["False", "from-the-environment"]


def test_the_wrapper_says_to_set_up_first_in_a_clone_without_a_venv(tmp_path):
    (tmp_path / "bin").mkdir()
    for script in ("errorkb", "local-env"):
        shutil.copy(ROOT / "bin" / script, tmp_path / "bin" / script)

    result = subprocess.run(
        ["bin/errorkb", "lookup", "train.log"], cwd=tmp_path, capture_output=True, text=True
    )

    assert result.returncode == 1
    assert re.search(r"not installed in .*/\.venv yet: run bin/setup --demo first", result.stderr)
