"""A small git repository built by a test: write files, commit, tag, break it."""

import os
import subprocess
from pathlib import Path

# Fixed identities and dates: the same steps give the same commits on every machine.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


class GitRepo:
    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(self.path), *args],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **GIT_ENV},
        )
        return done.stdout.strip()

    def write(self, path: str, text: str | bytes) -> None:
        file = self.path / path
        file.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            file.write_bytes(text)
        else:
            file.write_text(text, encoding="utf-8")

    def remove(self, path: str) -> None:
        self.git("rm", "-q", path)

    def commit(self, message: str, tag: str | None = None) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        if tag:
            self.git("tag", "-a", tag, "-m", tag)
        return self.git("rev-parse", "HEAD")

    def blob(self, commit: str, path: str) -> str:
        return self.git("rev-parse", f"{commit}:{path}")

    def lose_object(self, blob: str) -> None:
        """Delete a blob's loose object: git can no longer read that file's content."""
        (self.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
