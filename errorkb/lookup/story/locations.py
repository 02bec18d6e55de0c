"""Source locations in a pasted text, and whether one is an entry's file and line.

Rust prints where a panic happened: since 1.73 on the line of the panic,

    thread 'main' panicked at crates/burn-train/src/learner/base.rs:181:22:
    Can save model checkpoint.: Os { code: 28, kind: StorageFull, ... }

and before 1.73 after the message: `panicked at 'Can save ...', src/x.rs:181:22`.
Python names each frame of a traceback: `File "/.../torch/serialization.py", line 1004`.
A path is the reader's, not the repository's: a crate from the registry sits under
`~/.cargo/registry/src/<index>/burn-train-0.19.1/src/...`, a git dependency or a local
checkout under an absolute path, a Python package under site-packages. All of them
end in the repository's own path, or, for a registry crate, in `<crate>/<path>`, the
version aside.
"""

import re
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from itertools import islice

# The quoted message (before 1.73) is read up to the next "panicked at" at most: on a
# crafted line of thousands of headers, each would otherwise read the rest of the line.
_RUST_PANIC = re.compile(
    r"panicked at (?:'(?P<message>(?:(?!panicked at ).)*?)', +)?"
    r"(?P<path>[^\s'\"]+?):(?P<line>\d+):(?P<col>\d+)",
)
_PYTHON_FRAME = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
# burn-train-0.19.1/src/... in a cargo registry; the version may carry -pre.1 or +build.
REGISTRY_CRATE = re.compile(
    r"(?:^|/)(?P<crate>[A-Za-z_][A-Za-z0-9_-]*?)-"
    r"(?P<version>\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)/(?P<rest>.+)$"
)
# A shorter pasted path names too many files to be told apart.
_MIN_SUFFIX_PARTS = 3
# How far below its location a panic prints its message, in lines (the new form
# prints it on the next line; a long Debug payload may wrap).
PANIC_REACH = 3
# A real line names one location; a crafted one naming thousands must not make every
# match read them all. Nor does a traceback run longer (Python folds recursion).
PER_LINE = 4
FRAMES = 256


@dataclass(frozen=True)
class Location:
    """One place a text names: a source path and line, where in the text it stands."""

    path: str
    line: int
    column: int | None
    text_line: int  # 1-based line of the pasted text that names it
    kind: str  # "rust-panic" or "python-frame"
    version: str | None = None  # from a registry path such as burn-train-0.19.1/

    @property
    def label(self) -> str:
        column = f":{self.column}" if self.column else ""
        return f"{self.path}:{self.line}{column}"


def find_locations(text: str) -> list[Location]:
    """The Rust panic locations and Python traceback frames in the text, in text order
    (at most PER_LINE of each kind on one line)."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if "panicked at" in line:
            panics = islice(_RUST_PANIC.finditer(line), PER_LINE)
            found += [rust_location(match, number) for match in panics]
        if 'File "' in line:
            frames = islice(_PYTHON_FRAME.finditer(line), PER_LINE)
            found += [_python(match, number) for match in frames]
    return found


class Located:
    """A text's locations, indexed by the line that names them."""

    def __init__(self, locations: list[Location]):
        self.panics: dict[int, list[Location]] = defaultdict(list)
        self.frames = [loc for loc in locations if loc.kind == "python-frame"]
        self.frame_lines = [loc.text_line for loc in self.frames]
        for loc in locations:
            if loc.kind == "rust-panic":
                self.panics[loc.text_line].append(loc)

    def near(self, text_line: int) -> list[Location]:
        """The locations that speak for a message found on `text_line`, nearest first.

        A Rust panic names its location on the message's line (before 1.73) or just
        above it; a Python exception's line closes the traceback whose frames stand
        above it, the innermost, where it was raised, first here.
        """
        near = [
            loc
            for distance in range(PANIC_REACH + 1)
            for loc in self.panics.get(text_line - distance, ())
        ]
        return near + self._traceback_above(text_line)[::-1]

    def _traceback_above(self, text_line: int) -> list[Location]:
        """The frames of the Python traceback that ends just above `text_line`, in order."""
        end = bisect_left(self.frame_lines, text_line)
        if end == 0 or text_line - self.frame_lines[end - 1] > 4:
            return []
        # A traceback's frames stand a few lines apart (the frame, its source, carets).
        start = end - 1
        while start > 0 and end - start < FRAMES:
            if self.frame_lines[start] - self.frame_lines[start - 1] > 3:
                break
            start -= 1
        return self.frames[start:end]


def path_fits(pasted: Location, repo_path: str | None) -> bool:
    """Whether the pasted path is the repository path `repo_path`, however installed."""
    if not repo_path:
        return False
    repo_path = repo_path.strip("/")
    path = pasted.path
    if path == repo_path or path.endswith("/" + repo_path):
        return True
    registry = REGISTRY_CRATE.search(path)
    if registry:
        path = f"{registry['crate']}/{registry['rest']}"
    if path.count("/") + 1 >= _MIN_SUFFIX_PARTS or registry:
        return repo_path == path or repo_path.endswith("/" + path)
    return False


def rust_location(match: re.Match, number: int) -> Location:
    """The location a match names with its groups path, line and col (which may be
    missing), on text line `number`."""
    path = _normal(match["path"])
    registry = REGISTRY_CRATE.search(path)
    return Location(
        path=path,
        line=int(match["line"]),
        column=int(match["col"]) if match["col"] else None,
        text_line=number,
        kind="rust-panic",
        version=registry["version"] if registry else None,
    )


def _python(match: re.Match, number: int) -> Location:
    return Location(
        path=_normal(match["path"]),
        line=int(match["line"]),
        column=None,
        text_line=number,
        kind="python-frame",
    )


def _normal(path: str) -> str:
    """Forward slashes and no leading ./ (Windows paths and relative paths alike)."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path
