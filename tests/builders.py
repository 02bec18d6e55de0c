"""Small builders for test data: valid records and entries made in code."""

import json
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.dataset.import_export import import_dataset
from errorkb.kb.ids import derive_entry_id
from errorkb.kb.models import ErrorEntry

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DEMO_DATASET = Path(__file__).resolve().parent.parent / "errorkb/kb/fixtures/demo.json"
BURN_SITE_INDEX = (
    Path(__file__).resolve().parent.parent / "errorkb/upstream/fixtures/burn-releases.json.gz"
)


def make_record(message: str = "Something went wrong.", **overrides) -> dict:
    """A complete, valid schemaVersion 2 record; override any key."""
    repo = overrides.get("repo", "acme/rocket")
    file_path = overrides.get("filePath", "src/engine.rs")
    slug = message.lower().rstrip(".").replace(" ", "-").replace(".", "")
    record = {
        "id": derive_entry_id(repo, message, file_path),
        "repo": repo,
        "slug": slug,
        "errorCode": None,
        "errorMessage": message,
        "messagePattern": message.replace(".", r"\."),
        "errorType": "panic",
        "errorClass": None,
        "httpStatus": None,
        "severity": "error",
        "filePath": file_path,
        "lineNumber": 12,
        "sourceCode": "\n".join(f"// line {n}" for n in range(10, 15)),
        "sourceCodeStart": 10,
        "sourceCodeEnd": 14,
        "githubUrl": f"https://github.com/{repo}/blob/{'a' * 40}/{file_path}#L10-L14",
        "documentation": "The engine gave up.",
        "triggerScenarios": "When fuel runs out.",
        "commonSituations": "Long flights.",
        "solutions": ["Refuel.", "Fly shorter."],
        "exampleFix": "let fuel = refuel();",
        "handlingStrategy": "validation",
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "preventionTips": ["Check the gauge."],
        "tags": ["rust", "panic"],
        "backgroundTag": "fuel",
        "analyzedSha": "a" * 40,
        "analyzedAt": "2026-09-05T13:19:14.260Z",
        "contentChangedAt": "2026-09-05T13:19:14.260Z",
        "schemaVersion": 2,
        "summary": "The engine ran out of fuel: refuel, or fly shorter.",
    }
    record.update(overrides)
    return record


def import_records(*records: dict, version: str = "2026-10-01T00:00:00.000Z") -> list[ErrorEntry]:
    """Import records straight through the domain function, as import_errors does."""
    import_dataset(parse_dataset({"datasetVersion": version, "records": list(records)}))
    return [ErrorEntry.objects.get(id=r["id"]) for r in records]


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def load_demo() -> None:
    call_command("import_errors", str(DEMO_DATASET), stdout=StringIO())


BURN_MAIN = "2c06be351006851d42fdb6df16b976f4a82d9747"


def applies_to_row(**overrides) -> dict:
    """One valid appliesTo row, in the order records are written; override any key."""
    row = {
        "versions": "0.20.0 – main",
        "setup": "supervised training (AsyncCheckpointer)",
        "outcome": "not raised",
        "seen": "Error when saving the state: {err}",
        "filePath": "crates/burn-train/src/checkpoint/async_checkpoint.rs",
        "lineNumber": 46,
        "commit": BURN_MAIN,
    }
    row.update(overrides)
    return row


def raised_row(**overrides) -> dict:
    """An appliesTo row saying the message is printed, as by a hand-built checkpointer."""
    row = applies_to_row(
        setup="hand-built LearningCheckpointer, no interrupter",
        outcome="raised",
        seen="Can save model checkpoint.: {err}",
        filePath="crates/burn-train/src/learner/base.rs",
        lineNumber=178,
    )
    row.update(overrides)
    return row


def load_site_index():
    """The scan of burn's release tags that ships with the demo (bin/run loads it too)."""
    call_command("load_site_index", str(BURN_SITE_INDEX), stdout=StringIO())
