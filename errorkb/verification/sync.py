"""Mirror the trainer's scenario registry in the database, and link scenarios to entries.

`manage.py sync_scenarios` runs it after `migrate` (bin/setup, every deploy), the worker
on start (errorkb/celery.py), and every fan-out links the entries imported since
(link_new_entries) before it plans their runs.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from errorkb.kb.changes import catalog_changed, entries_changed
from errorkb.kb.models import ErrorEntry
from trainer import scenarios as trainer_scenarios

from .fingerprints import digest
from .models import Scenario
from .state.stored import store_states

# The repository whose messages the bundled trainer reproduces.
TRAINER_REPO = "tracel-ai/burn"


@dataclass
class SyncResult:
    created: int = 0
    updated: int = 0
    retired: int = 0
    links: int = 0  # entry links made this time

    def __str__(self) -> str:
        return (
            f"{self.created} created, {self.updated} updated, {self.retired} retired, "
            f"{self.links} new entry links"
        )


@transaction.atomic
def sync_scenarios(registry: list[dict] | None = None) -> SyncResult:
    """Upsert every scenario of the registry, retire the rest, link each to its entries.

    Only the entries whose state it may change have their state stored: those linked
    to a scenario created, retired or changed in what it proves or disproves, and those
    newly linked. With the registry unchanged it writes no entry's state.
    """
    registry = trainer_scenarios.registry() if registry is None else registry
    result = SyncResult()
    before = {s.name: _claims(s.active, s.proves, s.disproves) for s in Scenario.objects.all()}
    changed: set[str] = set()
    now = timezone.now()
    for item in registry:
        fields = _fields(item) | {"active": True}
        Scenario.objects.update_or_create(name=item["name"], defaults=fields | {"synced_at": now})
        if item["name"] not in before:
            result.created += 1
        else:
            result.updated += 1
        if before.get(item["name"]) != _claims(True, fields["proves"], fields["disproves"]):
            changed.add(item["name"])
    retired = Scenario.objects.active().exclude(name__in=[item["name"] for item in registry])
    changed.update(retired.values_list("name", flat=True))
    result.retired = retired.update(active=False)
    if result.retired:
        catalog_changed()  # every entry page shows its scenarios
    linked = Scenario.entries.through.objects.filter(scenario_id__in=changed)
    restate = set(linked.values_list("errorentry_id", flat=True))
    new_links = _link(ErrorEntry.objects.all(), store=False)
    result.links = len(new_links)
    store_states(restate | new_links)
    return result


def _claims(active: bool, proves: list[str], disproves: list[str]) -> tuple:
    """What of a scenario decides its entries' states: whether it counts, what it claims."""
    return active, proves, disproves


def link_new_entries() -> int:
    """Link the entries no scenario is linked to yet (imported since the last sync).

    Entries with links keep them as they are: a curator may have chosen them.
    """
    return len(_link(ErrorEntry.objects.filter(scenarios=None)))


def _link(entries, *, store: bool = True) -> set[str]:
    """Link every active scenario to the entries whose message it proves or disproves.

    Returns the entries newly linked; `store`: store their states here.
    """
    scenarios = list(Scenario.objects.active().only("name", "proves", "disproves"))
    # Proof and proof of absence alike: state.judging tells them apart by `disproves`.
    by_message: dict[str, list[str]] = {}
    for scenario in scenarios:
        for message in scenario.proves + scenario.disproves:
            by_message.setdefault(message, []).append(scenario.name)
    if not by_message:
        return set()
    matching = entries.for_repo(TRAINER_REPO).filter(error_message__in=by_message)
    Link = Scenario.entries.through
    # Only the missing links: a bulk insert that ignores conflicts does not say which
    # rows were new, and only the new ones change an entry's state.
    existing = set(
        Link.objects.filter(errorentry__in=matching).values_list("scenario_id", "errorentry_id")
    )
    links = [
        Link(scenario_id=name, errorentry_id=entry_id)
        for entry_id, message in matching.values_list("id", "error_message")
        for name in by_message[message]
        if (name, entry_id) not in existing
    ]
    Link.objects.bulk_create(links, ignore_conflicts=True, batch_size=500)
    linked = {link.errorentry_id for link in links}
    entries_changed(linked)  # a bulk insert sends no m2m_changed
    if store:
        # A bulk insert sends no m2m_changed: the newly linked entries' states are stored here.
        store_states(linked)
    return linked


def _fields(item: dict) -> dict:
    proves, disproves = list(item.get("proves", [])), list(item.get("disproves", []))
    expected = list(item.get("expected", []))
    return {
        "message": _first(proves) or _first(disproves),
        "description": item.get("description", ""),
        "release": item.get("release", ""),
        "setup": item.get("setup", ""),
        "setup_summary": item.get("setup_summary", ""),
        "fault": item.get("fault", ""),
        "epoch": item.get("epoch"),
        "expected": expected,
        "expected_pattern": _first(expected),
        "expected_errno": item.get("expected_errno"),
        "proves": proves,
        "disproves": disproves,
        "citations": list(item.get("citations", [])),
        "fix": item.get("fix", ""),
        # Everything the registry says of it, the burn lines it cites included.
        "definition": digest(item),
    }


def _first(items: list[str]) -> str:
    return items[0] if items else ""
