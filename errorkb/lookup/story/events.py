"""A pasted log read as what happened: each panic and error, in the order it was printed.

Real logs are stories. A worker thread panics first (a failed save, a backend bug), and
the panics that follow from it come after: the training thread's `Can send message to
checkpointer thread.`, the drop's `Can send the end message ...`, Rust's `panic in a
destructor during cleanup`. The reader must fix the first. This module finds the
events, with nothing but the text; findings.py puts entries on them.

The shapes read, all of them as programs print them:

    thread 'main' panicked at crates/burn-train/src/learner/base.rs:200:14:   Rust >= 1.73
    Can load model checkpoint.: ...

    thread 'main' (141484) panicked at src/main.rs:5:5:                      with a thread id
    thread 'main' panicked at 'Can load model checkpoint.: ...', src\\main.rs:113:70   < 1.73
    ... ERROR burn_train::learner::application_logger: PANIC => panicked at src/x.rs:1:2:
    Error: Custom { kind: Other, error: "..." }                       main() returning Err

wherever they stand on the line (a timestamp, a Markdown indent or quote, a terminal's
debris before them), with the path of a cargo registry, a Windows path, a local
checkout, and cut off anywhere. Every search is bounded: at most MAX_EVENTS events, each
message at most MESSAGE_LINES lines.
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .locations import Location, rust_location

MAX_EVENTS = 50
MESSAGE_LINES = 40
MESSAGE_CHARS = 4000
BACKTRACE_LINES = 200

# Where an event starts: "panicked at " after `thread 'name' ` or burn's `PANIC => `,
# anywhere on its line; main's `Error: ` only at the start of a line (after an indent),
# or every log line that quotes an error would be an event. Both are found with
# str.find, the fastest search Python has over a 1 MiB log, and the few candidates
# checked on their own line; at most MAX_CANDIDATES of them are read.
MAX_CANDIDATES = 4096
HEADER_REACH = 300  # how far before "panicked at " a header starts: `thread '<200 chars>' `
REST_CHARS = 4096  # how much of the header's line is read: a location, or a quoted message
_PANIC_AT = "panicked at "
_PANIC_AT_END = "panicked at\n"  # the location on a line of its own
_ERROR_AT = "Error: "
_EYRE_AT = "The application panicked (crashed)."
_EYRE_LOCATION = re.compile(
    r"Location:\s+(?P<path>[^'\"\s][^'\"]*?):(?P<line>\d+)(?::(?P<col>\d+))?" + r"\s*$"
)
_LOGGED = "PANIC => "
_THREAD = "thread '"
_THREAD_HEADER = re.compile(r"thread '(?P<thread>[^'\n]{0,200})'(?: \(\d+\))? ")
# After "panicked at ": the location alone (Rust >= 1.73), or the quoted message then the
# location (before 1.73), whose quote may close lines later.
# A terminal UI may leave its frame (│) at the end of the line.
_END = r"\s*[\u2502|]?\s*$"
# A path may hold spaces (C:\Users\Ana Lima\.cargo\...): the location ends the line.
_NEW_FORM = re.compile(r"(?P<path>[^'\"\s][^'\"]*?):(?P<line>\d+):(?P<col>\d+):?" + _END)
_OLD_FORM = re.compile(
    r"'(?P<message>.*)', +(?P<path>[^\s'\"]+?):(?P<line>\d+):(?P<col>\d+)" + _END
)
_OLD_FORM_END = re.compile(
    r"^(?P<message>.*)', +(?P<path>[^\s'\"]+?):(?P<line>\d+):(?P<col>\d+)" + _END
)
# A terminal UI that keeps drawing over the panic's line leaves its debris after the
# location's closing colon: the location still ends at that colon.
_NEW_FORM_DEBRIS = re.compile(r"(?P<path>[^'\"\s][^'\"]*?):(?P<line>\d+):(?P<col>\d+):\s{2,}\S")
# The message pasted onto the location's line, after one space.
_NEW_FORM_INLINE = re.compile(
    r"(?P<path>[^'\"\s][^'\"]*?):(?P<line>\d+):(?P<col>\d+): (?P<message>\S.*?)" + _END
)
# Before 1.73, a message whose quote closes a line above its location: `...', ` then
# `src/state.rs:37:10` on a line of its own.
_OLD_FORM_QUOTE_END = re.compile(r"^(?P<message>.*)',\s*$")
_LOCATION_ALONE = re.compile(r"^\s*(?P<path>[^\s'\"]+?):(?P<line>\d+):(?P<col>\d+)" + _END)
# In a browser, console_error_panic_hook's line stands after the console's source link:
# `app-ac93db4e.js:852 panicked at ...`.
_CONSOLE_SOURCE = re.compile(r"[ \t]*[\w.-]+\.js:\d+[ \t]+")
# A terminal's colours and cursor moves, and Windows' line ends: not part of any message.
_TERMINAL_CODES = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\r(?=\n)"
)
# A line that ends a message: the hook's note, a backtrace, the next header, a log record.
_MESSAGE_END = re.compile(
    r"^\s*(?:note: |stack backtrace:|=== PANIC ===|={5,}\s*$|Caused by:|"
    r"\[?\d{4}-\d{2}-\d{2}[T ])"
    r"|panicked at |PANIC => |thread caused non-unwinding panic"
)
# A timestamp that a CI runner or a container log puts before every line, and nothing
# else: `2026-11-28T10:02:11.4817390Z `, `[2026-11-28 10:02:11] `.
_STAMP_ONLY = re.compile(
    r"[ \t]*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?[ \t]+"
)
_BACKTRACE_LINE = re.compile(r"^[\s>|\u2502]*(?:\d+: |at |\.\.\.)")
_INDENT = " \t>|\u2502"
# What Rust's runtime prints when a panic happens while another unwinds: always a
# consequence of an earlier panic, never the cause.
RUNTIME_CONSEQUENCES = (
    "panic in a destructor during cleanup",
    "thread caused non-unwinding panic. aborting.",
    "panicked while processing panic",
    "panic in a function that cannot unwind",
)
JOIN_ERROR = "Any { .. }"
# A lock whose holder panicked: its `unwrap()` follows that panic.
POISONED = "PoisonError"
_ESCAPES = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|.)")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "0": "\0"}


@dataclass(frozen=True)
class Event:
    """One panic or error as the text prints it."""

    kind: str  # "panic" (Rust's hook), "logged" (burn's PANIC => line), "error" (main's Err)
    thread: str | None
    message: str  # its lines as printed, the header's indent taken off; "" when cut off
    location: Location | None
    first_line: int  # the text lines it spans, 1-based, inclusive (its backtrace too)
    last_line: int
    message_line: int  # where its message starts
    backtrace: tuple[Location, ...] = ()  # the frames of its backtrace that name a file

    @property
    def follows_a_panic(self) -> bool:
        """Whether its own text says it follows an earlier panic: Rust's runtime printed it
        because a panic happened while unwinding, or it unwraps a thread's join, whose
        error is the dead thread's payload and prints as `Any { .. }`, or unwraps a lock
        that a panicking thread poisoned (`PoisonError { .. }`)."""
        return (
            self.message.startswith(RUNTIME_CONSEQUENCES)
            or self.headline.endswith(JOIN_ERROR)
            or POISONED in self.headline
        )

    @property
    def headline(self) -> str:
        """The message's first line."""
        return self.message.split("\n", 1)[0]

    def unescaped(self) -> str | None:
        """The message with a Debug string's escapes read (\\n, \\"), or None if it has none.

        `Unknown("Unable to load record.\\nMetadata has ...")` carries burn's multi-line
        text on one line; read back, its lines can be matched as burn wrote them.
        """
        if "\\" not in self.message:
            return None
        return _ESCAPES.sub(_unescape, self.message)


def clean(text: str) -> str:
    """The text without a terminal's escape codes and with Unix line ends: what the reader
    saw on the screen, which is what burn printed."""
    if "\x1b" not in text and "\r" not in text:
        return text
    return _TERMINAL_CODES.sub("", text)


@dataclass
class Story:
    events: list[Event] = field(default_factory=list)
    truncated: bool = False  # more events than MAX_EVENTS


def read_story(text: str) -> Story:
    """The text's panics and errors, in text order; a panic printed twice (to the terminal
    and to burn's experiment log) once."""
    story = Story()
    lines = _Lines(text)
    consumed = 0  # events do not start inside the one before them
    seen: set[tuple[str, str, str]] = set()
    for header in _headers(text):
        number = lines.number_at(header.start)
        if number <= consumed:
            continue
        event = _event(header, number, lines)
        consumed = event.last_line
        if event.kind != "error" and event.location and _told_before(event, seen):
            continue  # the same panic, logged by burn's hook and printed by Rust's
        if len(story.events) == MAX_EVENTS:
            story.truncated = True
            break
        story.events.append(event)
    return story


def _told_before(event: Event, seen: set[tuple[str, str, str]]) -> bool:
    """Whether the text told this panic already, and note it. Rust's hook and burn's log
    line print one panic at one location, the log line's message with its own indent: a
    panic and a logged panic at one location are one, whatever their messages show."""
    label = event.location.label
    other = "logged" if event.kind == "panic" else "panic"
    said = ("said", label, event.headline.strip(" \t`"))
    if said in seen or ("kind", label, other) in seen:
        return True
    seen.update({said, ("kind", label, event.kind)})
    return False


@dataclass(frozen=True)
class _Header:
    start: int  # where its line's header begins (`thread '...`, `PANIC =>`, the indent)
    kind: str  # "panic", "logged", "error" or "eyre" (color-eyre's panic report)
    thread: str | None
    rest: str  # the line after "panicked at " or "Error: "
    prefix: str  # the line before the header


def _headers(text: str) -> Iterator[_Header]:
    """The event headers of the text, in text order."""
    readers = {
        _PANIC_AT: _panic_header,
        _PANIC_AT_END: _panic_header,
        _ERROR_AT: _error_header,
        _EYRE_AT: _eyre_header,
    }
    next_at = {marker: text.find(marker) for marker in readers}
    for _ in range(MAX_CANDIDATES):
        found = [(at, marker) for marker, at in next_at.items() if at >= 0]
        if not found:
            return
        position, marker = min(found)
        next_at[marker] = text.find(marker, position + 1)
        header = readers[marker](text, position)
        if header is not None:
            yield header


def _panic_header(text: str, position: int) -> _Header | None:
    # Each candidate reads a bounded window before it, with one anchored match: a crafted
    # line holding thousands of them must not make each read the whole line.
    window = max(0, position - HEADER_REACH)
    line_start = text.rfind("\n", window, position) + 1 or window
    logged_at = position - len(_LOGGED)
    if logged_at >= line_start and text.startswith(_LOGGED, logged_at):
        kind, start, thread = "logged", logged_at, None
    else:
        start = text.rfind(_THREAD, line_start, position)
        header = _THREAD_HEADER.fullmatch(text, start, position) if start >= 0 else None
        if header is not None:
            kind, thread = "panic", header["thread"]
        elif _starts_a_line(text[line_start:position]):
            # Quoted without its thread ("panicked at src/main.rs:5:5:"), or cut before it.
            kind, start, thread = "panic", position, None
        else:
            return None  # a message that quotes a panic
    at_end = text.startswith(_PANIC_AT_END, position)
    rest = "" if at_end else _rest(text, position + len(_PANIC_AT))
    return _Header(start, kind, thread, rest, text[line_start:start])


def _error_header(text: str, position: int) -> _Header | None:
    window = max(0, position - HEADER_REACH)
    line_start = max(text.rfind("\n", window, position), text.rfind("\r", window, position)) + 1
    indent = text[line_start or window : position]
    if (line_start == 0 and window > 0) or not _starts_a_line(indent):
        return None  # "Error: " inside a line: a log record quoting an error
    return _Header(line_start, "error", None, _rest(text, position + len(_ERROR_AT)), indent)


def _eyre_header(text: str, position: int) -> _Header | None:
    """color-eyre's panic hook: `The application panicked (crashed).` on a line of its own."""
    window = max(0, position - HEADER_REACH)
    line_start = text.rfind("\n", window, position) + 1 or window
    prefix = text[line_start:position]
    if not _starts_a_line(prefix):
        return None
    return _Header(position, "eyre", None, "", prefix)


def _starts_a_line(before: str) -> bool:
    """Whether what stands before a header on its line is only an indent, a timestamp or a
    browser console's source link."""
    return (
        not before.strip(_INDENT)
        or _STAMP_ONLY.fullmatch(before) is not None
        or _CONSOLE_SOURCE.fullmatch(before) is not None
    )


def _rest(text: str, start: int) -> str:
    """The line after a header, at most REST_CHARS of it."""
    end = text.find("\n", start, start + REST_CHARS)
    return text[start : end if end >= 0 else min(len(text), start + REST_CHARS)]


class _Lines:
    """The text's lines, found as they are asked for: a 1 MiB log is not split whole."""

    def __init__(self, text: str):
        self.text = text
        self._position = 0
        self._number = 1

    def number_at(self, position: int) -> int:
        """The 1-based number of the line holding `position` (asked in increasing order)."""
        if position < self._position:
            self._position, self._number = 0, 1
        self._number += self.text.count("\n", self._position, position)
        self._position = position
        return self._number

    def after(self, position: int, count: int) -> list[str]:
        """Up to `count` lines after the line holding `position`."""
        start = self.text.find("\n", position)
        found = []
        while start >= 0 and len(found) < count:
            end = self.text.find("\n", start + 1)
            found.append(self.text[start + 1 : end if end >= 0 else len(self.text)])
            start = end
        return found


def _event(header: _Header, number: int, lines: _Lines) -> Event:
    if header.kind == "error":
        return _error_event(header, number, lines)
    if header.kind == "eyre":
        return _eyre_event(header, number, lines)
    kind, rest, thread = header.kind, header.rest, header.thread
    strip = _stripper(header.prefix) if kind == "panic" else _keep
    following = [strip(line) for line in lines.after(header.start, MESSAGE_LINES + BACKTRACE_LINES)]
    old = _OLD_FORM.match(rest)
    if old:
        location = rust_location(old, number)
        return _finish(kind, thread, old["message"], location, number, number, number, following)
    if rest.startswith("'"):
        quoted = _quoted_over_lines(rest, following)
        if quoted:
            message, location_match, at = quoted
            location = rust_location(location_match, number + at)
            last, after = number + at, following[at:]
            return _finish(kind, thread, message, location, number, last, number, after)
    inline = _NEW_FORM_INLINE.match(rest)
    if inline:
        location = rust_location(inline, number)
        message, after = inline["message"], following
        return _finish(kind, thread, message, location, number, number, number, after)
    new = _NEW_FORM.match(rest) or _NEW_FORM_DEBRIS.match(rest)
    location = rust_location(new, number) if new else None
    wrapped = 0
    if not new and (_cut_path(rest) or not rest.strip()) and following:
        # A terminal wraps a long path at its width (the path goes on on the next line),
        # or the location stands on a line of its own.
        joined = _NEW_FORM.match(rest.strip() + following[0].strip())
        if joined:
            location, wrapped = rust_location(joined, number), 1
            new, following = joined, following[1:]
    taken = []
    for line in following[:MESSAGE_LINES]:
        if not line.strip() or _MESSAGE_END.search(line):
            break
        taken.append(line)
    # No location on the header: the message may stand there, or the location was cut.
    on_header = [rest.strip()] if not new and rest.strip() and not _cut_path(rest) else []
    message = "\n".join(on_header + taken)
    message_line = number if on_header else number + 1 + wrapped
    last = number + wrapped + len(taken)
    return _finish(
        kind, thread, message, location, number, last, message_line, following[len(taken) :]
    )


def _quoted_over_lines(rest: str, following: list[str]) -> tuple[str, re.Match, int] | None:
    """Before 1.73, a quoted message that closes lines below its header, the location after
    it on the same line or on the next: (the message, the location's match, its offset)."""
    for offset, line in enumerate(following[:MESSAGE_LINES], start=1):
        end = _OLD_FORM_END.match(line)
        if end:
            return "\n".join([rest[1:], *following[: offset - 1], end["message"]]), end, offset
        quote = _OLD_FORM_QUOTE_END.match(line)
        alone = _LOCATION_ALONE.match(following[offset]) if offset < len(following) else None
        if quote and alone:
            message = "\n".join([rest[1:], *following[: offset - 1], quote["message"]])
            return message, alone, offset + 1
    return None


def _finish(kind, thread, message, location, first, last, message_line, rest) -> Event:
    """The event, its span stretched over the backtrace Rust printed after it, if any."""
    frames: list[Location] = []
    rest = list(rest)
    position = 0
    if rest and rest[0].strip() == "thread caused non-unwinding panic. aborting.":
        position = 1
    if position < len(rest) and rest[position].strip().startswith("stack backtrace:"):
        position += 1
        while position < len(rest) and _BACKTRACE_LINE.match(rest[position]):
            frame = _FRAME_AT.search(rest[position])
            if frame:
                frames.append(rust_location(frame, last + position + 1))
            position += 1
    return Event(
        kind=kind,
        thread=thread,
        message=message[:MESSAGE_CHARS],
        location=location,
        first_line=first,
        last_line=last + position,
        message_line=message_line,
        backtrace=tuple(frames),
    )


_FRAME_AT = re.compile(r"at (?P<path>[^\s'\"]+?):(?P<line>\d+):(?P<col>\d+)\s*$")


def _error_event(header: _Header, number: int, lines: _Lines) -> Event:
    """main's `Error: {:?}`, with what anyhow prints after it (its `Caused by:` list)."""
    message_lines = [header.rest]
    strip = _stripper(header.prefix)
    following = [strip(line) for line in lines.after(header.start, MESSAGE_LINES)]
    for position, line in enumerate(following):
        if not line.strip():
            ahead = following[position + 1] if position + 1 < len(following) else ""
            if ahead.startswith("Caused by:"):
                message_lines.append("")
                continue
            break
        if "panicked at " in line or "PANIC => " in line:
            break
        message_lines.append(line)
    last = number + len(message_lines) - 1
    return Event(
        "error", None, "\n".join(message_lines)[:MESSAGE_CHARS], None, number, last, number
    )


def _eyre_event(header: _Header, number: int, lines: _Lines) -> Event:
    """color-eyre's report: `Message:  {payload}` (its lines), then `Location: {file}:{line}`."""
    strip = _stripper(header.prefix)
    following = [strip(line) for line in lines.after(header.start, MESSAGE_LINES + 1)]
    message_lines, location, last = [], None, number
    for offset, line in enumerate(following, start=1):
        if not message_lines and not line.startswith("Message:"):
            break
        at = _EYRE_LOCATION.match(line)
        if at:
            location, last = rust_location(at, number + offset), number + offset
            break
        if not line.strip():
            break
        message_lines.append(line.removeprefix("Message:").lstrip() if not message_lines else line)
        last = number + offset
    message = "\n".join(message_lines)
    return Event("panic", None, message[:MESSAGE_CHARS], location, number, last, number + 1)


def _stripper(prefix: str) -> Callable[[str], str]:
    """What to take off the lines after a header, given what stands before it on its
    line: a timestamp that every line carries (GitHub Actions, `docker logs -t`), or an
    indent (spaces, Markdown's quotes), or nothing (a log record's own head)."""
    if _STAMP_ONLY.fullmatch(prefix):
        return _unstamp
    if prefix and not prefix.strip(_INDENT):
        return lambda line: _dedent(line, len(prefix))
    return _keep


def _keep(line: str) -> str:
    return line


def _unstamp(line: str) -> str:
    stamp = _STAMP_ONLY.match(line)
    return line[stamp.end() :] if stamp else line


def _dedent(line: str, indent: int) -> str:
    """The line without the header's indent (spaces, Markdown's quotes) before it."""
    cut = 0
    while cut < indent and cut < len(line) and line[cut] in _INDENT:
        cut += 1
    return line[cut:]


def _cut_path(rest: str) -> bool:
    """Whether the header's tail is a location cut off in the middle (a path, no spaces)."""
    rest = rest.strip()
    return bool(rest) and " " not in rest and ("/" in rest or "\\" in rest or rest.endswith(".rs"))


def _unescape(escape: re.Match) -> str:
    code = escape.group(1)
    if code.startswith("u{"):
        try:
            return chr(int(code[2:-1], 16))
        except (ValueError, OverflowError):
            return escape.group(0)
    return _SIMPLE_ESCAPES.get(code, escape.group(0))
