"""Whose code a pasted location is: the repository's, another crate's, the reader's own,
or Rust's standard library, whatever the shape of its path.

Rust prints the path the compiler was given, so one file of burn reaches a log in many
shapes:

    ~/.cargo/registry/src/index.crates.io-6f17d22bba15001f/burn-train-0.19.1/src/learner/base.rs
    ~/.cargo/git/checkouts/burn-178c6829f420dae1/a1b2c3d/crates/burn-train/src/learner/base.rs
    /home/ana/src/burn/crates/burn-cubecl-fusion/src/shared/trace/base.rs     a local checkout
    crates/burn-train/src/learner/base.rs                   run inside burn's own workspace
    /home/ana/burn/burn-train/src/checkpoint/file.rs        burn's layout before crates/ (< 0.13)
    /home/ana/burn/burn/src/train/checkpoint/file.rs        burn's layout of 2022
    C:\\Users\\ana\\.cargo\\registry\\src\\...\\burn-core-0.13.2\\src\\record\\file.rs

A registry directory names its crate and release (`cubecl-runtime-0.8.1/`); a crate that
is not the repository's is a dependency. A crate of the repository is known from the
release scans' files (the crates under `crates/`, or at the top of the tree in older
layouts), so burn's code is told apart from the reader's in any checkout, whether or not
the file holds an error site.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from .locations import REGISTRY_CRATE, Location

UPSTREAM, DEPENDENCY, USER, RUST = "upstream", "dependency", "user", "rust"
# Rust's own library, as a panic location or a backtrace frame prints it.
_RUST_LIBRARY = re.compile(
    r"^(?:library/(?:core|std|alloc|panic_\w+)/)|/rustc/[0-9a-f]+/|/rustlib/src/"
)
# ~/.cargo/git/checkouts/<repository>-<16 hex>/<revision>/<path in the repository>
_GIT_CHECKOUT = re.compile(
    r"/git/checkouts/(?P<repo>[A-Za-z0-9_.-]+?)-[0-9a-f]{16}/(?P<rev>[0-9a-f]{7,40})/(?P<rest>.+)$"
)
# A crate's source folder: <crate>/src/, and the folder above it.
_CRATE_SRC = re.compile(r"(?:^|(?P<parent>[^/]+)/)(?P<crate>[A-Za-z_][A-Za-z0-9_-]*)/src/")


@dataclass(frozen=True)
class Place:
    """Whose code a location is, and as much of how it is installed as its path says."""

    whose: str  # UPSTREAM (a repository the scans read), DEPENDENCY, USER or RUST
    repo: str | None = None  # owner/name, for the repository's code
    crate: str | None = None  # burn-train, cubecl-runtime
    version: str | None = None  # the crate's release, from a registry path
    installed: str = ""  # "registry", "git" or "checkout", when the path says
    # The file's path in its crate (src/learner/base.rs), and the crate's folder in the
    # repository (crates/burn-train) when the path shows it: a checkout's does.
    in_crate: str | None = None
    crate_folder: str | None = None

    def describe(self) -> str:
        """The place in words a reader understands."""
        if self.whose == RUST:
            return "Rust's standard library"
        if self.whose == USER:
            return "your own code (or an example's), not a library's"
        if self.whose == DEPENDENCY and not self.installed:
            return f"the crate {self.crate}'s code (a dependency, or your workspace's)"
        crate = f"{self.crate} {self.version}" if self.version else (self.crate or "")
        how = {
            "registry": "from crates.io",
            "git": "a git dependency",
            "checkout": "a local checkout",
        }.get(self.installed, "")
        detail = ", ".join(part for part in (crate, how) if part)
        detail = f" ({detail})" if detail else ""
        if self.whose == UPSTREAM:
            return f"{self.repo.split('/')[-1]}'s code{detail}"
        return f"another crate's code{detail}"


def place_of(
    location: Location, repo_of: Callable[[str], str | None], known_file: str | None = None
) -> Place:
    """Whose code the location is. `repo_of(crate)` is the owner/name of the scanned
    repository a crate belongs to, or None; `known_file` is the repository of a scanned
    file the path ends in, if any."""
    path = location.path
    if _RUST_LIBRARY.search(path):
        return Place(RUST)
    registry = REGISTRY_CRATE.search(path)
    if registry:
        crate, version = registry["crate"], registry["version"].partition("+")[0]
        repo = repo_of(crate)
        whose = UPSTREAM if repo else DEPENDENCY
        return Place(whose, repo, crate, version, "registry", in_crate=registry["rest"])
    git = _GIT_CHECKOUT.search(path)
    if git:
        found = _crate_sources(git["rest"])
        crate = found[-1]["crate"] if found else git["repo"]
        repo = repo_of(git["repo"]) and repo_of(crate)
        if not found:
            return Place(UPSTREAM if repo else DEPENDENCY, repo, crate, None, "git")
        folder, in_crate = _split(git["rest"], found[-1])
        whose = UPSTREAM if repo else DEPENDENCY
        return Place(whose, repo, crate, None, "git", in_crate=in_crate, crate_folder=folder)
    for found in reversed(_crate_sources(path)):
        repo = repo_of(found["crate"])
        if repo and _in_the_repository(found, repo):
            folder, in_crate = _split(path, found)
            crate = found["crate"]
            return Place(UPSTREAM, repo, crate, None, "checkout", in_crate, folder)
    if known_file:
        return Place(UPSTREAM, known_file, installed="checkout")
    sources = _crate_sources(path)
    if sources and sources[0]["parent"] is None:
        # `cubecl-runtime/src/...`: a crate's path cut to the crate (by the reader, or
        # printed inside that crate's workspace), not the reader's `src/main.rs`.
        return Place(
            DEPENDENCY, crate=sources[0]["crate"], in_crate=path[sources[0].end("crate") + 1 :]
        )
    return Place(USER)


def _crate_sources(path: str) -> list[re.Match]:
    return list(_CRATE_SRC.finditer(path))


def _split(path: str, found: re.Match) -> tuple[str, str]:
    """The crate's folder in the repository and the file's path in the crate."""
    start = found.start("parent") if found["parent"] == "crates" else found.start("crate")
    return path[start : found.end("crate")], path[found.end("crate") + 1 :]


def _in_the_repository(found: re.Match, repo: str) -> bool:
    """Whether a repository crate's source folder is the repository's own, not a crate of
    the same name elsewhere: under `crates/`, in a folder named as the repository (burn's
    older layouts), or at the start of a relative path (printed inside the repository)."""
    parent = found["parent"]
    return parent is None or parent == "crates" or parent == repo.split("/")[-1]
