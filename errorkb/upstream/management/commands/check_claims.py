"""python manage.py check_claims [DATASET ...] [--index tests/upstream/burn/index.json]"""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from errorkb.kb.dataset.files import read_dataset_file
from errorkb.kb.dataset.stream import DatasetError
from errorkb.upstream.claims.check import check_claims
from errorkb.upstream.claims.release_facts import read_index

DEMO = Path(settings.BASE_DIR) / "errorkb" / "kb" / "fixtures" / "demo.json"
INDEX = Path(settings.BASE_DIR) / "tests" / "upstream" / "burn" / "index.json"


class Command(BaseCommand):
    help = (
        "Check every appliesTo row, firesAt row and snippet of the dataset files at each "
        "release it names, against the index of burn's releases: one line per failed claim, "
        "exit 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("datasets", nargs="*", default=[str(DEMO)], help="dataset files")
        parser.add_argument("--index", default=str(INDEX), help="the index of burn's releases")

    def handle(self, *args, **options):
        try:
            index = read_index(options["index"])
        except (OSError, ValueError, KeyError) as error:
            raise CommandError(f"{options['index']}: not an index of releases ({error})") from error
        records = []
        for path in options["datasets"]:
            records += _records(path)
        failed = check_claims(records, index)
        for claim in failed:
            self.stdout.write(str(claim))
        if failed:
            raise CommandError(f"{len(failed)} claims fail", returncode=1)
        self.stdout.write(
            f"{len(records)} records hold at every release they name "
            f"({len(index.order)} releases indexed)"
        )


def _records(path: str) -> list[dict]:
    """The records of a dataset file, refused as import_errors refuses a file."""
    try:
        read_dataset_file(path)
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (DatasetError, OSError, ValueError) as error:
        raise CommandError(f"{path}: {error}") from error
    return data["records"] if isinstance(data, dict) else data
