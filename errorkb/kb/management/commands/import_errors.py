import gc
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from errorkb.kb.dataset.files import Dataset, DatasetError, read_dataset_file
from errorkb.kb.dataset.import_export import import_dataset
from errorkb.kb.editing import EditConflict
from errorkb.kb.record.validation import InvalidRecord


class Command(BaseCommand):
    help = (
        "Import error entries from dataset files (an API response, a list of records, or an "
        "export dump). Every file is validated before anything is written; each file is "
        "imported in one transaction and recorded as one revision. Files are read as streams "
        "and their checked records spooled to a temporary file, so a file of any size takes "
        "little memory."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths",
            nargs="+",
            metavar="PATH",
            help="a dataset file; regular files only, as each is read twice (no pipe or device)",
        )

    def handle(self, *args, paths, **options):
        # A full collection walks every object the collector tracks, and an import's chunks
        # of entries bring one about every few thousand records. Frozen, what outlives the
        # writes is walked no more: what is loaded by now (Django, the models, the record
        # schema), then the records' keys once read.
        gc.freeze()
        try:
            datasets = [(path, self.read(path)) for path in paths]
            gc.freeze()
            # Each file is its own transaction, nested in one for the whole command, so a
            # bad file late in the list still leaves the database exactly as it was.
            with transaction.atomic():
                results = [(path, self.import_file(path, dataset)) for path, dataset in datasets]
        finally:
            gc.unfreeze()
        for path, (count, result) in results:
            self.stdout.write(f"{shown(path)}: {count} records: {result}")

    def import_file(self, path: str, dataset: Dataset):
        try:
            return len(dataset.records), import_dataset(dataset, source=shown(Path(path).name))
        except (InvalidRecord, DatasetError) as exc:
            raise CommandError(f"{shown(path)}: {exc}; nothing was imported") from exc
        except EditConflict as exc:
            raise CommandError(
                f"{shown(path)}: {exc} while importing; nothing was imported"
            ) from exc

    def read(self, path: str) -> Dataset:
        try:
            return read_dataset_file(path)
        except DatasetError as exc:
            raise CommandError(f"{shown(path)}: {exc}") from exc


def shown(path: str) -> str:
    """The path as text any output takes: undecodable bytes in a name arrive as surrogates."""
    return path.encode("utf-8", "backslashreplace").decode()
