"""Benchmark: what the nightly sweep plans and sends at 10,000 and 100,000 entries.

    .venv/bin/python bench/nightly.py [--database-url postgres://postgres@127.0.0.1:5432/errorkb_nightly]
        [--broker-url redis://127.0.0.1:6379/14] [--sizes 10000,100000] [--skip-brokers]

The database of --database-url is dropped, created and migrated; bench/import_scale.py's
generated records are imported with `manage.py import_errors` up to each size in turn
(the second size adds to the first). Each entry is linked to two scenarios of the
registry and given, for each scenario and variant, one finished run that ran on the
inputs it would have now (fingerprints.run_inputs: the registry's definitions, the
entry's texts, this checkout's trainer and torch) and its confirmation, written with
COPY, their ages spread over the last 20 nights. Then, at each size, the nightly sweep
(tasks.sweep's enqueue: plan, the Sweep's row, the batches handed to the broker of
--broker-url, its queues purged after) is timed three times:

1. nothing changed: only the rolling share (VERIFY_RECHECK_NIGHTS, 20: 1/20 of the runs);
2. one entry's pattern changed (QuerySet.update, as raw SQL would): its four runs, and the
   rolling share;
3. the trainer changed (a worker announced other code): every run.

Each prints the runs planned by reason, the enqueue time and this process's peak memory.
Last, unless --skip-brokers, bench/brokers.py's demo sweep through the embedded broker
and through Redis. Nothing is asserted: it is a measurement.
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import brokers
import import_scale
import scale

SCENARIOS_PER_ENTRY = 2
NIGHTS = 20  # confirmations' ages are spread over this many nights
TARGET_ENQUEUE_S = 30.0  # the target for a sweep's enqueue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/errorkb_nightly"
    )
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--skip-brokers", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    env = scale.bench_env(args.database_url, args.broker_url)
    for statement in scale.recreate(args):
        import_scale.admin(import_scale.server_url(args.database_url), statement)
    subprocess.run([*scale.MANAGE, "migrate", "-v0"], env=env, cwd=scale.ROOT, check=True)
    os.environ.update(env)
    scale.setup_django()
    records = import_scale.generate_records(sizes[-1], args.repos, random.Random(28))
    imported = 0
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"records-{imported}-{size}.json"
            import_scale.write_dataset(path, records[imported:size])
            seconds, _, said = scale.import_file(path, env)
        print(f"\n== {size} entries (import of {size - imported} more: {seconds:.1f} s, {said})")
        confirm_every_entry(random.Random(size))
        imported = size
        measure_nights(size)
    if not args.skip_brokers:
        print("\n== the demo's full sweep through both brokers (bench/brokers.py)")
        brokers.compare(args.database_url.rsplit("/", 1)[0] + "/errorkb_brokers", args.broker_url)


def confirm_every_entry(rng: random.Random) -> None:
    """For every entry without runs: two scenarios, and a run of each scenario and variant
    on the inputs it has now, confirmed, started within the last NIGHTS nights."""
    from django.db import connection, transaction
    from django.utils import timezone

    from errorkb.kb.models import ErrorEntry
    from errorkb.verification import fingerprints
    from errorkb.verification.models import Confirmation, Scenario, VerificationRun
    from errorkb.verification.sync import sync_scenarios

    started = time.perf_counter()
    sync_scenarios()
    scenarios = {s.name: s.definition for s in Scenario.objects.active()}
    names = sorted(scenarios)
    entries = ErrorEntry.objects.filter(runs=None).order_by("pk")
    rows = list(entries.values_list("pk", "error_message", "message_pattern"))
    environment = fingerprints.local_environment()
    now = timezone.now()
    first = (VerificationRun.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    runs, confirmations, links = [], [], []
    for entry_id, message, pattern in rows:
        texts = fingerprints.entry_digest(message, pattern)
        for name in rng.sample(names, SCENARIOS_PER_ENTRY):
            links.append((name, entry_id))
            for variant in ("failure", "fixed"):
                run_id = first + len(runs)
                ran_at = now - timedelta(seconds=rng.uniform(0, NIGHTS * 86400))
                inputs = fingerprints.run_inputs(
                    scenario=scenarios[name], entry=texts, variant=variant, device="cpu",
                    environment=environment,
                )  # fmt: skip
                status = "reproduced" if variant == "failure" else "fixed"
                ended = ran_at + timedelta(seconds=1)
                runs.append((run_id, f"nightly-{run_id}", entry_id, name, variant, "cpu", status,
                             json.dumps(inputs), ran_at, ended, ran_at))  # fmt: skip
                proof = fingerprints.fingerprint(inputs)
                confirmations.append((entry_id, name, variant, "cpu", run_id, ran_at, proof))
    run_columns = "id, task_id, entry_id, scenario_id, variant, device, status, inputs, "
    run_columns += "started_at, finished_at, updated_at, texts, reason, trainer_version, "
    run_columns += "torch_version, python_version, host, attempts, log_tail, signal"
    with transaction.atomic(), connection.cursor() as cursor:
        link_table = Scenario.entries.through._meta.db_table
        copy_rows(cursor, f"COPY {link_table} (scenario_id, errorentry_id) FROM STDIN", links)
        statement = f"COPY {VerificationRun._meta.db_table} ({run_columns}) FROM STDIN"
        copy_rows(cursor, statement, [(*run, "[]", "", "0.1.0", "", "", "bench", 1, "", "")
                                      for run in runs])  # fmt: skip
        statement = (
            f"COPY {Confirmation._meta.db_table} "
            "(entry_id, scenario_id, variant, device, run_id, ran_at, fingerprint) FROM STDIN"
        )
        copy_rows(cursor, statement, confirmations)
        table = VerificationRun._meta.db_table
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), MAX(id)) FROM {table}"
        )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(
        f"  {len(runs)} runs and their confirmations written for {len(rows)} entries "
        f"in {time.perf_counter() - started:.1f} s"
    )


def copy_rows(cursor, statement: str, rows: list[tuple]) -> None:
    with cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def measure_nights(size: int) -> None:
    from errorkb.kb.models import ErrorEntry
    from errorkb.verification import fingerprints
    from errorkb.verification.models import WorkerEnvironment

    night("nothing changed", size)
    entry = ErrorEntry.objects.order_by("pk").first()
    ErrorEntry.objects.filter(pk=entry.pk).update(message_pattern=entry.message_pattern + " ?")
    night(f"one entry's pattern changed ({entry.pk})", size)
    ErrorEntry.objects.filter(pk=entry.pk).update(message_pattern=entry.message_pattern)
    WorkerEnvironment.objects.update_or_create(
        device="cpu",
        defaults={"trainer": "0" * 16, "torch": fingerprints.torch_version(), "host": "bench",
                  "announced_at": entry.updated_at},
    )  # fmt: skip
    night("the trainer's code changed", size)
    WorkerEnvironment.objects.all().delete()


def night(what: str, size: int) -> None:
    from django.conf import settings

    from errorkb.celery import app
    from errorkb.verification.routing import CPU_QUEUE, GPU_QUEUE
    from errorkb.verification.tasks import enqueue, entries_to_verify

    settings.VERIFY_GPU = "never"  # the bench has no worker to ask
    started = time.perf_counter()
    try:
        fanout = enqueue(
            entries_to_verify(),
            source="sweep",
            only_changed=True,
            recheck_nights=settings.VERIFY_RECHECK_NIGHTS,
        )
        seconds = time.perf_counter() - started
    finally:
        with app.connection_for_write() as connection:
            for queue in (CPU_QUEUE, GPU_QUEUE):
                connection.default_channel.queue_purge(queue)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    every = len(fanout.runs) + fanout.confirmed
    print(f"  {what}: {len(fanout.runs)} of {every} runs planned, enqueued in {seconds:.1f} s "
          f"(target <= {TARGET_ENQUEUE_S:.0f} s: ratio {seconds / TARGET_ENQUEUE_S:.2f}), "
          f"peak {peak_mb:.0f} MB")  # fmt: skip
    for reason, runs in fanout.reasons.items():
        print(f"      {runs:>7}  {reason}")


if __name__ == "__main__":
    sys.exit(main())
