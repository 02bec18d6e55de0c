"""bench/scale.py's last part: the worker on the demo set, fresh vs warm, and a full sweep.

    .venv/bin/python bench/scale_worker.py REPEAT   # fresh and warm seconds, as JSON

Run alone it prints bench/reproduce.py's worker_run_seconds (perform_run, SQLite in
memory) as JSON: scale.py runs it in a process of its own, since reproduce.py sets Django
up on SQLite on import. sweep() starts a real Celery worker with two processes on a
database of the demo set and times `manage.py verify --all --wait`.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
DEMO = ROOT / "errorkb/kb/fixtures/demo.json"
TARGET_WARM_S, TARGET_RATIO, TARGET_SWEEP_S = 0.5, 8, 20.0
READY_S = 180  # the most a worker may take to say it is ready


def report_worker(args, env: dict, *, skip_sweep: bool) -> None:
    done = subprocess.run(
        [PYTHON, __file__, str(args.repeat)], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"fresh vs warm runs failed:\n{done.stdout}\n{done.stderr}")
    fresh, warm = json.loads(done.stdout.splitlines()[-1])
    print(f"\nworker's code path (perform_run) on the demo set, median of {args.repeat} x 3 runs:")
    print(f"  fresh {fresh:.3f} s, warm {warm:.3f} s per run (target <= {TARGET_WARM_S} s: "
          f"ratio {warm / TARGET_WARM_S:.2f}); fresh/warm {fresh / warm:.1f}x (target >= "
          f"{TARGET_RATIO}x)")  # fmt: skip
    if not skip_sweep:
        sweep(args.database_url, env)


def sweep(database_url: str, env: dict) -> float:
    """Wall time of `verify --all --wait` on the demo set, a `-c 2` worker consuming it,
    through the broker env names (CELERY_BROKER_URL, else the embedded one)."""
    import import_scale

    server, name = import_scale.server_url(database_url), database_url.rsplit("/", 1)[1] + "_demo"
    import_scale.admin(server, f"DROP DATABASE IF EXISTS {name}")
    import_scale.admin(server, f"CREATE DATABASE {name}")
    env = {**env, "DATABASE_URL": f"{server}/{name}", "VERIFY_GPU": "never"}
    manage = [PYTHON, str(ROOT / "manage.py")]
    try:
        subprocess.run([*manage, "migrate", "-v0"], env=env, cwd=ROOT, check=True)
        subprocess.run([*manage, "import_errors", str(DEMO)], env=env, cwd=ROOT, check=True)
        purge(env)
        with tempfile.NamedTemporaryFile("w+", suffix=".log") as log:
            worker = start_worker(env, log.name)
            try:
                started = time.perf_counter()
                command = [*manage, "verify", "--all", "--wait", "--timeout", "600"]
                done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
                seconds = time.perf_counter() - started
            finally:
                stop(worker)
        said = [line.strip() for line in done.stdout.splitlines() if line.strip()]
        ratio = seconds / TARGET_SWEEP_S
        print(f"\nfull sweep of the demo set, `celery worker -c 2`: {seconds:.1f} s "
              f"(target <= {TARGET_SWEEP_S:.0f} s: ratio {ratio:.2f})")  # fmt: skip
        print("  the whole command, process start included; verify said: " + said[-1])
        return seconds
    finally:
        purge(env)
        import_scale.admin(server, f"DROP DATABASE IF EXISTS {name}")


def start_worker(env: dict, log_path: str) -> subprocess.Popen:
    """A worker of two processes on the cpu queue, returned once it says it is ready."""
    celery = str(Path(PYTHON).parent / "celery")
    command = [celery, "-A", "errorkb", "worker", "-c", "2", "-Q", "cpu", "-n", "scalebench@%h",
               "--loglevel", "INFO", "--logfile", log_path]  # fmt: skip
    # A session of its own: stop() ends the worker and its pool, nothing else.
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}  # it logs to log_path
    worker = subprocess.Popen(command, env=env, cwd=ROOT, start_new_session=True, **quiet)
    deadline = time.monotonic() + READY_S
    while "ready." not in Path(log_path).read_text(errors="replace"):
        if worker.poll() is not None or time.monotonic() > deadline:
            stop(worker)
            sys.exit(f"the worker did not start:\n{Path(log_path).read_text()[-3000:]}")
        time.sleep(0.5)
    return worker


def stop(worker: subprocess.Popen) -> None:
    if worker.poll() is not None:
        return
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


def purge(env: dict) -> None:
    celery = str(Path(PYTHON).parent / "celery")
    command = [celery, "-A", "errorkb", "purge", "-f", "-Q", "cpu"]
    subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)


def demo_runs(repeat: int) -> None:
    import reproduce  # sets Django up on SQLite in memory: only in this process

    reproduce.load_demo()
    print(json.dumps(reproduce.worker_run_seconds(repeat)))


if __name__ == "__main__":
    demo_runs(int(sys.argv[1]))
