"""Benchmark: import_errors of 10,000, 50,000 and 100,000 generated records on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/errorkb \\
        .venv/bin/python bench/import_scale.py [--sizes 10000,50000,100000] [--repos 200]

DATABASE_URL names the server (its database part is ignored): the benchmark creates a
database of its own there (errorkb_import_bench, or --database; dropped at the end) and
migrates it. For each size it writes a dataset file of that many records across the
repositories (realistic shape: prose, source lines, 2 to 5 tags, a related link in every
third record) and runs `manage.py import_errors` on it in a fresh process, into an empty
knowledge base: separate imports, not cumulative. Each prints the seconds of the whole
command (read, validate, check, write, one revision), records per second, the process's
peak memory, the CPU seconds of the process and of its PostgreSQL backend (where /proc
shows them) and the load average at its end; then the largest file is imported again
unchanged, and again with every tenth record changed. Last, the growth: seconds per
record of each size over the smallest's (1.0 is linear) and the target
(100,000 records in <= 120 s).
Nothing here is asserted: it is a measurement, not a test.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
DATABASE = "errorkb_import_bench"
TARGET_RECORDS, TARGET_SECONDS = 100_000, 120.0
WORDS = (
    "the a of to is when after each because and or not runs training worker thread epoch "
    "file disk process panics returns error value expected found step batch device memory "
    "buffer stream path directory permission network server client retry release call "
    "function result option unwrap expect handle caller library checkpoint tensor shard"
).split()
TAGS = ["rust", "panic", "io", "checkpoint", "network", "gpu", "cuda", "memory", "config",
        "serde", "tokio", "async", "disk-full", "permission", "timeout", "parse", "encoding",
        "resume", "dataset", "tokenizer", "optimizer", "scheduler", "lock", "cache"]  # fmt: skip


def main() -> None:
    args = parse_args()
    if "DATABASE_URL" not in os.environ:
        sys.exit("DATABASE_URL is required: a PostgreSQL server to create the bench database on")
    if args.one:
        print(json.dumps(import_once(args.one)))
        return
    server = server_url(os.environ["DATABASE_URL"])
    admin(server, f"DROP DATABASE IF EXISTS {args.database}")
    admin(server, f"CREATE DATABASE {args.database}")
    env = {**os.environ, "DATABASE_URL": f"{server}/{args.database}"}
    try:
        run_step(env, "migrate")
        with tempfile.TemporaryDirectory() as folder:
            timings = measure(args, Path(folder), env)
        report(timings)
    finally:
        if not args.keep:
            admin(server, f"DROP DATABASE IF EXISTS {args.database}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--repos", type=int, default=200)
    # Two runs at once on one server each need a database of their own.
    parser.add_argument("--database", default=DATABASE, help="the database to create and drop")
    parser.add_argument("--keep", action="store_true", help="keep the database, to look into")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one import, in this process
    return parser.parse_args()


def measure(args, folder: Path, env: dict) -> list[tuple[str, int, dict]]:
    sizes = [int(size) for size in args.sizes.split(",")]
    timings = []
    for size in sizes:
        path = folder / f"records-{size}.json"
        write_dataset(path, generate_records(size, args.repos, random.Random(size)))
        run_step(env, "empty")
        timings.append((f"{size} new", size, run_step(env, str(path))))
        print_row(*timings[-1])
    largest = sizes[-1]
    path = folder / f"records-{largest}.json"
    timings.append((f"{largest} again, unchanged", largest, run_step(env, str(path))))
    print_row(*timings[-1])
    data = json.loads(path.read_text())
    for record in data["records"][::10]:
        record["documentation"] += " Seen again in a later release."
    path.write_text(json.dumps(data))
    timings.append((f"{largest} again, 1 in 10 changed", largest, run_step(env, str(path))))
    print_row(*timings[-1])
    return timings


def run_step(env: dict, step: str) -> dict:
    """migrate, empty, or one import of a file, each in a process of its own."""
    command = [sys.executable, __file__, "--one", step]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{step} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def import_once(step: str) -> dict:
    os.environ.update(DEBUG="false", SECRET_KEY="bench-only", LOG_LEVEL="WARNING")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    if step == "migrate":
        call_command("migrate", verbosity=0)
        return {}
    if step == "empty":
        empty()
        return {}
    server = server_process()
    cpu = (process_cpu(), process_cpu(server))
    started = time.perf_counter()
    out = tempfile.TemporaryFile("w+")
    call_command("import_errors", step, stdout=out)
    seconds = time.perf_counter() - started
    python_cpu, server_cpu = process_cpu() - cpu[0], process_cpu(server) - cpu[1]
    out.seek(0)
    # This process's own high-water mark: its rusage would also count the parent's memory
    # (the generated records and all) at the fork it was started from.
    status = Path("/proc/self/status").read_text().splitlines()
    peak = int(next(line for line in status if line.startswith("VmHWM:")).split()[1]) / 1024
    return {"seconds": seconds, "peak_mb": peak, "said": out.read().strip(),
            "cpu": [python_cpu, server_cpu], "load": os.getloadavg()[0]}  # fmt: skip


def server_process() -> str:
    """The PostgreSQL backend serving this process's connection, as /proc names it."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return str(cursor.fetchone()[0])


def process_cpu(pid: str = "self") -> float:
    """Seconds of CPU a process has used, or NaN where /proc cannot see it (a remote server).

    On a machine others share, the wall-clock seconds of an import move with their load;
    its CPU seconds (this process's, and its database backend's) much less.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def empty() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE kb_relatedlink, kb_entrytag, kb_errorentry, kb_tag, kb_repository, "
            "reversion_version, reversion_revision CASCADE"
        )
        cursor.execute("VACUUM ANALYZE")


def generate_records(count: int, repo_count: int, rng: random.Random) -> list[dict]:
    """count valid records across repo_count repositories, ids and slugs unique."""
    repos = [f"org{n % 40}/project{n}" for n in range(repo_count)]
    records = []
    for n in range(count):
        records.append(record(n, repos[n % repo_count], rng, records))
    return records


def record(n: int, repo: str, rng: random.Random, earlier: list[dict]) -> dict:
    def prose(words: int) -> str:
        return " ".join(rng.choices(WORDS, k=words)).capitalize() + "."

    message = f"Failed to {rng.choice(['load', 'save', 'open'])} shard {n}: {prose(6)}"
    path = f"crates/{repo.split('/')[1]}/src/{rng.choice(['io', 'net', 'train'])}.rs"
    line = rng.randint(20, 900)
    related = [rng.choice(earlier)["id"]] if earlier and n % 3 == 0 else []
    stamp = f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T10:{n % 60:02d}:00.000Z"
    return {
        "id": f"{n:016x}",
        "repo": repo,
        "slug": f"failed-to-load-shard-{n}",
        "errorCode": None,
        "errorMessage": message,
        "messagePattern": f"^Failed to \\w+ shard {n}: ",
        "errorType": "panic",
        "errorClass": None,
        "httpStatus": None,
        "severity": "error",
        "filePath": path,
        "lineNumber": line,
        "sourceCode": "\n".join(f"    let step_{k} = run({k})?;" for k in range(5)),
        "sourceCodeStart": line - 2,
        "sourceCodeEnd": line + 2,
        "githubUrl": f"https://github.com/{repo}/blob/{'a' * 40}/{path}#L{line - 2}-L{line + 2}",
        "summary": prose(20),
        "documentation": prose(60),
        "triggerScenarios": prose(25),
        "commonSituations": prose(15),
        "solutions": [prose(12), prose(8)],
        "exampleFix": 'let shard = load(path).context("shard")?;',
        "handlingStrategy": "retry",
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "preventionTips": [prose(10)],
        "tags": rng.sample(TAGS, rng.randint(2, 5)),
        "backgroundTag": None,
        "analyzedSha": "a" * 40,
        "analyzedAt": stamp,
        "contentChangedAt": stamp,
        "schemaVersion": 2,
        "related": related,
        "status": "published",
    }


def write_dataset(path: Path, records: list[dict]) -> None:
    data = {"datasetVersion": "2026-12-01T00:00:00.000Z", "records": records}
    path.write_text(json.dumps(data), encoding="utf-8")


def print_row(what: str, count: int, found: dict) -> None:
    rate = count / found["seconds"]
    python_cpu, server_cpu = found["cpu"]
    print(
        f"{what:<32} {found['seconds']:>8.1f} s {rate:>8.0f} records/s "
        f"{found['peak_mb']:>7.0f} MB peak   cpu {python_cpu:.1f} s python + "
        f"{server_cpu:.1f} s postgres, load {found['load']:.2f}   {found['said']}",
        flush=True,
    )


def report(timings: list[tuple[str, int, dict]]) -> None:
    fresh = [(count, found["seconds"]) for what, count, found in timings if what.endswith("new")]
    base_count, base_seconds = fresh[0]
    print("\ngrowth (seconds per record over the smallest import's; 1.0 is linear):")
    for count, seconds in fresh:
        ratio = (seconds / count) / (base_seconds / base_count)
        print(f"  {count:>7} records: {seconds:>7.1f} s, ratio {ratio:.2f}")
    biggest = [seconds for count, seconds in fresh if count == TARGET_RECORDS]
    if biggest:
        print(
            f"target: {TARGET_RECORDS} records in <= {TARGET_SECONDS:.0f} s: "
            f"{biggest[0]:.1f} s, ratio {biggest[0] / TARGET_SECONDS:.2f} (<= 1 meets it)"
        )


def server_url(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")).rstrip("/")


def admin(server: str, statement: str) -> None:
    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        connection.execute(statement)


if __name__ == "__main__":
    main()
