"""Benchmark: the demo's full sweep through the embedded broker and through Redis.

    .venv/bin/python bench/brokers.py [--database-url postgres://postgres@127.0.0.1:5432/errorkb_brokers]
                                      [--redis redis://127.0.0.1:6379/14]

The same sweep twice (scale_worker.sweep: the demo set on a database of its own, a
`celery worker -c 2`, `manage.py verify --all --wait`), once with the embedded broker
`bin/run` uses (files under a temporary CELERY_BROKER_DIR) and once with Redis; prints
both, and the embedded one's time as a ratio to Redis's against the target
(within 1.5x).
"""

import argparse
import os
import tempfile

import scale_worker

TARGET_RATIO = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/errorkb_brokers"
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    args = parser.parse_args()
    compare(args.database_url, args.redis)


def compare(database_url: str, redis: str) -> dict[str, float]:
    """The demo's full sweep through each broker: seconds, printed with their ratio."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_BROKER")}
    base["DEBUG"] = "true"
    seconds = {}
    with tempfile.TemporaryDirectory(prefix="errorkb-broker-") as folder:
        print("== the embedded broker (files)")
        seconds["embedded"] = scale_worker.sweep(
            database_url, {**base, "CELERY_BROKER_DIR": folder}
        )
    print("== Redis")
    seconds["redis"] = scale_worker.sweep(database_url, {**base, "CELERY_BROKER_URL": redis})
    ratio = seconds["embedded"] / seconds["redis"]
    print(f"\nembedded {seconds['embedded']:.1f} s, Redis {seconds['redis']:.1f} s: "
          f"embedded/Redis {ratio:.2f}x "
          f"(target <= {TARGET_RATIO}x: ratio {ratio / TARGET_RATIO:.2f})")  # fmt: skip
    return seconds


if __name__ == "__main__":
    main()
