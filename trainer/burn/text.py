"""The forms burn's texts take: a format string at its line, a Debug variant, a panic site."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def escape(text: str) -> str:
    """``re.escape``, leaving spaces as they are so that patterns stay readable."""
    return re.escape(text).replace("\\ ", " ")


class _Cited:
    """What burn declares on ``path:line`` at ``commit``."""

    path: str
    line: int
    commit: str

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.line}@{self.commit}"


@dataclass(frozen=True)
class Text(_Cited):
    """A format string of burn's, as written on ``path:line`` at ``commit``.

    A literal continued over lines (a ``\\`` at a line's end) cites its last line
    too (``end``), and ``format`` is the string's value: escapes such as ``\\n``
    read as the characters they stand for, as Rust reads them.
    """

    format: str
    path: str
    line: int
    commit: str
    end: int | None = None  # the literal's last line, when it is continued

    @property
    def citation(self) -> str:
        lines = f"{self.line}-{self.end}" if self.end else str(self.line)
        return f"{self.path}:{lines}@{self.commit}"

    @property
    def literal(self) -> str:
        """The text before the first placeholder: what a reader can search for."""
        return _PLACEHOLDER.split(self.format, maxsplit=1)[0]

    def render(self, *values: object) -> str:
        """Fill the placeholders in order, as ``format!`` does with these arguments."""
        return self._fill(values, "values", literal=str)

    def pattern(self, *fills: str) -> str:
        """A regex for the rendered text: literal parts escaped, each placeholder ``fills[i]``."""
        fills = fills or (".+",) * (len(_PLACEHOLDER.findall(self.format)))
        return self._fill(fills, "fills", literal=escape)

    def _fill(self, values: tuple, what: str, *, literal: Callable[[str], str]) -> str:
        """The literal parts (through ``literal``) with each placeholder replaced by a value."""
        parts = _PLACEHOLDER.split(self.format)
        if len(values) != len(parts) - 1:
            raise TypeError(f"{self.format!r} takes {len(parts) - 1} {what}, got {len(values)}")
        out = [literal(parts[0])]
        for value, part in zip(values, parts[1:], strict=True):
            out += [str(value), literal(part)]
        return "".join(out)


@dataclass(frozen=True)
class Variant(_Cited):
    """A tuple variant of an enum deriving ``Debug``: printed ``Name(<field's Debug>)``."""

    name: str
    path: str
    line: int
    commit: str

    def debug(self, field_debug: str) -> str:
        return f"{self.name}({field_debug})"


@dataclass(frozen=True)
class Panic:
    """Where a panic is raised: the text, and the column Rust reports for the call."""

    text: Text
    column: int  # of `expect` / `panic!` on the cited line, as Rust's Location reports it

    @property
    def location(self) -> str:
        return f"{self.text.path}:{self.text.line}:{self.column}"


@dataclass(frozen=True)
class MacroPanic:
    """A ``panic!`` inside a ``macro_rules!`` macro: the text stands on the macro's line, but
    Rust reports the location of the outermost macro call (rustc's caller location walks a
    span's expansions back to the call site), here ``call`` (a ``name!(`` on its line)."""

    text: Text  # the panic's message, on the macro's line
    call: Text  # the macro's invocation, ``name!(``, on the line Rust reports
    column: int  # of ``call`` on its line, as Rust's Location reports it

    @property
    def location(self) -> str:
        return f"{self.call.path}:{self.call.line}:{self.column}"


@dataclass(frozen=True)
class Site(_Cited):
    """An expression of burn's where Rust itself panics (an integer overflow): ``code`` is
    the source from ``column`` on, the column Rust reports for it (for a parenthesised
    operand, the parenthesis)."""

    code: str
    path: str
    line: int
    commit: str
    column: int

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"
