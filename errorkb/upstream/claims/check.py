"""Checking a record's claims at every release it names, against an index of the releases.

An appliesTo row claims, for each release its `versions` covers, that the file it cites
holds its `seen` text in a string literal, that the texts its `note` quotes from burn are
in burn's source, and that the API its `setup` names exists and is public. A row whose
`seen` is the record's own message in an entry keyed by a site (firesAt: Rust's message,
`attempt to subtract with overflow`, is in no literal of burn's) claims instead that its
line lies within a firesAt row at each of those releases. A firesAt row claims that, at
every release it covers, its file holds at lines firstLine..lastLine exactly the text those
lines have at the row's commit (an indexed release's): the code it keys is there, unmoved.
A snippet
(exampleFix, validationCode, typeGuard, tryCatchPattern) claims, section by section, that
every burn type, function and method it uses exists, is public and takes the arguments it
is given, and that the burn texts it quotes are there, at each release of its section:

    // burn 0.20.0 – 0.21.0
    let checkpointer = FileCheckpointer::new(recorder, &dir, "model");
    // burn 0.22.0-pre.1 – main
    let checkpointer = FileCheckpointer::new(&dir, "model");

A summary claims that every release it names (0.20.0-pre.1) is one of burn's, and that
every text it quotes in double quotes ("Can save the state.") is in one of burn's literals.

What is burn's is read from the index (errorkb.upstream.claims.release_index), not from a list:
a quoted text is burn's when it is a fixed piece of one of burn's literals at any indexed
release, a name when burn declares it at any indexed release (or it is written with a
burn path). Names burn never declares (std, anyhow, the user's own) are not checked.
"""

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from errorkb.kb.record.names import RELEASE_RE
from errorkb.kb.record.release_ranges import NEWEST, version_ends, version_in

from ..sites.rust import written_string_value
from .api_checks import use_problems
from .code_uses import nodes, parse_snippet, setup_uses, snippet_uses
from .release_facts import BurnIndex, Release
from .rust_items import literal_text

SNIPPET_FIELDS = ("exampleFix", "validationCode", "typeGuard", "tryCatchPattern")
# In a summary, plain text: a release as burn tags it, and a text quoted in double quotes.
SUMMARY_RELEASE_RE = re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?:-pre\.\d+)?(?![\w.]*\d)")
SUMMARY_QUOTE_RE = re.compile(r'"([^"]+)"|“([^”]+)”')
# A snippet's section starts at a line `// burn <versions>`, as an appliesTo row writes them.
SECTION_RE = re.compile(r"^\s*//\s*burn\s+(?P<versions>\S+(?:\s+[–-]\s+\S+)?)\s*$")


@dataclass(frozen=True)
class FailedClaim:
    """A claim of a record that does not hold at some releases: printed as one line."""

    record: str
    where: str  # the part of the record: appliesTo[2].seen, exampleFix, ...
    releases: str  # "0.20.0 – 0.21.0", "0.22.0-pre.1, main"
    problem: str

    def __str__(self) -> str:
        return f"{self.record} {self.where} @ {self.releases}: {self.problem}"


def check_claims(records: Iterable[dict[str, Any]], index: BurnIndex) -> list[FailedClaim]:
    """Every claim of the records that fails at some release it names, in record order."""
    failed: list[FailedClaim] = []
    for record in records:
        problems: dict[tuple[str, str], list[str]] = defaultdict(list)
        for where, release, problem in _record_problems(record, index):
            problems[(where, problem)].append(release)
        record_id = str(record.get("id") or record.get("slug") or "?")
        for (where, problem), releases in problems.items():
            span = ", ".join(releases) if "" in releases else index.span(releases)
            failed.append(FailedClaim(record_id, where, span or "-", problem))
    return failed


Problem = tuple[str, str, str]  # where, release, what is wrong


def _record_problems(record: dict[str, Any], index: BurnIndex) -> Iterator[Problem]:
    fires_at = record.get("firesAt") or []
    for number, row in enumerate(fires_at):
        yield from _fires_at_problems(f"firesAt[{number}]", row, index)
    for number, row in enumerate(record.get("appliesTo") or ()):
        where = f"appliesTo[{number}]"
        if fires_at and row.get("seen") == record.get("errorMessage"):
            yield from _site_problems(where, row, fires_at, index)
        else:
            yield from _row_problems(where, row, index)
    if record.get("summary"):
        yield from _summary_problems(record["summary"], index)
    claimed = [row["versions"] for row in record.get("appliesTo") or () if row.get("versions")]
    for field in SNIPPET_FIELDS:
        if record.get(field):
            yield from _snippet_problems(field, record[field], claimed, index)


def _row_problems(where: str, row: dict[str, Any], index: BurnIndex) -> Iterator[Problem]:
    versions = row.get("versions") or ""
    for end in index.unknown_ends(versions):
        yield f"{where}.versions", "", f"{end!r} is no indexed release"
    path, seen, note = row.get("filePath"), row.get("seen"), row.get("note") or ""
    uses = setup_uses(row.get("setup") or "")
    for release in index.covered(versions):
        if path not in release.literals:
            yield f"{where}.filePath", release.name, f"no file {path}"
        elif seen and not any(_holds(text, seen) for text in release.literals[path]):
            yield f"{where}.seen", release.name, f"{seen!r} is in no literal of {path}"
        yield from _quote_problems(f"{where}.note", note, release, index)
        for use in uses:
            for problem in use_problems(use, release, index):
                yield f"{where}.setup", release.name, problem


def _summary_problems(summary: str, index: BurnIndex) -> Iterator[Problem]:
    for release in dict.fromkeys(SUMMARY_RELEASE_RE.findall(summary)):
        if release not in index.releases:
            yield "summary", "", f"names {release!r}, no indexed release"
    for match in SUMMARY_QUOTE_RE.finditer(summary):
        text = match[1] or match[2]
        if not any(release.holds_text(text) for release in index.releases.values()):
            yield "summary", "", f"quotes {text!r}, in no literal of burn's at any release"


def _fires_at_problems(where: str, row: dict[str, Any], index: BurnIndex) -> Iterator[Problem]:
    versions, path = row.get("versions") or "", row.get("filePath")
    for end in index.unknown_ends(versions):
        yield f"{where}.versions", "", f"{end!r} is no indexed release"
    first, last = row.get("firstLine") or 0, row.get("lastLine") or 0
    source = index.release_at(row.get("commit") or "")
    if source is None:
        yield f"{where}.commit", "", f"{row.get('commit')!r} is no indexed release's commit"
        return
    if path not in source.lines:
        yield f"{where}.filePath", "", f"{path} is no file whose lines the index keeps"
        return
    lines = source.lines[path][first - 1 : last]
    if first < 1 or len(lines) != last - first + 1:
        yield f"{where}.lastLine", "", f"{path} has {len(source.lines[path])} lines"
        return
    for release in index.covered(versions):
        if path not in release.literals:
            yield f"{where}.filePath", release.name, f"no file {path}"
        elif release.lines.get(path, [])[first - 1 : last] != lines:
            yield where, release.name, f"lines {first}-{last} differ from {source.name}'s"


def _site_problems(
    where: str, row: dict[str, Any], fires_at: list[dict[str, Any]], index: BurnIndex
) -> Iterator[Problem]:
    """A row raising Rust's own message: its line must be within a firesAt row, release by
    release (which holds the code there). Its set-up is checked as any row's is."""
    for end in index.unknown_ends(row.get("versions") or ""):
        yield f"{where}.versions", "", f"{end!r} is no indexed release"
    path, line, note = row.get("filePath"), row.get("lineNumber"), row.get("note") or ""
    uses = setup_uses(row.get("setup") or "")
    for release in index.covered(row.get("versions") or ""):
        if not any(_fires_there(site, path, line, release.name) for site in fires_at):
            yield f"{where}.lineNumber", release.name, f"{path}:{line} is in no firesAt row"
        yield from _quote_problems(f"{where}.note", note, release, index)
        for use in uses:
            for problem in use_problems(use, release, index):
                yield f"{where}.setup", release.name, problem


def _fires_there(site: dict[str, Any], path: str, line: int, release: str) -> bool:
    return (
        site.get("filePath") == path
        and (site.get("firstLine") or 0) <= (line or 0) <= (site.get("lastLine") or 0)
        and version_in(release, site.get("versions") or "")
    )


def _holds(written: str, seen: str) -> bool:
    """Whether a literal, kept as written, holds the text: as written, or as its value (a
    text with a line break is written with `\\n`, and may be continued over lines)."""
    return seen in written or ("\\" in written and seen in written_string_value(written))


def _quote_problems(where: str, text: str, release: Release, index: BurnIndex):
    for piece in index.quoted(text):
        if not release.holds_text(piece):
            yield where, release.name, f"quotes {piece!r}, in no literal"
    for name in index.quoted_variants(text):
        if not any(item[0] == "variant" for item in release.by_name.get(name, ())):
            yield where, release.name, f"shows variant {name}, which burn does not have"


def _snippet_problems(
    field: str, text: str, claimed: list[str], index: BurnIndex
) -> Iterator[Problem]:
    sections = snippet_sections(text)
    if sections and sections[0][0] is None:
        yield field, "", "does not start with a `// burn <versions>` line"
        # Until it says, its start is taken to claim every release of the record's rows.
        head = sections.pop(0)[1]
        sections[:0] = [(versions, head) for versions in dict.fromkeys(claimed)]
    for versions, code in sections:
        for end in index.unknown_ends(versions):
            yield field, "", f"`// burn {versions}` names {end!r}, no indexed release"
        uses, quoting = snippet_uses(code), _quoting(code)
        for release in index.covered(versions):
            for where, _, problem in _quote_problems(field, quoting, release, index):
                yield where, release.name, problem
            for use in uses:
                for problem in use_problems(use, release, index):
                    yield field, release.name, problem


def snippet_sections(text: str) -> list[tuple[str | None, str]]:
    """(versions, code) for each `// burn <versions>` section; (None, code) before the first."""
    sections: list[tuple[str | None, list[str]]] = []
    for line in text.splitlines():
        marker = SECTION_RE.match(line)
        if marker and _is_versions(marker["versions"]):
            sections.append((marker["versions"], []))
        elif sections:
            sections[-1][1].append(line)
        elif line.strip():
            sections.append((None, [line]))
    return [(versions, "\n".join(lines)) for versions, lines in sections]


def _is_versions(versions: str) -> bool:
    return all(end == NEWEST or RELEASE_RE.match(end) for end in version_ends(versions))


def _quoting(code: str) -> str:
    """What a snippet quotes: its string literals and its comments."""
    tree = parse_snippet(code)
    found = []
    for node in nodes(tree.root_node):
        if node.type in ("string_literal", "raw_string_literal"):
            found.append(literal_text(node) or "")
        elif node.type in ("line_comment", "block_comment"):
            found.append(node.text.decode())
    return "\n".join(found)
