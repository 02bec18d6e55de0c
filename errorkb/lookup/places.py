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

    def describe(self) -> str:
        """The place in words a reader understands."""
        if self.whose == RUST:
            return "Rust's standard library"
        if self.whose == USER:
            return "your own code (or an example's), not a library's"
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
        return Place(UPSTREAM if repo else DEPENDENCY, repo, crate, version, "registry")
    git = _GIT_CHECKOUT.search(path)
    if git:
        crate = _last_crate(git["rest"]) or git["repo"]
        repo = repo_of(git["repo"]) and repo_of(crate)
        return Place(UPSTREAM if repo else DEPENDENCY, repo, crate, None, "git")
    crate, repo = _checkout_crate(path, repo_of)
    if repo or known_file:
        return Place(UPSTREAM, repo or known_file, crate, None, "checkout")
    return Place(USER)


def _last_crate(path: str) -> str | None:
    found = list(_CRATE_SRC.finditer(path))
    return found[-1]["crate"] if found else None


def _checkout_crate(
    path: str, repo_of: Callable[[str], str | None]
) -> tuple[str | None, str | None]:
    """The repository crate whose source folder the path is in, when the path says it is
    the repository's: under `crates/`, in a folder named as the repository (burn's older
    layouts), or at the start of a relative path (printed inside the repository)."""
    for found in reversed(list(_CRATE_SRC.finditer(path))):
        repo = repo_of(found["crate"])
        if repo is None:
            continue
        parent = found["parent"]
        if parent is None or parent == "crates" or parent == repo.split("/")[-1]:
            return found["crate"], repo
    return None, None
