"""burn's source files kept as test data, and citations of their lines.

A citation reads ``path:line@commit``: the path inside burn's repository, a 1-based line
number, and a commit given as a key of COMMITS or as a full sha. Only the files under
``burn/<sha>/`` are kept (see burn/README.md); asking for any other is an error that names it.
"""

import re
from functools import cache
from pathlib import Path

KEPT = Path(__file__).resolve().parent / "burn"

# The only burn commits entries and scenarios may pin or cite.
COMMITS = {
    "main": "2c06be351006851d42fdb6df16b976f4a82d9747",
    "v0.21.0": "546cacb55fe00168854d19bdf0a5d79bd8060e03",
    "v0.19.1": "a6da424feacf6d82d6a0e81db197310796267c2b",
    # Releases between those, cited by appliesTo rows whose range starts or ends there.
    "v0.22.0-pre.2": "89bcc85f75c55e3451442f5371de45b243865340",
    "v0.20.0-pre.6": "91dd62c92a4469b392e4d85ca6a11c969604d0d2",
    "v0.12.1": "d6464176143df0738957473675ecca8f998751b0",
    "v0.11.1": "3088c466a50c0f12fb0eafcbef68a0f08192330e",
    # burn-import's PyTorch and safetensors recorders and generated model code (0.12 – 0.20).
    "v0.17.1": "179731b9e7dacbc287a2ab968e30acb6c4c54b1f",
    "v0.18.0": "f5d889d29c33f51fdfe8786daa758d278082a565",
    "v0.20.0-pre.4": "c9af669957f7f7a21f9df0bf91fd8b7b0fd8c3b1",
    "v0.20.1": "75b7881397df1f21e5c2bf51cd3aa6b9ae2bb6a4",
    # main's last commit before tracel-ai/burn#5109: the TUI's epoch count started at 1 on a resume.
    "2785abb3": "2785abb3e5f8b8d2dfdf2d5537fbed70df71a244",
}

CITATION_RE = re.compile(r"^(?P<path>[^:@\s]+):(?P<line>[1-9][0-9]*)@(?P<commit>[0-9A-Za-z._-]+)$")
SHA_RE = re.compile(r"^[0-9a-f]{40}$")


class UnknownSource(LookupError):
    """A commit or file that is not kept as test data."""


def resolve(commit: str) -> str:
    """The full sha of a kept commit, given a COMMITS key or the sha itself."""
    sha = COMMITS.get(commit, commit)
    if sha not in COMMITS.values():
        raise UnknownSource(f"burn commit {commit!r} is not kept (kept: {', '.join(COMMITS)})")
    return sha


@cache
def _read(sha: str, path: str) -> tuple[str, ...]:
    file = KEPT / sha / path
    if not file.is_file():
        raise UnknownSource(f"burn file {path!r} at {sha} is not kept under {KEPT}")
    return tuple(file.read_text(encoding="utf-8").splitlines())


def source_lines(commit: str, path: str) -> list[str]:
    """The kept file's lines, without their newlines."""
    return list(_read(resolve(commit), path))


def line(commit: str, path: str, number: int) -> str:
    """Line `number` (1-based) of the kept file."""
    lines = _read(resolve(commit), path)
    if not 1 <= number <= len(lines):
        raise UnknownSource(f"{path}@{commit} has {len(lines)} lines, not a line {number}")
    return lines[number - 1]


def parse_citation(citation: str) -> tuple[str, int, str]:
    """Split ``path:line@commit`` into (path, line, commit); the commit as written."""
    match = CITATION_RE.match(citation)
    if not match:
        raise ValueError(f"not a citation of the form path:line@commit: {citation!r}")
    commit = match["commit"]
    if commit not in COMMITS and not SHA_RE.match(commit):
        raise ValueError(f"{citation!r}: {commit!r} is neither a key of COMMITS nor a sha")
    return match["path"], int(match["line"]), commit
