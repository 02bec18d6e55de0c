"""Reading a repository through git's plumbing: commits, tags, trees, diffs and file contents.

Everything is read from git's objects, never from a work tree, so a bare mirror scans as
well as a checkout, and a scan of an old commit needs no checkout of it. Plain Python.
"""

import fnmatch
import subprocess
from dataclasses import dataclass
from pathlib import Path

# git's mode of a regular file (plain or executable); links and submodules hold no source.
FILE_MODES = ("100644", "100755")


class GitError(Exception):
    """The checkout cannot be read as asked: the message says what and why."""


@dataclass(frozen=True)
class ChangedFile:
    """One path that differs between two commits: its new blob, or None when it is gone."""

    path: str
    blob: str | None


class Checkout:
    """A git repository on disk (a work tree or a bare git directory)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_dir():
            raise GitError(f"{self.path}: no such directory")
        inside = self._run("rev-parse", "--git-dir", check=False)
        if inside.returncode != 0:
            raise GitError(f"{self.path}: not a git checkout ({_first_line(inside.stderr)})")

    def resolve(self, commit: str) -> str:
        """The full sha of a commit, branch or tag; GitError when there is none."""
        if commit.startswith("-"):
            raise GitError(f"{commit!r}: unknown commit in {self.path}")
        done = self._run("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", check=False)
        if done.returncode != 0:
            raise GitError(f"{commit!r}: unknown commit in {self.path}")
        return done.stdout.strip()

    def has_commit(self, sha: str) -> bool:
        try:
            self.resolve(sha)
        except GitError:
            return False
        return True

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob of the file at the commit, or None when the commit has no such file."""
        done = self._run("rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    def blobs_at(self, places: list[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """(commit, path) -> the file's blob there, or None: one git process for them all."""
        if not places:
            return {}
        wanted = list(dict.fromkeys(places))
        done = subprocess.run(
            ["git", "-C", str(self.path), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
            input="".join(f"{commit}:{path}\n" for commit, path in wanted),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise GitError(f"{self.path}: git cat-file failed: {_first_line(done.stderr)}")
        found = {}
        for place, line in zip(wanted, done.stdout.splitlines(), strict=True):
            blob, _, kind = line.partition(" ")
            found[place] = blob if kind == "blob" else None
        return found

    def is_ancestor(self, old: str, new: str) -> bool:
        """Whether commit `old` is in the history of `new` (a commit is its own ancestor)."""
        return self._run("merge-base", "--is-ancestor", old, new, check=False).returncode == 0

    def tags(self, pattern: str = "v*") -> list[tuple[str, str]]:
        """(tag, commit sha) of every tag matching the glob, annotated tags followed."""
        out = self._run(
            "for-each-ref",
            "--format=%(refname:strip=2)%00%(objectname)%00%(*objectname)",
            "refs/tags",
        ).stdout
        found = []
        for line in out.splitlines():
            name, sha, peeled = line.split("\0")
            if fnmatch.fnmatchcase(name, pattern):
                found.append((name, peeled or sha))
        return found

    def tree(self, commit: str) -> dict[str, str]:
        """path -> blob of every regular file at the commit."""
        out = self._run("ls-tree", "-r", "-z", "--full-tree", commit).stdout
        files = {}
        for item in filter(None, out.split("\0")):
            meta, path = item.split("\t", 1)
            mode, kind, blob = meta.split(" ")
            if kind == "blob" and mode in FILE_MODES:
                files[path] = blob
        return files

    def changes(self, old: str, new: str) -> list[ChangedFile]:
        """Every path whose file differs between the two commits (renames as delete + add)."""
        out = self._run("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new).stdout
        fields = out.split("\0")
        found = []
        # Raw format: ":oldmode newmode oldblob newblob status" then the path, each NUL-ended.
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            if not meta.startswith(":"):
                continue
            _, new_mode, _, blob, _ = meta[1:].split(" ")
            found.append(ChangedFile(path, blob if new_mode in FILE_MODES else None))
        return found

    def read(self, blobs: list[str]) -> dict[str, bytes]:
        """blob -> content for each blob, in one git process; GitError names a missing one."""
        if not blobs:
            return {}
        wanted = list(dict.fromkeys(blobs))
        done = subprocess.run(
            ["git", "-C", str(self.path), "cat-file", "--batch"],
            input="".join(f"{blob}\n" for blob in wanted).encode(),
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            raise GitError(f"{self.path}: git cat-file failed: {_first_line(done.stderr)}")
        return _parse_batch(done.stdout, wanted)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(
            ["git", "-C", str(self.path), *args], capture_output=True, text=True, check=False
        )
        if check and done.returncode != 0:
            raise GitError(f"{self.path}: git {args[0]} failed: {_first_line(done.stderr)}")
        return done


class MissingBlob(GitError):
    def __init__(self, blob: str):
        self.blob = blob
        super().__init__(f"object {blob} is missing from the repository")


def _parse_batch(out: bytes, wanted: list[str]) -> dict[str, bytes]:
    contents, at = {}, 0
    for blob in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].decode()
        if header.endswith(" missing"):
            raise MissingBlob(blob)
        _, _, size = header.split(" ")
        start = end + 1
        contents[blob] = out[start : start + int(size)]
        at = start + int(size) + 1  # the content ends with a newline of git's own
    return contents


def _first_line(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    lines = text.strip().splitlines()
    return lines[0] if lines else "no message"
