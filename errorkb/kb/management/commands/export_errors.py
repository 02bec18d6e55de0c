import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset
from errorkb.kb.models import ErrorEntry

ALL = "all"


class Command(BaseCommand):
    help = (
        "Export error entries as {datasetVersion, records} JSON to PATH (- for stdout): "
        "every entry, drafts included, unless --status picks one status."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", metavar="PATH")
        parser.add_argument(
            "--status",
            choices=[ALL, *ErrorEntry.Status.values],
            default=ALL,
            help="export only entries of this status (default: all, drafts included)",
        )

    def handle(self, *args, path, status, **options):
        entries = ErrorEntry.objects.all()
        if status != ALL:
            entries = entries.filter(status=status)
        text = dumps_dataset(export_dataset(entries))
        if path == "-":
            self.stdout.write(text, ending="")
            return
        try:
            write_atomically(Path(path), text)
        except OSError as exc:
            raise CommandError(f"{path}: cannot write: {exc.strerror}") from exc
        self.stderr.write(f"{path}: exported")


def write_atomically(path: Path, text: str) -> None:
    # A crash mid-export must not leave a truncated dump where a good one was.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
