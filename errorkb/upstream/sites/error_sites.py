"""Error sites in Rust and Python source: where a message is written that a failure reports.

Plain Python on tree-sitter's parsers, so the scanner runs anywhere, Django or not.
"""

from pathlib import PurePosixPath

from errorkb.kb.record.lengths import MESSAGE_LENGTH

from . import python, rust
from .messages import Site

__all__ = ["SCANNER_VERSION", "Site", "SourceError", "find_sites", "is_scanned"]

# Bump when the rules change: stored scans of an older version are redone.
SCANNER_VERSION = 1

LANGUAGES = {".rs": rust, ".py": python}
# Directories that hold tests, benchmarks, examples and fuzz targets, not the code they run.
NOT_SHIPPED = {"tests", "test", "benches", "examples", "fuzz"}


class SourceError(ValueError):
    """A file the scanner cannot read: not UTF-8. Message names the path and the byte offset."""


def is_scanned(path: str) -> bool:
    """Whether `path` is Rust or Python source that is not test, bench or example code."""
    parts = PurePosixPath(path.replace("\\", "/"))
    if parts.suffix not in LANGUAGES or NOT_SHIPPED & set(parts.parts[:-1]):
        return False
    name = parts.name
    if parts.suffix == ".py":
        return not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")
    return True


def find_sites(path: str, source: bytes) -> list[Site]:
    """The error sites in one file, in file order; none for a path `is_scanned` rejects."""
    if not is_scanned(path):
        return []
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SourceError(f"{path}: not UTF-8 at byte {error.start}") from error
    language = LANGUAGES[PurePosixPath(path).suffix]
    found = language.findings(language.PARSER.parse(source))
    last_line = max(1, text.count("\n") + (not text.endswith("\n")))
    found.sort(key=lambda finding: (finding.line, finding.column))
    sites = (finding.site(last_line) for finding in found)
    # A message or pattern longer than an entry holds is no error message a reader pastes
    # (a generated table, a licence): left out, so no draft entry could be refused for it.
    return [site for site in sites if max(len(site.message), len(site.pattern)) <= MESSAGE_LENGTH]
