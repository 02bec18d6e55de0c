"""Public entry ids. Plain Python (no Django), so scripts and benchmarks can use it."""

import hashlib

ENTRY_ID_LENGTH = 16


def derive_entry_id(repo: str, message: str, file_path: str | None) -> str:
    """The public id of a new entry: the same error always gets the same id."""
    key = f"{repo}\n{message}\n{file_path or ''}"
    return hashlib.sha256(key.encode()).hexdigest()[:ENTRY_ID_LENGTH]
