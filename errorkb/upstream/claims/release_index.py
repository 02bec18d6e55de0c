"""A compact index of a repository's releases: per file, its string literals and its items.

The claim checker (errorkb.upstream.claims.check) reads it to know, release by release, which
texts burn's source holds and which types, variants and functions it declares, without a
git checkout: the index of burn is kept as test data (tests/upstream/burn/index.json),
made by `manage.py index_releases`.

The index is plain JSON, a fact written once with the releases that hold it:

    releases  the releases in order, oldest first ("0.10.0" … "0.22.0-pre.2", "main")
    commits   release -> the commit it was read at
    prefixes  the path prefixes of the files read
    files     path -> {"in": releases, "literals": {text: releases}, "items": {item: releases}}
              and, for LINE_FILES, "lines": [{"in": releases, "text": [line, ...]}, ...]

Releases are written as runs of indexes into `releases` ("0-17,24"). Literals and items
are those errorkb.upstream.claims.rust_items reads; an item is written "kind owner name
visibility arity", "-" for none. Test code and test directories are left out.
"""

import json
from typing import Any

from errorkb.kb.record.release_ranges import release_key

from ..git import Checkout
from ..scan.releases import is_release
from ..sites.error_sites import is_scanned
from .rust_items import Item, file_facts

# The files whose texts and API the entries cite, and their snippets and set-ups call:
# burn-train; burn-core's record, module and store; burn-pack; burn-store; the optimizer
# and scheduler records (burn-core's until 0.18, burn-optim's since); burn-import's PyTorch and
# safetensors recorders (0.12 – 0.20) and the model code it generates (graph.rs). Before 0.13
# the crates stood at the top of the repository, not under crates/.
PREFIXES = (
    "crates/burn-train/src/",
    "crates/burn-core/src/record/",
    "crates/burn-core/src/module/",
    "crates/burn-core/src/store/",
    "crates/burn-core/src/optim/",
    "crates/burn-core/src/lr_scheduler/",
    "crates/burn-pack/src/",
    "crates/burn-dispatch/src/",
    "crates/burn-store/src/",
    "crates/burn-optim/src/optim/",
    "crates/burn-optim/src/lr_scheduler/",
    "burn-train/src/",
    "burn-core/src/record/",
    "burn-core/src/module/",
    "burn-core/src/optim/",
    "burn-core/src/lr_scheduler/",
    "crates/burn-import/src/pytorch/",
    "crates/burn-import/src/safetensors/",
    "crates/burn-import/src/common/",
    "crates/burn-import/src/burn/graph.rs",
    "burn-import/src/pytorch/",
    "burn-import/src/burn/graph.rs",
)
# The files whose lines firesAt rows cite, kept line by line (under "lines") so that a row's
# lines can be checked to hold the same code at every release it names: the TUI's estimate.
LINE_FILES = (
    "crates/burn-train/src/renderer/tui/progress.rs",
    "burn-train/src/renderer/tui/progress.rs",
)
FIRST_RELEASE = "v0.10.0"
LAST_RELEASE = "v0.22.0-pre.2"
# The main commit the demo entries pin (tests/upstream/burn/README.md): "main" in the index.
MAIN_COMMIT = "2c06be351006851d42fdb6df16b976f4a82d9747"
MAIN = "main"


def release_tags(
    checkout: Checkout, first: str = FIRST_RELEASE, last: str = LAST_RELEASE
) -> list[tuple[str, str]]:
    """(release, commit) of every release tag from `first` to `last`, oldest first.

    A release is its tag without the "v"; tags such as v0.19.0-book mark the book, not a
    release (scan.releases.is_release).
    """
    low, high = release_key(first.removeprefix("v")), release_key(last.removeprefix("v"))
    found = [
        (tag.removeprefix("v"), sha)
        for tag, sha in checkout.tags("v*")
        if is_release(tag.removeprefix("v")) and low <= release_key(tag.removeprefix("v")) <= high
    ]
    return sorted(found, key=lambda pair: release_key(pair[0]))


def index_releases(
    checkout: Checkout,
    releases: list[tuple[str, str]],
    prefixes: tuple[str, ...] = PREFIXES,
) -> dict[str, Any]:
    """The index of the files under `prefixes` at each (release, commit), in that order."""
    held: dict[str, dict[str, list[int]]] = {}  # path -> blob -> indexes of releases
    for place, (_, commit) in enumerate(releases):
        for path, blob in checkout.tree(commit).items():
            if path.startswith(prefixes) and path.endswith(".rs") and is_scanned(path):
                held.setdefault(path, {}).setdefault(blob, []).append(place)
    blobs = {blob for versions in held.values() for blob in versions}
    contents = checkout.read(sorted(blobs))
    # Each content is parsed once, whichever releases and paths hold it.
    facts = {blob: file_facts(contents[blob]) for blob in sorted(blobs)}
    files = {path: _file_entry(held[path], facts) for path in sorted(held)}
    for path in LINE_FILES:
        if path in files:
            files[path]["lines"] = _lines_entry(held[path], contents)
    return {
        "releases": [release for release, _ in releases],
        "commits": dict(releases),
        "prefixes": list(prefixes),
        "files": files,
    }


def _lines_entry(versions: dict[str, list[int]], contents: dict[str, bytes]) -> list[dict]:
    """Each content of a path as its lines, with the releases that hold it, oldest first."""
    return [
        {"in": spans(places), "text": contents[blob].decode().splitlines()}
        for blob, places in sorted(versions.items(), key=lambda pair: min(pair[1]))
    ]


def _file_entry(versions: dict[str, list[int]], facts: dict[str, dict]) -> dict[str, Any]:
    """A path's releases, and each literal and item with the releases that hold it."""
    literals: dict[str, list[int]] = {}
    items: dict[str, list[int]] = {}
    for blob, places in versions.items():
        for text in facts[blob]["literals"]:
            literals.setdefault(text, []).extend(places)
        for item in facts[blob]["items"]:
            items.setdefault(item_key(item), []).extend(places)
    return {
        "in": spans(sum(versions.values(), [])),
        "literals": {text: spans(places) for text, places in sorted(literals.items())},
        "items": {key: spans(places) for key, places in sorted(items.items())},
    }


def spans(places: list[int]) -> str:
    """Indexes of releases as runs: [0, 1, 2, 5] -> "0-2,5"."""
    runs: list[list[int]] = []
    for place in sorted(set(places)):
        if runs and place == runs[-1][1] + 1:
            runs[-1][1] = place
        else:
            runs.append([place, place])
    return ",".join(f"{low}-{high}" if low != high else f"{low}" for low, high in runs)


def places_of(runs: str) -> list[int]:
    """The indexes `spans` wrote: "0-2,5" -> [0, 1, 2, 5]."""
    found = []
    for run in filter(None, runs.split(",")):
        low, _, high = run.partition("-")
        found += range(int(low), int(high or low) + 1)
    return found


def item_key(item: Item) -> str:
    """An item as the index writes it: "kind owner name visibility arity", "-" for none."""
    return " ".join("-" if part in (None, "") else str(part) for part in item)


def item_of(key: str) -> Item:
    """The item `item_key` wrote."""
    kind, owner, name, visibility, arity = key.split(" ")
    return [
        kind,
        None if owner == "-" else owner,
        name,
        "" if visibility == "-" else visibility,
        None if arity == "-" else int(arity),
    ]


def write_index(index: dict[str, Any]) -> str:
    """The index as the file keeps it: one fact a line, so a new release diffs small."""
    return json.dumps(index, ensure_ascii=False, indent=1) + "\n"
