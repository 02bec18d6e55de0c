"""Which error site of a commit is which known entry: same message, nearest pin first.

Plain Python. Entries and sites meet by their message. When a message is raised at
several sites, or several entries share it, each entry takes the site at its own file
and line if there is one, else the nearest site in its own file, else (the file moved)
the first site left; each site goes to one entry at most. Sites left over are new.
"""

from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from ..sites.error_sites import Site


@dataclass(frozen=True)
class Pin:
    """What matching needs of an entry: its id, message and where it is pinned."""

    id: str
    message: str
    file_path: str | None
    line: int | None


SiteAt = tuple[str, Site]  # (path, site)


class PinnedEntry(NamedTuple):
    """What a scan reads of each entry. Thousands of entries are read as these rows, not
    as models with all their text; only those a scan changes are loaded whole."""

    id: str
    error_message: str
    file_path: str | None
    line_number: int | None
    analyzed_sha: str | None
    raised_in: list | None
    removed_upstream: dict | None

    @property
    def pin(self) -> Pin:
        return Pin(self.id, self.error_message, self.file_path, self.line_number)


def known_entries(entries) -> list[PinnedEntry]:
    """The entries of a QuerySet as PinnedEntry rows, by id."""
    return [PinnedEntry(*row) for row in entries.order_by("id").values_list(*PinnedEntry._fields)]


def pair(pins: list[Pin], sites: list[SiteAt]) -> tuple[dict[str, SiteAt], list[SiteAt]]:
    """(entry id -> its site, the sites no entry took), both in the sites' order."""
    by_message: dict[str, list[SiteAt]] = defaultdict(list)
    for located in sites:
        by_message[located[1].message].append(located)
    taken: dict[str, SiteAt] = {}
    used: set[int] = set()
    pins_by_message: dict[str, list[Pin]] = defaultdict(list)
    for pin in pins:
        pins_by_message[pin.message].append(pin)
    for message, candidates in pins_by_message.items():
        offered = by_message.get(message, [])
        for rule in (_exact, _same_file, _any):
            for pin in candidates:
                if pin.id in taken:
                    continue
                free = [s for s in offered if id(s) not in used]
                chosen = rule(pin, free)
                if chosen is not None:
                    taken[pin.id] = chosen
                    used.add(id(chosen))
    left = [located for located in sites if id(located) not in used]
    return taken, left


def _exact(pin: Pin, free: list[SiteAt]) -> SiteAt | None:
    return next((s for s in free if s[0] == pin.file_path and s[1].line == pin.line), None)


def _same_file(pin: Pin, free: list[SiteAt]) -> SiteAt | None:
    same = [s for s in free if s[0] == pin.file_path]
    return min(same, key=lambda s: abs(s[1].line - (pin.line or 0)), default=None)


def _any(pin: Pin, free: list[SiteAt]) -> SiteAt | None:
    return free[0] if free else None
