"""A dataset file read as a stream: its records one at a time, never the whole file at once.

Two parsers read the same chunks: one follows the parse events to bound the nesting and
to find the top level's keys (the outline), the other builds each record object in turn
(ijson's C backend, yajl). A first reading (scan) learns where the records are and a
digest of the bytes; each later reading (raw_records) yields the records and checks
that it read the same bytes. Strict as json.loads is strict: UTF-8 with an optional
byte order mark, no NaN or Infinity, no trailing garbage.
"""

import codecs
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

import ijson
from ijson.utils import sendable_list

from ..record.lengths import quoted

# yajl reads a lone surrogate escape ("\ud800") as "?" and refuses integers past 64
# bits, where json.loads keeps both for validation to refuse with the field named:
# a file holding either is read again by ijson's pure Python parser, which keeps them.
FAST = ijson.get_backend("yajl2_c")
EXACT = ijson.get_backend("python")
CHUNK = 64 * 1024
# A dump nests four levels (file, records, record, appliesTo row). Far deeper is no dataset.
MAX_DATASET_DEPTH = 64
TOO_DEEP = f"the file is not valid JSON: it is nested more than {MAX_DATASET_DEPTH} levels deep"
# A high surrogate escape not followed by a low one, or a low one not after a high one.
# An escaped backslash before "u" matches too: the exact parser then reads it, as right.
# Every branch starts with the same literal, which the regex engine skips to.
_HIGH, _LOW = rb"\\u[dD][89abAB][0-9a-fA-F]{2}", rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_LONE_SURROGATE = re.compile(
    rb"\\u[dD](?:[89abAB][0-9a-fA-F]{2}(?!%s)|[c-fC-F][0-9a-fA-F]{2}(?<!%s%s))"
    % (_LOW, _HIGH, _LOW)
)
_HELD = 18  # bytes kept for the next chunk's scan: an escape, its lookbehind, its lookahead
_OPENS = frozenset(("start_map", "start_array"))
_CLOSES = frozenset(("end_map", "end_array"))
ARRAY, OBJECT = "array", "object"  # a top-level key's value, when not a scalar
# How much a refusal quotes of a parser's message (ijson's pure Python parser quotes the
# whole symbol it refused): it may be a megabyte long. A key: lengths.quoted.
MESSAGE_CHARS = 200


class DatasetError(ValueError):
    """A dataset file that cannot be imported as a whole."""


class _NeedsExactParser(Exception):
    """The fast parser would misread this file."""


@dataclass
class Layout:
    """Where a file's records are, what its top level says, and the digest of its bytes."""

    top: str | None  # the first event: start_array, start_map, or a scalar's
    keys: dict  # top-level key: its scalar value, or ARRAY / OBJECT
    digest: str
    backend: object = FAST
    chunk: int = CHUNK  # the widest read the scan needed: a later reading reads as wide


def scan(open_file, *, limit: int) -> Layout:
    """Read the whole file once with the outline alone: bounded, strict, its layout."""
    for backend in (FAST, EXACT):
        try:
            with open_file() as file:
                outline = _Outline(backend)
                for chunk in _chunks(file, limit, backend, outline.read_size):
                    outline.feed(chunk)
                outline.close()
            digest = outline.digest.hexdigest()
            return Layout(outline.top, outline.keys, digest, backend, outline.widest)
        except _NeedsExactParser:
            continue
    raise AssertionError("the exact parser reads every file")  # pragma: no cover


def raw_records(file: BinaryIO, prefix: str, layout: Layout, *, limit: int) -> Iterator:
    """The JSON values at prefix ("item", "records.item" or "record"), one at a time.

    Raises DatasetError when the bytes are not those the scan read; the scan bounded and
    checked them, so this reading need not (a caller writing what it yields rolls back).
    """
    reader = _Reader(_chunks(file, limit, None, lambda: layout.chunk))
    try:
        yield from layout.backend.items(reader, prefix, use_float=True)
    except _NeedsExactParser:
        raise changed("it now holds what the first reading did not") from None
    except DatasetError as exc:
        raise changed(str(exc)) from None
    except (ijson.JSONError, ValueError) as exc:
        raise changed(f"it is not valid JSON now: {_one_line(str(exc))}") from None
    if reader.digest.hexdigest() != layout.digest:
        raise changed("its bytes differ from those first read")


class _Reader:
    """chunks as a file for ijson's C loop (its own coroutines cost it several times as much)."""

    def __init__(self, chunks: Iterator[bytes]):
        self.chunks = chunks
        self.digest = _digest()

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson asks for nothing, to learn whether the file gives bytes
            return b""
        chunk = next(self.chunks, b"")
        self.digest.update(chunk)
        return chunk


def changed(why: str) -> DatasetError:
    return DatasetError(f"the file changed while it was imported: {why}")


def _chunks(file: BinaryIO, limit: int, backend, size: Callable[[], int]) -> Iterator[bytes]:
    """The file's bytes after any byte order mark, refused past limit or when not UTF-8.

    backend: the parser the bytes are for (FAST: watched for what it would misread);
    size: how many bytes to read next.
    """
    if _size(file) > limit:  # refused before a byte is read, whatever the bytes are
        raise too_large(limit)
    decoder = codecs.getincrementaldecoder("utf-8")()
    read = 0
    held = b""
    chunk = _first(file)
    while chunk:
        read += len(chunk)
        if read > limit:
            raise too_large(limit)
        pending = len(decoder.getstate()[0])
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            raise not_utf8(read - len(chunk) - pending + exc.start) from None
        if backend is FAST:
            held = _check_surrogates(held + chunk)
        yield chunk
        chunk = file.read(min(size(), limit + 1 - read))  # one byte past limit: refused
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise not_utf8(read - len(decoder.getstate()[0]) + exc.start) from None
    if backend is FAST and _LONE_SURROGATE.search(held):
        raise _NeedsExactParser


def _first(file: BinaryIO) -> bytes:
    # utf-8-sig: a byte order mark, as some editors write, is not part of the JSON.
    chunk = file.read(CHUNK)
    while 0 < len(chunk) < len(codecs.BOM_UTF8) and (more := file.read(CHUNK)):
        chunk += more
    return chunk.removeprefix(codecs.BOM_UTF8)


def _size(file: BinaryIO) -> int:
    try:
        status = os.fstat(file.fileno())
    except (AttributeError, OSError, ValueError):  # in memory: counted as it is read
        return 0
    return status.st_size if stat.S_ISREG(status.st_mode) else 0


def _check_surrogates(window: bytes) -> bytes:
    """What of window the next scan needs; an escape seen whole, context and all, is judged."""
    found = _LONE_SURROGATE.search(window)
    if found and found.start() < len(window) - 12:
        raise _NeedsExactParser
    return window[-_HELD:]


def _digest():
    return hashlib.blake2b(digest_size=16)


def too_large(limit: int) -> DatasetError:
    return DatasetError(f"the file is larger than {limit // 2**20} MB")


def not_utf8(offset: int) -> DatasetError:
    return DatasetError(f"the file is not UTF-8 text (bad byte at offset {offset})")


class _Outline:
    """The nesting and the top level of a file, followed through its parse events."""

    def __init__(self, backend):
        self.backend = backend
        self.events = sendable_list()
        self.parser = backend.basic_parse_coro(self.events, use_float=True)
        self.digest = _digest()
        self.depth = 0
        self.top: str | None = None
        self.keys: dict = {}
        self.key: str | None = None  # the top-level key whose value comes next
        # The keys of each open object (None for an open array), to refuse a key given
        # twice at any level: json.loads and ijson keep the last, so a record with two
        # "id"s would import under the second. Bounded as the depth is.
        self.open_keys: list[set | None] = []
        self.records_depth: int | None = None  # the nesting inside the array of records
        self.record = -1  # the index of the record being read, once one is
        self.wanted = self.widest = CHUNK  # bytes to read next; the most asked for

    def feed(self, chunk: bytes) -> None:
        self.digest.update(chunk)
        try:
            _send(self.parser, chunk, self.backend)
        finally:
            self._widen(ended=bool(self.events))
            self._follow()  # the events before a syntax error: too deep is said first

    def read_size(self) -> int:
        return self.wanted

    def _widen(self, *, ended: bool) -> None:
        # yajl lexes a token that spans chunks again from its start with every chunk, so
        # a string many chunks long cost the square of its length. Doubling the read while
        # no token ends keeps it to about twice the token's length.
        self.wanted = CHUNK if ended else self.wanted * 2
        self.widest = max(self.widest, self.wanted)

    def close(self) -> None:
        try:
            _send(self.parser, None, self.backend)
        finally:
            self._follow()

    def _follow(self) -> None:
        depth = self.depth
        for event, value in self.events:
            if event in _OPENS:
                if depth == self.records_depth:
                    self.record += 1
                depth += 1
                if depth > MAX_DATASET_DEPTH:
                    raise DatasetError(TOO_DEEP)
                self.open_keys.append(set() if event == "start_map" else None)
                if depth <= 2:
                    self._top(depth - 1, event, value)
            elif event in _CLOSES:
                depth -= 1
                self.open_keys.pop()
            else:
                if event == "map_key" and depth > 1:
                    self._once(value)
                elif depth == self.records_depth:
                    self.record += 1  # a record that is not an object: refused later
                if depth <= 1:
                    self._top(depth, event, value)
        self.depth = depth
        del self.events[:]

    def _once(self, key: str) -> None:
        keys = self.open_keys[-1]
        if key in keys:
            where = f"record #{self.record}" if self.record >= 0 else "the file"
            raise DatasetError(f"the key {quoted(key)} appears twice in one object of {where}")
        keys.add(key)

    def _top(self, level: int, event: str, value) -> None:
        if level == 0:
            self.top = event
            if event == "start_array":
                self.records_depth = 1
        elif self.top != "start_map":
            return  # an item of a top-level array
        elif event == "map_key":
            if value in self.keys:
                raise DatasetError(f"the key {quoted(value)} appears twice at the top level")
            self.key = value
            # What follows is this key's value: no record, unless it is "records" or "record".
            self.records_depth, self.record = None, -1
        else:
            self.keys[self.key] = {"start_array": ARRAY, "start_map": OBJECT}.get(event, value)
            if event == "start_array" and self.key == "records":
                self.records_depth = 2
            elif event == "start_map" and self.key == "record":
                self.record = 0


def _send(parser, chunk: bytes | None, backend) -> None:
    """chunk to parser (None: the end), its refusal worded as a DatasetError."""
    try:
        if chunk is None:
            parser.close()
        else:
            parser.send(chunk)
    except DatasetError:
        raise
    except (ijson.JSONError, ValueError) as exc:
        text = str(exc)
        if backend is FAST and ("overflow" in text or isinstance(exc, UnicodeDecodeError)):
            raise _NeedsExactParser from None
        raise DatasetError(f"the file is not valid JSON: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    """Why a parser refused, a number it cannot read said without quoting it."""
    # Python refuses to convert an integer of over 4300 digits, ijson a float past the
    # largest double. Its pure Python parser then refuses the number as an unexpected
    # symbol, quoting all of it, with the first refusal as the exception's context.
    first = str(exc.__context__)
    if "digits" in first:
        return "it holds a number too long to read"
    if "float overflow" in first:
        return "it holds a number too large to read"
    return _one_line(str(exc))


def _one_line(text: str) -> str:
    # yajl's message, then the text around the error, then an arrow under it.
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[-1].startswith("(right here)"):
        line = f"{lines[0].rstrip('.')}, here: {lines[1]}"
    else:
        line = " ".join(lines)
    return line if len(line) <= MESSAGE_CHARS else line[:MESSAGE_CHARS] + "…"
