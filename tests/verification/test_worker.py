"""Verification through a real Celery worker and a real broker: Redis, RabbitMQ, embedded.

The worker is a separate process on the test database. Runs are enqueued by
another process (manage.py), exactly as in production.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
import redis
from django.db import connection

from errorkb.verification.models import Scenario, Sweep, VerificationRun
from errorkb.verification.sync import sync_scenarios
from tests.builders import load_demo
from tests.waiting import wait_for as _wait_for

ROOT = Path(__file__).resolve().parents[2]
wait_for = partial(_wait_for, interval=0.2)  # the database and logs, five times a second
CELERY = str(Path(sys.executable).parent / "celery")
FAST = "init-changed-architecture"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def database_url() -> str:
    db = connection.settings_dict  # the test database, once pytest-django set it up
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


BROKERS = {
    "redis": "redis://127.0.0.1:6379/15",
    "rabbitmq": "amqp://guest:guest@127.0.0.1:5672//",
    "embedded": None,  # the default: kombu's filesystem transport
}


class Worker:
    """A `celery worker` process consuming the cpu queue."""

    def __init__(self, broker: str, tmp_path: Path, *, purge: bool = True):
        # Not under tmp_path: pytest makes that 0700, and the EACCES scenarios' unprivileged
        # user must be able to reach its run directory.
        self.tmp = Path(tempfile.mkdtemp(prefix="errorkb-worker-"))
        self.tmp.chmod(0o755)
        self.log = tmp_path / f"worker-{uuid.uuid4().hex[:8]}.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "CONN_MAX_AGE": "0",
            "TMPDIR": str(self.tmp),
            "CELERY_BROKER_DIR": str(tmp_path / "broker"),
        }
        self.env.pop("CELERY_BROKER_URL", None)
        if BROKERS[broker]:
            self.env["CELERY_BROKER_URL"] = BROKERS[broker]
        command = [
            CELERY, "-A", "errorkb", "worker", "-Q", "cpu", "-c", "2",
            "--without-heartbeat", "--without-mingle", "--without-gossip",
            "-n", f"test-{uuid.uuid4().hex[:8]}@%h", "--loglevel", "INFO",
        ]  # fmt: skip
        if purge:  # what an earlier test left in the broker
            command.append("--purge")
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=self.log.open("w"), stderr=subprocess.STDOUT
        )
        if not wait_for(lambda: "ready." in self.log.read_text(), timeout=60):
            self.stop()
            pytest.fail(f"the worker did not start:\n{self.log.read_text()}")

    def manage(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def leftover_run_dirs(self) -> list[Path]:
        # The pool's own pymp-* folders are billiard's; trainer-run-* are the scenarios'.
        return list(self.tmp.glob("trainer-run-*"))

    def pool_processes(self) -> list[int]:
        return children_of(self.process.pid)

    def fork_servers(self) -> list[int]:
        """The pool processes' fork servers (VERIFY_START=warm, the default)."""
        children = [c for pid in self.pool_processes() for c in children_of(pid)]
        return [c for c in children if "trainer.launch" in cmdline_of(c)]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def cmdline_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def children_of(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # fields: state, ppid, ...
            found.append(int(stat.parent.name))
    return found


@pytest.fixture
def demo():
    load_demo()
    sync_scenarios()


@pytest.fixture
def worker_for(tmp_path):
    started = []

    def start(broker: str, **options) -> Worker:
        worker = Worker(broker, tmp_path, **options)
        started.append((broker, worker))
        return worker

    yield start
    for _, worker in started:
        worker.stop()
    if any(broker == "redis" for broker, _ in started):
        # A worker killed whole leaves its messages unacknowledged in Redis, out of the
        # queue that --purge empties: a later test's worker would take them back.
        redis.Redis.from_url(BROKERS["redis"]).flushdb()


@pytest.mark.parametrize("broker", list(BROKERS))
def test_a_worker_verifies_an_entry_and_the_api_shows_it(client, demo, worker_for, broker):
    worker = worker_for(broker)
    entry = Scenario.objects.get(name=FAST).entries.get()
    result = worker.manage("verify", "--entry", entry.id, "--wait", "--timeout", "300")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"verified          {entry.error_message}" in result.stdout
    runs = VerificationRun.objects.filter(entry=entry)
    proofs = entry.scenarios.count()  # each proves the entry: its failure and its fix
    assert (
        sorted(runs.values_list("status", flat=True))
        == ["fixed"] * proofs + ["reproduced"] * proofs
    )
    assert client.get(f"/api/errors/{entry.id}").json()["verification"]["state"] == "verified"
    assert worker.leftover_run_dirs() == []
    assert worker.fork_servers()  # the runs were forked from a warm server


def test_a_task_delivered_twice_records_one_run(demo, worker_for):
    worker = worker_for("redis")
    entry = Scenario.objects.get(name=FAST).entries.get()
    kwargs = {"entry_id": entry.id, "scenario_name": FAST, "variant": "failure", "device": "cpu"}
    send_twice = (
        "from errorkb.verification.tasks import run_scenario\n"
        f"for _ in range(2): run_scenario.apply_async(kwargs={kwargs!r}, task_id='twice')\n"
    )
    assert worker.manage("shell", "-c", send_twice).returncode == 0
    done = lambda: worker.log.read_text().count("run_scenario[twice] succeeded") == 2  # noqa: E731
    assert wait_for(done, timeout=120), worker.log.read_text()
    run = VerificationRun.objects.get(task_id="twice")
    assert (run.status, run.attempts) == ("reproduced", 1)
    assert VerificationRun.objects.count() == 1


ENQUEUE_50 = """
import json
from collections import Counter
from errorkb.kb.models import ErrorEntry
from errorkb.verification.runs import plan_entry
from errorkb.verification.tasks import run_scenario
planned = [p for e in ErrorEntry.objects.order_by("id") for p in plan_entry(e, ["cpu"])]
planned = (planned * 2)[:50]
print(json.dumps([run_scenario.apply_async(kwargs=p.as_kwargs()).id for p in planned]))
"""


def test_a_sweep_survives_workers_killed_mid_run(demo, worker_for):
    worker = worker_for("redis")
    result = worker.manage("shell", "-c", ENQUEUE_50)
    assert result.returncode == 0, result.stderr
    task_ids = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(task_ids) == 50

    kills = kill_busy_pool_processes(worker, count=10)
    assert kills == 10

    finished = VerificationRun.objects.filter(task_id__in=task_ids).finished
    assert wait_for(lambda: finished().count() == 50, timeout=900), worker.log.read_text()[-5000:]
    assert VerificationRun.objects.count() == 50  # every run recorded exactly once
    assert VerificationRun.objects.filter(attempts__gt=1).exists()  # redelivered after a kill
    # The reaper of a killed run removes its folder once the scenario's group is gone, which
    # can lag the sweep's last record by a few seconds on a loaded machine.
    assert wait_for(lambda: worker.leftover_run_dirs() == [], timeout=30), (
        worker.leftover_run_dirs()
    )
    attempts = sorted(VerificationRun.objects.values_list("attempts", flat=True))
    statuses = sorted(VerificationRun.objects.values_list("status", flat=True))
    print(f"50 runs, 10 kills; attempts {Counter(attempts)}; statuses {Counter(statuses)}")
    assert set(statuses) == {"reproduced", "fixed"}


# Not the embedded broker: kombu's filesystem transport takes a message off its folder as it
# delivers it, so one the killed worker had taken and not yet begun is lost with it
# (docs/verification.md, "When a worker dies").
@pytest.mark.parametrize("broker", ["redis", "rabbitmq"])
def test_a_sweep_finishes_when_a_new_worker_starts_after_one_killed_whole(demo, worker_for, broker):
    first = worker_for(broker)
    result = first.manage("verify", "--all")
    assert result.returncode == 0, result.stdout + result.stderr
    sweep = Sweep.objects.get()
    assert wait_for(lambda: sweep.finished_runs >= 20, timeout=300), first.log.read_text()[-5000:]
    # Its main process, as `kill -9` or the OOM killer would; its pool processes end with it
    # (billiard's exit when their parent is gone), their runs unrecorded.
    pool = first.pool_processes()
    first.process.kill()
    first.process.wait()
    assert wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pool), timeout=60)
    done = sweep.finished_runs
    assert done < sweep.runs
    stranded = VerificationRun.objects.filter(status="running").count()  # its runs at work

    second = worker_for(broker, purge=False)
    started = time.monotonic()
    finished = wait_for(lambda: sweep.finished_runs == sweep.runs, timeout=300)
    took = time.monotonic() - started
    assert finished, second.log.read_text()[-5000:]
    print(f"{broker}: {sweep.runs} runs, {done} finished and {stranded} running when the worker "
          f"was killed; the rest within {took:.0f} s of a new worker")  # fmt: skip
    assert VerificationRun.objects.count() == sweep.runs  # each recorded once
    assert not VerificationRun.objects.filter(status="error").exists()


def kill_busy_pool_processes(worker: Worker, *, count: int) -> int:
    """SIGKILL a pool process that is running a scenario, at random moments."""
    rng = random.Random(7)
    kills = 0
    deadline = time.monotonic() + 600
    while kills < count and time.monotonic() < deadline:
        time.sleep(rng.uniform(0.3, 2.0))
        # Busy: its run's reaper is alive (an idle pool process keeps only its fork server).
        busy = [
            pid
            for pid in worker.pool_processes()
            if any("trainer.reaper" in cmdline_of(c) for c in children_of(pid))
        ]
        if busy:
            os.kill(rng.choice(busy), signal.SIGKILL)
            kills += 1
    return kills


def test_a_worker_mirrors_the_registry_and_verify_links_entries_imported_since(worker_for):
    # No sync_scenarios anywhere: the worker mirrors the registry when it starts, and
    # verify links the entries imported after that before it plans their runs.
    from errorkb.kb.models import ErrorEntry
    from trainer.scenarios import registry

    Scenario.objects.all().delete()  # as on a database only migrated
    worker = worker_for("embedded")  # its own broker: no other test's worker takes its runs
    assert wait_for(lambda: Scenario.objects.active().count() == len(registry()), timeout=60)
    load_demo()
    entry = ErrorEntry.objects.get(error_message=Scenario.objects.get(name=FAST).message)
    assert not entry.scenarios.exists()
    result = worker.manage("verify", "--entry", entry.id, "--wait", "--timeout", "300")
    assert result.returncode == 0, result.stdout + result.stderr
    proofs = entry.scenarios.count()
    assert proofs >= 1
    assert f"enqueued {2 * proofs} runs for 1 entries" in result.stdout
    assert f"verified          {entry.error_message}" in result.stdout
    assert VerificationRun.objects.filter(entry=entry).finished().count() == 2 * proofs
    # It announced what it runs scenarios with, and its runs ran on exactly that: the
    # nightly planner, reading the announcement, finds nothing of the entry to run again.
    from errorkb.verification import fingerprints
    from errorkb.verification.fanout import plan_runs
    from errorkb.verification.models import WorkerEnvironment

    announced = WorkerEnvironment.objects.get(device="cpu")
    assert (announced.trainer, announced.torch) == (
        fingerprints.trainer_digest(),
        fingerprints.torch_version(),
    )
    entries = ErrorEntry.objects.filter(pk=entry.pk)
    again = plan_runs(entries, ["cpu"], only_changed=True)
    assert (again.runs, again.confirmed) == ([], 2 * proofs)
