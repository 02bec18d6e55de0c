"""Whether a use of a burn name holds at a release: it exists, is pub, takes the arguments.

A type must be declared and public; `Owner::name(…)` must be the owner's variant or
function (through type aliases), public, with that many parameters; a method or a bare
call is matched by name against any owner's public functions. Names burn never declares
are not checked.
"""

from .code_uses import Use
from .release_facts import BurnIndex, Release
from .rust_items import Item
from .value_origins import BURN, FOREIGN, UNKNOWN


def use_problems(use: Use, release: Release, index: BurnIndex) -> list[str]:
    """What is wrong with a use at a release; nothing for names burn never declares."""
    if use.kind == "type":
        return _type_problems(use, release, index)
    if use.kind == "path":
        return _path_problems(use, release, index)
    return _function_problems(use, release, index)


def _type_problems(use: Use, release: Release, index: BurnIndex) -> list[str]:
    if not index.is_burn_type(use.name):
        if use.burn_path and use.name not in index.named:
            return [f"{use.name} is no item of burn's at any indexed release"]
        return []
    here = release.types(use.name)
    if not here:
        return [f"no type {use.name}"]
    if not any(release.is_public(item) for item in here):
        return [f"{use.name} is not pub"]
    return []


def _path_problems(use: Use, release: Release, index: BurnIndex) -> list[str]:
    owner = use.owner or ""
    if index.is_burn_type(owner) and not release.types(owner):
        return []  # the owner's own use says it is missing
    variants = [i for i in index.named.get(use.name, ()) if i[0] == "variant" and i[1] == owner]
    if variants:
        here = [i for i in release.by_name.get(use.name, ()) if i[0] == "variant" and i[1] == owner]
        if not here:
            return [f"no variant {owner}::{use.name}"]
        if use.arity is not None and not any(i[4] in (None, use.arity) for i in here):
            return [f"{owner}::{use.name} holds {_arities(here)}, given {use.arity}"]
        return []
    owners = index.owners(owner)
    known = [
        item
        for item in index.named.get(use.name, ())
        if item[0] in ("fn", "method") and item[1] in owners
    ]
    if not known:
        return []  # derived (Config's new), a trait's default, or no function of burn's
    here = [
        item
        for item in release.by_name.get(use.name, ())
        if item[0] in ("fn", "method") and item[1] in owners
    ]
    return _called_problems(f"{owner}::{use.name}", use.arity, here, release, through_path=True)


def _function_problems(use: Use, release: Release, index: BurnIndex) -> list[str]:
    """A method or a bare call: any owner's function of that name will do.

    On a burn value, a name burn declares at any release must be there, public, taking
    the arguments given. On a value of unknown origin (and for a bare call), only when
    burn declares that name public with that many parameters at some release: `.len()`
    on an unknown value is not taken for burn's. On a std value, nothing is checked.
    """
    kinds = ("method",) if use.kind == "method" else ("fn", "method")
    known = [item for item in index.named.get(use.name, ()) if item[0] in kinds]
    receiver = use.receiver
    if receiver.startswith("type:"):
        receiver = BURN if index.is_burn_type(receiver.removeprefix("type:")) else UNKNOWN
    if use.kind == "call":
        receiver = UNKNOWN
    if receiver == FOREIGN or not known:
        return []
    if receiver == UNKNOWN and not index.is_burn_signature(use.name, use.arity, kinds):
        return []
    here = [item for item in release.by_name.get(use.name, ()) if item[0] in kinds]
    written = f".{use.name}" if use.kind == "method" else use.name
    return _called_problems(written, use.arity, here, release, through_path=False)


def _called_problems(
    written: str, arity: int | None, here: list[Item], release: Release, *, through_path: bool
) -> list[str]:
    if not here:
        return [f"no {written}"]
    public = [item for item in here if release.is_public(item)]
    if not public:
        return [f"{written} is not pub"]
    if arity is None:
        return []
    # Called through its path, a method may be given its receiver too: Checkpointer::save(&c, …).
    fits = [
        item
        for item in public
        if item[4] == arity or (through_path and item[0] == "method" and item[4] + 1 == arity)
    ]
    return [] if fits else [f"{written} takes {_arities(public)}, given {arity}"]


def _arities(items: list[Item]) -> str:
    counts = sorted({item[4] for item in items if item[4] is not None})
    return " or ".join(str(count) for count in counts) or "no arguments"
