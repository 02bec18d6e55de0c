"""bin/errorkb lookup [FILE|-]: the entries a log file (or standard input) carries."""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from errorkb.lookup.answers import LookupResponseSerializer
from errorkb.lookup.lookups import MAX_TEXT_BYTES, EmptyText, TextError, look_up

STDIN = "-"


class Command(BaseCommand):
    help = (
        "Print what happened in a log and the published entries that explain it. "
        "Give a log file, or - (or nothing) to read the log from standard input."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "source",
            nargs="?",
            help="a log file; - or nothing reads standard input (bin/errorkb lookup - < train.log)",
        )
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print the API's JSON answer"
        )

    def handle(self, *args, source: str | None, as_json: bool, **options):
        if source is None and sys.stdin.isatty():
            # Nothing named and nothing piped in: waiting on the terminal would look hung.
            raise CommandError(
                "give a log file (bin/errorkb lookup train.log) or pipe a log in "
                "(bin/errorkb lookup - < train.log)"
            )
        source = source or STDIN
        text = _read(source)
        name = _name(source)
        try:
            found = look_up(text)
        except EmptyText as refused:
            raise CommandError(f"{name} is empty: give the command a log to read") from refused
        except TextError as refused:
            raise CommandError(f"{name}: {refused}") from refused
        if as_json:
            self.stdout.write(_dumps(LookupResponseSerializer(found).data))
            return
        if found.story:
            self.stdout.write("What happened:")
            if found.cause is None:
                self.stdout.write(
                    "  (the first panic follows an earlier one that is not in the text: "
                    "look above it)"
                )
            for finding in found.story:
                self.stdout.write(_tell(finding))
            self.stdout.write("")
        if not found.matches:
            self.stdout.write("No published entry matches this text.")
        else:
            self.stdout.write("Entries in this text:")
        for number, match in enumerate(found.matches, start=1):
            self.stdout.write(_describe(number, match))
        if found.truncated:
            self.stdout.write("(stopped at the lookup's bound; paste less to see the rest)")


def _read(source: str) -> str:
    """The text, decoded as UTF-8 (undecodable bytes replaced); refused past 1 MiB."""
    try:
        if source == STDIN:
            data = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        else:
            with Path(source).open("rb") as handle:
                data = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise CommandError(f"{_name(source)}: cannot read it: {exc.strerror or exc}") from exc
    if len(data) > MAX_TEXT_BYTES:
        raise CommandError(
            f"{_name(source)}: over 1 MiB; a lookup reads at most {MAX_TEXT_BYTES:,} bytes. "
            "Give it the part around the error."
        )
    return data.decode("utf-8", errors="replace")


def _name(source: str) -> str:
    return "standard input" if source == STDIN else source


def _describe(number: int, match) -> str:
    entry = match.entry
    where = f"{entry.file_path}:{entry.line_number}" if entry.file_path else "no source pinned"
    lines = [f"{number}. {entry.message}  [{entry.id}, {entry.repo}, {where}]"]
    lines.append(f"   text line {match.text_line}: {match.matched[:200]}")
    if match.location:
        fit = {"line": "its file and line", "file": "its file", "": "neither"}[match.fits]
        lines.append(f"   location {match.location.label}: {fit}")
    if match.releases:
        lines.append(f"   fits releases: {', '.join(match.releases)}")
    if match.state:
        lines.append(f"   {_state(match)}")
    lines.append(f"   {match.url}")
    return "\n".join(lines)


def _state(match) -> str:
    """The entry's state at the release read from the text, as the page says it."""
    at = f"at {match.release}" if match.release else "no release in the text"
    return f"state ({at}): {match.state.state.value}: {match.state.label}"


ROLE_LABELS = {
    "cause": "LIKELY CAUSE",
    "consequence": "follows from an earlier panic",
    "later": "a later failure",
    "context": "context",
}


def _tell(finding) -> str:
    thread = f" on thread '{finding.thread}'" if finding.thread else ""
    release = (
        f", release {finding.release} (from the {finding.release_from})" if finding.release else ""
    )
    lines = [
        f"{finding.order}. [{ROLE_LABELS[finding.role]}] {finding.kind}{thread}, "
        f"text line {finding.text_line}{release}"
    ]
    lines.append(f"   {finding.message.splitlines()[0][:200] if finding.message else '(cut off)'}")
    if finding.location:
        lines.append(f"   at {finding.location.label}: {finding.place.describe()}")
    if finding.called_from:
        lines.append(f"   called from {finding.called_from.label}")
    if finding.match:
        entry = finding.match.entry
        lines.append(f"   entry: {entry.message}  [{entry.id}] {finding.match.url}")
        if finding.match.state:
            lines.append(f"   {_state(finding.match)}")
    elif finding.upstream:
        upstream = finding.upstream
        said = f": {upstream.message}" if upstream.message else ": no error site at this line"
        lines.append(
            f"   no reviewed entry yet: {upstream.file.repo} {upstream.file.path}:{upstream.line}"
            f" at {upstream.release}{said}"
        )
        if upstream.url:
            lines.append(f"   {upstream.url}")
    elif finding.where == "rust" and finding.follows:
        lines.append("   Rust's runtime: a panic while unwinding; it goes with the earlier one")
    else:
        lines.append("   no entry explains it")
    return "\n".join(lines)


def _dumps(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
