"""Mirror the trainer's scenario registry in the database, and link scenarios to entries."""

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
    for scenario in Scenario.objects.active():
        # Proof and proof of absence alike: state.py tells them apart by `disproves`.
        messages = scenario.proves + scenario.disproves
        entries = ErrorEntry.objects.for_repo(TRAINER_REPO).filter(error_message__in=messages)
        scenario.entries.add(*entries)
        result.links += len(entries)
    # Retiring a scenario or changing what it disproves changes its entries' states too.
    linked = ErrorEntry.objects.filter(scenarios__isnull=False).values_list("pk", flat=True)
    store_states(linked.distinct())
    return result


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
