"""GitHub's addresses for a repository's line at a commit and for a commit, which the
entry pages and the lookup both link to."""

from urllib.parse import quote


def blob_url(repo: str, commit: str, path: str, line: int, last_line: int | None = None) -> str:
    """The line `path:line` (to `last_line`) of `repo` ("owner/name") at `commit`, on GitHub."""
    # %-encoded, so a path with a space or "#" still links to its file.
    lines = f"L{line}" if last_line in (None, line) else f"L{line}-L{last_line}"
    return f"https://github.com/{repo}/blob/{commit}/{quote(path)}#{lines}"


def commit_url(repo: str, commit: str) -> str:
    return f"https://github.com/{repo}/commit/{commit}"
