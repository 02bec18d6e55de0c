"""The entry detail's JSON body as plain dicts: what its serializers declare, built directly.

The serializers in entries.py and runs.py declare these shapes for the OpenAPI document;
walking their fields for every response costs more than the rest of the record. So
their to_representation hands over to these functions, which write the same keys in
the same order with the same values (DRF's own DateTimeField formats the times).
"""

from typing import Any

from rest_framework import serializers

from errorkb.kb.addresses import address
from errorkb.kb.models import ErrorEntry
from errorkb.kb.records import to_record
from errorkb.verification.state import ScenarioResult, Verification, verification_of
from errorkb.verification.stored import stored_state

_TIME = serializers.DateTimeField()


def entry_body(entry: ErrorEntry) -> dict[str, Any]:
    """GET /api/errors/<id>: the record, the dataset version, related entries, verification."""
    verification = verification_of(entry)
    # Its per-scenario details are derived; its state is the stored one lists filter by.
    verification.state = stored_state(entry)
    return {
        "record": to_record(entry),
        "datasetVersion": str(entry.dataset_version),
        "relatedEntries": [related_body(related) for related in entry.related_entries()],
        "verification": verification_body(verification),
        "runsUrl": address("api-error-runs", pk=entry.id),
    }


def related_body(entry: ErrorEntry) -> dict[str, str]:
    return {
        "id": str(entry.id),
        "errorMessage": str(entry.error_message),
        "url": address("api-error-detail", pk=entry.id),
    }


def verification_body(verification: Verification) -> dict[str, Any]:
    seen = verification.seen_instead
    last = verification.last_verified_at
    observed = verification.observed_message
    return {
        "state": str(verification.state),
        "lastVerifiedAt": None if last is None else _TIME.to_representation(last),
        "devices": [str(device) for device in verification.devices],
        "observedMessage": None if observed is None else str(observed),
        "fixVerified": bool(verification.fix_verified),
        "scenarios": [scenario_body(result) for result in verification.scenarios],
        "seenInstead": None if seen is None else {"text": str(seen.text), "setup": str(seen.setup)},
    }


def scenario_body(result: ScenarioResult) -> dict[str, Any]:
    failure = result.failure
    finished = None if failure is None else failure.finished_at
    return {
        "scenario": str(result.scenario),
        "device": str(result.device),
        "state": str(result.state),
        "status": failure.status if failure else None,
        # Judged against the entry's pattern as it is now, not the verdict stored with the run.
        "patternMatched": result.pattern_matched,
        "message": result.message,
        "finishedAt": None if finished is None else _TIME.to_representation(finished),
        "fixVerified": bool(result.fix_verified),
        "provesAbsence": bool(result.absence),
        "setup": str(result.setup),
    }
