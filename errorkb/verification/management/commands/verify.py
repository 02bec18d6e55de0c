import sys
import time
from collections import defaultdict

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count
from tqdm import tqdm

from errorkb.kb.models import ErrorEntry
from errorkb.verification.fanout import NOT_PUBLISHED
from errorkb.verification.models import Sweep, VerificationRun
from errorkb.verification.state.stored import stored_state
from errorkb.verification.tasks import enqueue

NAMED = 20  # entries named per reason they were not verified, unless -v 2


class Command(BaseCommand):
    help = (
        "Enqueue verification runs for entries, naming each entry that gets none and why; "
        "with --wait, follow them with a progress bar and print the outcomes."
    )

    def add_arguments(self, parser):
        parser.add_argument("--entry", action="append", default=[], metavar="ID")
        parser.add_argument("--all", action="store_true", help="every published entry")
        parser.add_argument("--device", action="append", choices=["cpu", "cuda"])
        parser.add_argument("--wait", action="store_true", help="wait and print the outcomes")
        parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait")

    def handle(self, *args, entry, all, device, wait, timeout, verbosity, **options):
        started = time.monotonic()
        fanout = enqueue(self.entries(entry, all), device, source="verify")
        skipped = list(fanout.skipped)
        if all:
            unpublished = ErrorEntry.objects.exclude(status=ErrorEntry.Status.PUBLISHED)
            skipped += [(e, NOT_PUBLISHED) for e in unpublished.order_by("pk")]
        self.name_skipped(skipped, everyone=verbosity > 1 or not all)
        self.stdout.write(f"enqueued {len(fanout.runs)} runs for {fanout.entries} entries")
        if not fanout.runs and entry:
            raise CommandError("none of the entries named can be verified: see above")
        if wait and fanout.sweep is not None:
            runs = self.follow(fanout.sweep, timeout)
            self.report(runs, time.monotonic() - started)

    def entries(self, ids: list[str], everything: bool):
        if not ids and not everything:
            raise CommandError("name entries with --entry ID, or use --all")
        if everything:
            return ErrorEntry.objects.published()
        found = set(ErrorEntry.objects.filter(id__in=ids).values_list("id", flat=True))
        missing = [i for i in ids if i not in found]
        if missing:
            raise CommandError(f"no entry has the id {missing[0]!r}")
        return ErrorEntry.objects.filter(id__in=ids)

    def name_skipped(self, skipped: list[tuple[ErrorEntry, str]], *, everyone: bool):
        by_reason = defaultdict(list)
        for entry, reason in skipped:
            by_reason[reason].append(entry)
        for reason, entries in by_reason.items():
            self.stdout.write(f"not verified, {reason}: {len(entries)} entries")
            shown = entries if everyone else entries[:NAMED]
            for entry in shown:
                self.stdout.write(f"  {entry.id}  {entry.error_message}")
            if len(shown) < len(entries):
                self.stdout.write(f"  and {len(entries) - len(shown)} more (-v 2 names them)")

    def follow(self, sweep: Sweep, timeout: float) -> list[VerificationRun]:
        deadline = time.monotonic() + timeout
        finished = sweep.task_runs().finished()
        bar = tqdm(total=sweep.runs, desc="runs", unit="run", file=sys.stderr, disable=None)
        with bar:
            while True:
                counts = dict(finished.values_list("status").annotate(n=Count("id")))
                done = sum(counts.values())
                bar.update(done - bar.n)
                bar.set_postfix_str(_tally(counts), refresh=False)
                if done >= sweep.runs:
                    break
                if time.monotonic() > deadline:
                    raise CommandError(
                        f"gave up after {timeout:.0f} s: {done}/{sweep.runs} finished"
                    )
                time.sleep(1)
        self.stdout.write(f"{done}/{sweep.runs} finished: {_tally(counts)}")
        return list(finished.select_related("entry", "scenario"))

    def report(self, runs: list[VerificationRun], seconds: float):
        self.stdout.write("")
        for run in sorted(runs, key=lambda r: (r.scenario_id, r.variant, r.device)):
            matched = _pattern_note(run)
            self.stdout.write(
                f"{run.scenario_id:42} {run.variant:8} {run.device:5} {run.status:15}"
                f" {run.duration_s or 0:6.1f}s {matched}"
            )
        self.stdout.write("")
        entries = {run.entry_id: run.entry for run in runs}
        for entry in sorted(entries.values(), key=lambda e: e.error_message):
            # The stored state, as the admin, the API and the pages show it.
            self.stdout.write(f"{stored_state(entry).value:17} {entry.error_message}")
        self.stdout.write(f"\n{len(runs)} runs in {seconds:.1f} s wall time")


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {status}" for status, count in sorted(counts.items())) or "-"


def _pattern_note(run: VerificationRun) -> str:
    """Whether the entry's pattern did what the run needs: match, or (absence) not match."""
    if run.pattern_matched is None:
        # Nothing printed: a run the kernel killed (burn past a file-size limit) says so.
        return run.ended_by
    if run.scenario.proves_absence_of(run.entry):
        return "absent ok" if not run.pattern_matched else "PRINTED DESPITE ABSENCE"
    return "pattern ok" if run.pattern_matched else "PATTERN MISMATCH"
