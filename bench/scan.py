"""Benchmark: scan_source over a generated repository, a full scan and an incremental one.

    .venv/bin/python bench/scan.py [--files 2000] [--sites 10000] [--runs 3]

It builds a git repository of FILES Rust files holding SITES error sites in every form
the scanner reads (expect, panic!, unreachable!, todo!, bail!, ensure!, #[error], on
one line and across lines, raw strings, escaped quotes), spread over the files, then
times the whole `scan_source` (git, the parser, drafting every site as an entry in one
revision) in a fresh SQLite database in memory: a full scan of the first commit, then,
after one file is changed, an incremental scan of the next commit. Each is run RUNS
times, each time from a fresh database; it prints the median, the worst run and the
incremental scan's ratio to the full one.

Targets: full scan <= 30 s, incremental after one changed file <= 2 s.
Nothing here is asserted: it is a measurement, not a test.
"""

import argparse
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import in_memory  # noqa: F401  (Django on SQLite in memory, set up before the rest)
from django.core.management import call_command

from errorkb.kb.models import ErrorEntry, Repository
from errorkb.upstream.scan.repository import ScanRequest, scan_source

TARGET_FULL_S = 30
TARGET_INCREMENTAL_S = 2
WORDS = (
    "checkpoint model optimizer scheduler record tensor shape device backend module "
    "parameter gradient batch epoch learner metric dataset loader file state thread"
).split()
GIT = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]


# One site in each form burn writes; {w} is three words and {n} the site's number.
FORMS = (
    '        value.expect("Can load {w} {n}.");',
    '        value\n            .expect("Can save {w} {n}.");',
    '        panic!("Invalid {w} {n}: {{}} (got {{:?}})", a, b);',
    '        unreachable!(r#"Unreachable "{w}" {n}"#);',
    '        todo!("Support {w} {n} with \\"{{name}}\\"");',
    '        bail!("Cannot open {w} {n}: {{err}}");',
    '        ensure!(a == b, "Mismatch of {w} {n}: {{a}} != {{b}}");',
    '        let _ = value.unwrap_or_else(|e| panic!("Failed {w} {n}: {{e}}"));',
)


def site(rng: random.Random, n: int) -> str:
    """One error site, in one of the forms burn writes, with a message of its own."""
    words = " ".join(rng.choice(WORDS) for _ in range(3))
    return FORMS[n % len(FORMS)].format(w=words, n=n)


def rust_file(first: int, count: int, extra: int = 0) -> str:
    """A file of `count` sites numbered from `first` (and `extra` more after them)."""
    rng = random.Random(first)  # the same file, site for site, whenever it is written
    lines = ["use crate::prelude::*;", ""]
    lines += ["#[derive(Debug, thiserror::Error)]", f"pub enum Error{first} {{"]
    lines += [f'    #[error("Record {first} failed: {{0}}")]', "    Failed(String),", "}", ""]
    for n in range(first + 1, first + count + extra):
        lines += [f"pub fn step_{n}(value: Option<u8>, a: u8, b: u8) {{", site(rng, n), "}", ""]
    return "\n".join(lines) + "\n"


def build_repository(root: Path, files: int, sites: int) -> tuple[Path, str, str]:
    repo = root / "generated"
    repo.mkdir()
    subprocess.run(["git", "-C", str(repo), "init", "-q", "-b", "main"], check=True)
    per_file = sites // files
    for i in range(files):
        path = repo / f"crates/crate{i % 40}/src/module{i}.rs"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rust_file(i * per_file, per_file))
    first = _commit(repo, "generated")
    # One changed file: a site more in the middle of the tree.
    path = repo / f"crates/crate{(files // 2) % 40}/src/module{files // 2}.rs"
    path.write_text(rust_file((files // 2) * per_file, per_file, extra=1))
    second = _commit(repo, "one file changed")
    return repo, first, second


def _commit(repo: Path, message: str) -> str:
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", *GIT, "-C", str(repo), "commit", "-q", "-m", message], check=True)
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def timed(repo: Path, commit: str):
    began = time.perf_counter()
    report = scan_source(ScanRequest(repo="bench/generated", path=str(repo), commit=commit))
    return time.perf_counter() - began, report


def fresh_database() -> None:
    ErrorEntry.objects.all().delete()
    Repository.objects.all().delete()  # its scans and scanned files go with it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--sites", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    with tempfile.TemporaryDirectory() as tmp:
        repo, first, second = build_repository(Path(tmp), args.files, args.sites)
        fulls, increments = [], []
        for _ in range(args.runs):
            fresh_database()
            seconds, full = timed(repo, first)
            fulls.append(seconds)
            seconds, increment = timed(repo, second)
            increments.append(seconds)
    print(f"generated: {args.files:,} Rust files, {full.tree.site_count:,} error sites")
    print(f"full scan: {full.tree.read:,} files read, {len(full.head.drafts):,} drafted")
    print(
        f"incremental scan: {increment.tree.read:,} file read, "
        f"{len(increment.head.drafts)} drafted, {len(increment.head.repins):,} re-pinned"
    )
    print(f"{'':<18}{'median s':>10}{'worst s':>10}{'target s':>10}")
    for name, times, target in (
        ("full", fulls, TARGET_FULL_S),
        ("incremental", increments, TARGET_INCREMENTAL_S),
    ):
        print(f"{name:<18}{statistics.median(times):>10.2f}{max(times):>10.2f}{target:>10}")
    ratio = statistics.median(fulls) / statistics.median(increments)
    print(f"incremental is {ratio:.1f}x faster than a full scan")


if __name__ == "__main__":
    main()
