import time
from collections import Counter

from django.core.management.base import BaseCommand, CommandError

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import VerificationRun
from errorkb.verification.state import verification_of
from errorkb.verification.tasks import enqueue_entry, entries_to_verify


class Command(BaseCommand):
    help = "Enqueue verification runs for entries; with --wait, follow them and print outcomes."

    def add_arguments(self, parser):
        parser.add_argument("--entry", action="append", default=[], metavar="ID")
        parser.add_argument("--all", action="store_true", help="every published entry")
        parser.add_argument("--device", action="append", choices=["cpu", "cuda"])
        parser.add_argument("--wait", action="store_true", help="wait and print the outcomes")
        parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait")

    def handle(self, *args, entry, all, device, wait, timeout, **options):
        entries = self.entries(entry, all)
        started = time.monotonic()
        task_ids = [task for e in entries for task in enqueue_entry(e, device)]
        self.stdout.write(f"enqueued {len(task_ids)} runs for {len(entries)} entries")
        if not wait or not task_ids:
            return
        runs = self.follow(task_ids, timeout)
        self.report(runs, entries, time.monotonic() - started)

    def entries(self, ids: list[str], everything: bool) -> list[ErrorEntry]:
        if not ids and not everything:
            raise CommandError("name entries with --entry ID, or use --all")
        if everything:
            return list(entries_to_verify())
        found = {e.id: e for e in ErrorEntry.objects.filter(id__in=ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise CommandError(f"no entry has the id {missing[0]!r}")
        return [found[i] for i in ids]

    def follow(self, task_ids: list[str], timeout: float) -> list[VerificationRun]:
        deadline = time.monotonic() + timeout
        last = None
        while True:
            runs = list(
                VerificationRun.objects.filter(task_id__in=task_ids)
                .finished()
                .select_related("entry", "scenario")
            )
            progress = f"{len(runs)}/{len(task_ids)} finished: {self.tally(runs)}"
            if progress != last:
                self.stdout.write(progress)
                last = progress
            if len(runs) == len(task_ids):
                return runs
            if time.monotonic() > deadline:
                raise CommandError(f"gave up after {timeout:.0f} s: {progress}")
            time.sleep(1)

    def tally(self, runs: list[VerificationRun]) -> str:
        counts = Counter(run.status for run in runs)
        return ", ".join(f"{count} {status}" for status, count in sorted(counts.items())) or "-"

    def report(self, runs: list[VerificationRun], entries: list[ErrorEntry], seconds: float):
        self.stdout.write("")
        for run in sorted(runs, key=lambda r: (r.scenario_id, r.variant, r.device)):
            matched = _pattern_note(run)
            self.stdout.write(
                f"{run.scenario_id:42} {run.variant:8} {run.device:5} {run.status:15}"
                f" {run.duration_s or 0:6.1f}s {matched}"
            )
        self.stdout.write("")
        for entry in entries:
            self.stdout.write(f"{verification_of(entry).state.value:17} {entry.error_message}")
        self.stdout.write(f"\n{len(runs)} runs in {seconds:.1f} s wall time")


def _pattern_note(run: VerificationRun) -> str:
    """Whether the entry's pattern did what the run needs: match, or (absence) not match."""
    if run.pattern_matched is None:
        return ""
    if run.scenario.proves_absence_of(run.entry):
        return "absent ok" if not run.pattern_matched else "PRINTED DESPITE ABSENCE"
    return "pattern ok" if run.pattern_matched else "PATTERN MISMATCH"
