"""What decides a run's outcome, kept as its inputs: a run whose inputs have not changed
since it last ran need not run again.

A run's outcome follows from its scenario's definition (the registry's item, with the
burn lines it cites), the trainer's code, torch's version and build, the device, the
variant, and the entry's message and pattern (what the texts are judged against, and
whether the scenario proves the message's absence). Each is kept as a short digest or a
plain value in the run's `inputs`; its fingerprint is the digest of them all. A worker
records the inputs it ran on; the nightly sweep compares them with those a run would
have now (fanout.py) and runs again only what changed, and the oldest 1/N of the rest.

The trainer and torch a run would have now are those of the workers, not of the process
that plans: each worker announces its own on start (errorkb/celery.py, `announce`), for
each device it serves, and the planner reads the latest announcement.
"""

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from django.utils import timezone

import trainer

from .models import WorkerEnvironment

TRAINER_ROOT = Path(trainer.__file__).resolve().parent
DIGEST_CHARS = 16  # 64 bits: enough to tell two versions of one input apart

# Why a run is planned. When several inputs changed, the first of CHANGED's names it.
NEVER_RUN = "never run"
UNRECORDED = "it last ran before runs recorded their inputs"
HARNESS_ERROR = "its last run was a harness error"
ROLLING = "rolling re-check of the oldest confirmations"
OTHER_CHANGE = "its inputs changed"
REQUESTED = "asked for"  # a bulk re-verify, `verify`: every run they name
CHANGED = {
    "trainer": "the trainer's code changed",
    "torch": "torch changed",
    "scenario": "the scenario's definition changed",
    "entry": "the entry's message or pattern changed",
    "device": "the device changed",
    "variant": "the variant changed",
}


def digest(value) -> str:
    """A short digest of a JSON-ready value, the same for equal values in any key order."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


@cache
def trainer_digest() -> str:
    """The digest of the trainer's code as this process loaded it: every .py file, by path.

    Read once per process: a worker runs the code it started with until it restarts.
    """
    files = sorted(TRAINER_ROOT.rglob("*.py"))
    return digest({str(path.relative_to(TRAINER_ROOT)): path.read_text() for path in files})


@cache
def torch_version() -> str:
    """torch's version with its build (2.13.0+cpu, 2.13.0+cu128), read without importing it."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return ""


@dataclass(frozen=True)
class Environment:
    """What a worker runs scenarios with."""

    trainer: str
    torch: str


def local_environment() -> Environment:
    return Environment(trainer_digest(), torch_version())


def announce(devices: list[str], host: str) -> None:
    """Say, for each device this worker serves, what it runs scenarios with now."""
    environment = local_environment()
    for device in devices:
        WorkerEnvironment.objects.update_or_create(
            device=device,
            defaults={**asdict(environment), "host": host, "announced_at": timezone.now()},
        )


def environments(devices: list[str]) -> dict[str, Environment]:
    """For each device, the environment its workers last announced, else this process's own
    (no worker has announced one yet: the planner's code and torch are the best guess)."""
    announced = {
        row.device: Environment(row.trainer, row.torch)
        for row in WorkerEnvironment.objects.filter(device__in=devices)
    }
    return {device: announced.get(device) or local_environment() for device in devices}


def entry_digest(message: str, pattern: str) -> str:
    return digest([message, pattern])


def run_inputs(
    *, scenario: str, entry: str, variant: str, device: str, environment: Environment
) -> dict:
    """A run's inputs: `scenario` the definition's digest (Scenario.definition), `entry`
    the entry's texts' (entry_digest)."""
    return {
        "scenario": scenario,
        "entry": entry,
        "variant": variant,
        "device": device,
        "trainer": environment.trainer,
        "torch": environment.torch,
    }


def fingerprint(inputs: dict) -> str:
    """The digest of a run's inputs: equal exactly when every input is."""
    return digest(inputs)


def why_again(previous: dict | None, current: dict) -> str | None:
    """Why a run must run again, or None when its inputs are those it last ran on."""
    if previous is None:
        return NEVER_RUN
    if not previous:
        return UNRECORDED
    for name, reason in CHANGED.items():
        if previous.get(name) != current.get(name):
            return reason
    if previous != current:  # an input added or dropped since it ran
        return OTHER_CHANGE
    return None
