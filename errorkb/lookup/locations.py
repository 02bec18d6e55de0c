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
from dataclasses import dataclass

_RUST_PANIC = re.compile(
    r"panicked at (?:'(?P<message>.*?)', )?(?P<path>[^\s'\"]+?):(?P<line>\d+):(?P<col>\d+)",
)
_PYTHON_FRAME = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
# burn-train-0.19.1/src/... in a cargo registry; the version may carry -pre.1 or +build.
_REGISTRY_CRATE = re.compile(
    r"(?:^|/)(?P<crate>[A-Za-z_][A-Za-z0-9_-]*?)-"
    r"(?P<version>\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)/(?P<rest>.+)$"
)
# A shorter pasted path names too many files to be told apart.
_MIN_SUFFIX_PARTS = 3
# How far below its location a panic prints its message, in lines (the new form
# prints it on the next line; a long Debug payload may wrap).
PANIC_REACH = 3


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
    """Every Rust panic location and Python traceback frame in the text, in text order."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if "panicked at" in line:
            found += [_rust(match, number) for match in _RUST_PANIC.finditer(line)]
        if 'File "' in line:
            found += [_python(match, number) for match in _PYTHON_FRAME.finditer(line)]
    return found


def locations_for(locations: list[Location], text_line: int) -> list[Location]:
    """The locations that speak for a message found on `text_line`, nearest first.

    A Rust panic names its location on the message's line (before 1.73) or just above
    it; a Python exception's line closes the traceback whose frames stand above it,
    the innermost, where it was raised, last.
    """
    near = [
        loc
        for loc in locations
        if loc.kind == "rust-panic" and 0 <= text_line - loc.text_line <= PANIC_REACH
    ]
    frames = _traceback_above(locations, text_line)
    return sorted(near, key=lambda loc: text_line - loc.text_line) + frames[::-1]


def path_fits(pasted: Location, repo_path: str | None) -> bool:
    """Whether the pasted path is the repository path `repo_path`, however installed."""
    if not repo_path:
        return False
    repo_path = repo_path.strip("/")
    path = pasted.path
    if path == repo_path or path.endswith("/" + repo_path):
        return True
    registry = _REGISTRY_CRATE.search(path)
    if registry:
        path = f"{registry['crate']}/{registry['rest']}"
    if path.count("/") + 1 >= _MIN_SUFFIX_PARTS or registry:
        return repo_path == path or repo_path.endswith("/" + path)
    return False


def _rust(match: re.Match, number: int) -> Location:
    path = _normal(match["path"])
    registry = _REGISTRY_CRATE.search(path)
    return Location(
        path=path,
        line=int(match["line"]),
        column=int(match["col"]),
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


def _traceback_above(locations: list[Location], text_line: int) -> list[Location]:
    """The frames of the Python traceback that ends just above `text_line`, in order."""
    frames = [loc for loc in locations if loc.kind == "python-frame" and loc.text_line < text_line]
    if not frames:
        return []
    # A traceback's frames stand two lines apart (the frame, its source line); the
    # message follows the last frame within a few lines.
    block = [frames[-1]]
    for frame in reversed(frames[:-1]):
        if block[-1].text_line - frame.text_line > 3:
            break
        block.append(frame)
    if text_line - block[0].text_line > 4:
        return []
    return block[::-1]
