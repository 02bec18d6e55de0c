"""Modules stay readable: nothing written out twice.

There are no line caps: a module is as long as its one idea.
"""

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPEAT_LINES = 6
# The scenario registry is a table read row by row; migrations are written once.
EXEMPT = {ROOT / "trainer" / "scenarios.py"}


def project_files() -> list[Path]:
    files = [*(ROOT / "errorkb").rglob("*.py"), *(ROOT / "trainer").rglob("*.py")]
    return sorted(p for p in files if "migrations" not in p.parts and p not in EXEMPT)


def test_no_six_lines_of_code_are_written_out_twice():
    seen: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for path in project_files():
        code = _code_lines(path)
        for start in range(len(code) - REPEAT_LINES + 1):
            window = code[start : start + REPEAT_LINES]
            key = tuple(text for _, text in window)
            seen[key].append(f"{path.relative_to(ROOT)}:{window[0][0]}")
    repeated = {"\n".join(key): places for key, places in seen.items() if len(places) > 1}
    assert repeated == {}


def _code_lines(path: Path) -> list[tuple[int, str]]:
    # Lines that carry logic: no blanks, comments, imports, docstring text or lone brackets.
    docstrings = _docstring_lines(path)
    lines = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if number in docstrings or not text or text.startswith(("#", "import ", "from ")):
            continue
        if text in {")", "]", "}", "),", "],", "},", "(", "[", "{"}:
            continue
        lines.append((number, text))
    return lines


def _docstring_lines(path: Path) -> set[int]:
    numbers = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                numbers.update(range(body[0].lineno, body[0].end_lineno + 1))
    return numbers
