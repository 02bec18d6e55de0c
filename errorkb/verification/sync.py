"""Mirror the trainer's scenario registry in the database, and link scenarios to entries.

Nobody has to run this by hand: the verification app mirrors the registry after every
migrate (apps.py), the worker on start (errorkb/celery.py), and every fan-out links the
entries imported since (link_new_entries) before it plans their runs.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from trainer import scenarios as trainer_scenarios

from .models import Scenario
from .stored import store_states

# The repository whose messages the bundled trainer reproduces.
TRAINER_REPO = "tracel-ai/burn"


@dataclass
class SyncResult:
    created: int = 0
    updated: int = 0
    retired: int = 0
    links: int = 0

    def __str__(self) -> str:
        return (
            f"{self.created} created, {self.updated} updated, {self.retired} retired, "
            f"{self.links} entry links"
        )


@transaction.atomic
def sync_scenarios(registry: list[dict] | None = None) -> SyncResult:
    """Upsert every scenario of the registry, retire the rest, link each to its entries."""
    registry = trainer_scenarios.registry() if registry is None else registry
    result = SyncResult()
    now = timezone.now()
    for item in registry:
        _, created = Scenario.objects.update_or_create(
            name=item["name"], defaults=_fields(item) | {"active": True, "synced_at": now}
        )
        if created:
            result.created += 1
        else:
            result.updated += 1
    names = [item["name"] for item in registry]
    result.retired = Scenario.objects.active().exclude(name__in=names).update(active=False)
    result.links = _link(ErrorEntry.objects.all())
    # Retiring a scenario or changing what it disproves changes its entries' states too.
    linked = ErrorEntry.objects.filter(scenarios__isnull=False).values_list("pk", flat=True)
    store_states(linked.distinct())
    return result


def link_new_entries() -> int:
    """Link the entries no scenario is linked to yet (imported since the last sync).

    Entries with links keep them as they are: a curator may have chosen them.
    """
    return _link(ErrorEntry.objects.filter(scenarios=None))


def _link(entries) -> int:
    """Link every active scenario to the entries whose message it proves or disproves."""
    scenarios = list(Scenario.objects.active().only("name", "proves", "disproves"))
    # Proof and proof of absence alike: state.py tells them apart by `disproves`.
    by_message: dict[str, list[str]] = {}
    for scenario in scenarios:
        for message in scenario.proves + scenario.disproves:
            by_message.setdefault(message, []).append(scenario.name)
    if not by_message:
        return 0
    matching = entries.for_repo(TRAINER_REPO).filter(error_message__in=by_message)
    Link = Scenario.entries.through
    links = [
        Link(scenario_id=name, errorentry_id=entry_id)
        for entry_id, message in matching.values_list("id", "error_message")
        for name in by_message[message]
    ]
    Link.objects.bulk_create(links, ignore_conflicts=True, batch_size=500)
    # A bulk insert sends no m2m_changed: the newly linked entries' states are stored here.
    store_states({link.errorentry_id for link in links})
    return len(links)


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
    }


def _first(items: list[str]) -> str:
    return items[0] if items else ""
