"""The index of releases as the claim checker reads it: each release's literals and items.

The index is the JSON errorkb.upstream.claims.release_index writes. What counts as burn's comes
from it: a quoted text is burn's when it is a fixed piece of one of burn's literals at any
indexed release, a name when burn declares it (public, for a type) at any indexed release.
"""

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from errorkb.kb.record.release_ranges import version_ends, version_in

from ..sites.messages import segments
from .release_index import item_of, places_of, spans
from .rust_items import Item

TYPE_KINDS = ("struct", "enum", "trait", "type")
# A quoted text is taken for burn's from this length, with a letter and two words: shorter
# pieces ("': ") and single words ("Unknown", "/checkpoint", "failed:") match any note.
PIECE_LENGTH = 5
TWO_WORDS_RE = re.compile(r"\S\s+\S")
# `Variant(` or `Variant {` in a note: how Debug prints an enum's variant.
VARIANT_RE = re.compile(r"(?<![\w:])([A-Z]\w*)(?:\(| \{)")


class Release:
    """The index's facts at one release."""

    def __init__(self, name: str):
        self.name = name
        self.literals: dict[str, set[str]] = {}  # path -> its literals
        self.items: list[Item] = []
        self.lines: dict[str, list[str]] = {}  # path -> its lines, for the index's LINE_FILES

    @cached_property
    def all_literals(self) -> list[str]:
        return sorted({text for texts in self.literals.values() for text in texts})

    @cached_property
    def by_name(self) -> dict[str, list[Item]]:
        found = defaultdict(list)
        for item in self.items:
            found[item[2]].append(item)
        return found

    def holds_text(self, text: str) -> bool:
        return any(text in literal for literal in self.all_literals)

    def types(self, name: str) -> list[Item]:
        return [item for item in self.by_name.get(name, ()) if item[0] in TYPE_KINDS]

    def is_public(self, item: Item) -> bool:
        """Whether an item is `pub`; a function of `impl Trait for X` is when the trait is."""
        visibility = item[3]
        if not visibility.startswith("impl:"):
            return visibility == "pub"
        traits = [t for t in self.types(visibility.removeprefix("impl:")) if t[0] == "trait"]
        # A trait burn does not declare (Drop, Display, From) is std's or another crate's.
        return not traits or any(t[3] == "pub" for t in traits)

    def owners(self, name: str) -> set[str]:
        """The type itself and, for a type alias, the types it names, alias after alias."""
        found, new = set(), {name}
        while new:
            found |= new
            named = {i[1] for n in new for i in self.types(n) if i[0] == "type" and i[1]}
            new = named - found
        return found


class BurnIndex:
    """An index of releases (release_index's JSON), read for the claim checks."""

    def __init__(self, index: dict[str, Any]):
        self.order = list(index["releases"])
        self.releases = {name: Release(name) for name in self.order}
        self.commits: dict[str, str] = dict(index.get("commits", {}))  # release -> commit
        for path, entry in index["files"].items():
            for place in places_of(entry["in"]):
                self.releases[self.order[place]].literals[path] = set()
            for text, runs in entry["literals"].items():
                for place in places_of(runs):
                    self.releases[self.order[place]].literals[path].add(text)
            for key, runs in entry["items"].items():
                item = item_of(key)
                for place in places_of(runs):
                    self.releases[self.order[place]].items.append(item)
            for content in entry.get("lines", ()):
                for place in places_of(content["in"]):
                    self.releases[self.order[place]].lines[path] = content["text"]

    def covered(self, versions: str) -> list[Release]:
        """The indexed releases a `versions` value covers, oldest first."""
        return [self.releases[name] for name in self.order if version_in(name, versions)]

    def release_at(self, commit: str) -> Release | None:
        """The indexed release read at `commit` (a full id or its start), if any."""
        for name in self.order:
            if commit and self.commits.get(name, "").startswith(commit):
                return self.releases[name]
        return None

    def unknown_ends(self, versions: str) -> list[str]:
        """The ends of a `versions` value that are no indexed release."""
        return [end for end in dict.fromkeys(version_ends(versions)) if end not in self.releases]

    def span(self, names: Iterable[str]) -> str:
        """Releases written as runs of consecutive indexed releases: "0.20.0 – 0.21.0, main"."""
        runs = spans([self.order.index(name) for name in names]).split(",")
        return ", ".join(
            " – ".join(self.order[int(place)] for place in run.split("-")) for run in runs
        )

    @cached_property
    def pieces(self) -> list[str]:
        """Every fixed piece of every literal at any release, longest first."""
        found = set()
        for release in self.releases.values():
            for literal in release.all_literals:
                found.update(fixed_pieces(literal))
        return sorted(found, key=lambda piece: (-len(piece), piece))

    @cached_property
    def named(self) -> dict[str, list[Item]]:
        """Every item of every release by its name (each distinct item once)."""
        found: dict[str, dict[str, Item]] = defaultdict(dict)
        for release in self.releases.values():
            for item in release.items:
                found[item[2]][repr(item)] = item
        return {name: list(items.values()) for name, items in found.items()}

    def is_burn_type(self, name: str) -> bool:
        """Whether burn declares a public type of that name at some release.

        A private one (burn's own `Result` alias) is no name a user can mean.
        """
        return any(
            item[0] in TYPE_KINDS and self.releases[release].is_public(item)
            for release, item in self.declarations.get(name, ())
        )

    def is_burn_signature(self, name: str, arity: int | None, kinds: tuple[str, ...]) -> bool:
        """Whether burn declares a public function of that name and arity at some release."""
        return any(
            item[0] in kinds
            and (arity is None or item[4] == arity)
            and self.releases[release].is_public(item)
            for release, item in self.declarations.get(name, ())
        )

    @cached_property
    def declarations(self) -> dict[str, list[tuple[str, Item]]]:
        """name -> (release, item) for every distinct item and release that declares it."""
        found: dict[str, list[tuple[str, Item]]] = defaultdict(list)
        for name in self.order:
            for item in self.releases[name].items:
                found[item[2]].append((name, item))
        return found

    def owners(self, name: str) -> set[str]:
        """A type and the types it is an alias of, at any release."""
        return set().union(*(release.owners(name) for release in self.releases.values()))

    def quoted(self, text: str) -> list[str]:
        """The pieces of burn's literals `text` quotes, none inside another that it quotes."""
        found: list[str] = []
        for piece in self.pieces:
            if piece in text and not any(piece in longer for longer in found):
                found.append(piece)
        return found

    def quoted_variants(self, text: str) -> list[str]:
        """The names of burn's enum variants `text` shows as Debug does: `Name(`, `Name {`."""
        names = dict.fromkeys(VARIANT_RE.findall(text))
        return [n for n in names if any(i[0] == "variant" for i in self.named.get(n, ()))]


def read_index(path: str | Path) -> BurnIndex:
    """The index file release_index wrote."""
    return BurnIndex(json.loads(Path(path).read_text(encoding="utf-8")))


def fixed_pieces(literal: str) -> list[str]:
    """The texts of a literal between its format placeholders that mean something."""
    pieces, current = [], ""
    for _, matched in segments(literal, "braces"):
        if matched is None:
            pieces.append(current)
            current = ""
        else:
            current += matched
    pieces.append(current)
    return [
        piece.strip()
        for piece in pieces
        if len(piece.strip()) >= PIECE_LENGTH
        and any(c.isalpha() for c in piece)
        and TWO_WORDS_RE.search(piece)
    ]
