"""Rust's Debug forms of the values burn-store's errors carry (std's, not burn's texts)."""

from __future__ import annotations

import math
import unicodedata

# Characters Rust's `char::escape_debug` writes as themselves despite not being ASCII
# printable: every printable character.  Not printable: Unicode's control, format,
# surrogate, private-use and unassigned characters and the separators other than the
# space; grapheme extenders (nonspacing and enclosing marks) are escaped too, as
# `<str as Debug>::fmt` asks.
_ESCAPED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs", "Mn", "Me"}
_SHORT_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}


def debug_str(text: str) -> str:
    """``<str as Debug>``: quoted, with Rust's escapes (``\\u{fe0f}`` for a variation selector)."""
    out = ['"']
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif char != " " and unicodedata.category(char) in _ESCAPED_CATEGORIES:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def debug_f64(value: float) -> str:
    """``<f64 as Debug>``: the shortest round-trip digits, in exponent form outside
    1e-4 <= |x| < 1e16 (``1e16``, ``1e-5``), always with a fraction otherwise (``1.0``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    magnitude = abs(value)
    if magnitude != 0 and not 1e-4 <= magnitude < 1e16:
        mantissa, exponent = repr(value).split("e") if "e" in repr(value) else (repr(value), "0")
        mantissa = mantissa[:-2] if mantissa.endswith(".0") else mantissa
        return f"{mantissa}e{int(exponent)}"
    text = repr(value)
    return text if "." in text else f"{text}.0"


def debug_list(items: list[str]) -> str:
    """A ``Vec``'s Debug, its items already in their Debug form."""
    return "[" + ", ".join(items) + "]"


def utf8_error(data: bytes) -> str:
    """``FromUtf8Error``'s Display for bytes that are not UTF-8 (core's Utf8Error)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.reason == "unexpected end of data":
            return f"incomplete utf-8 byte sequence from index {err.start}"
        return f"invalid utf-8 sequence of {err.end - err.start} bytes from index {err.start}"
    raise ValueError("the bytes are valid UTF-8")


def parse_int_error(text: str) -> str | None:
    """``<i64 as FromStr>``'s error Display for ``text``, or None when it parses."""
    if not text:
        return "cannot parse integer from empty string"
    digits = text[1:] if text[0] in "+-" else text
    if not digits or not all("0" <= c <= "9" for c in digits):
        return "invalid digit found in string"
    value = int(text)
    if value > 2**63 - 1:
        return "number too large to fit in target type"
    if value < -(2**63):
        return "number too small to fit in target type"
    return None
