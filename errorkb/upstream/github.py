"""GitHub's addresses for a repository's line at a commit and for a commit, which the
entry pages and the lookup both link to."""

from urllib.parse import quote


def blob_url(repo: str, commit: str, path: str, line: int) -> str:
    """The line `path:line` of `repo` ("owner/name") at `commit`, on GitHub."""
    # %-encoded, so a path with a space or "#" still links to its file.
    return f"https://github.com/{repo}/blob/{commit}/{quote(path)}#L{line}"


def commit_url(repo: str, commit: str) -> str:
    return f"https://github.com/{repo}/commit/{commit}"
