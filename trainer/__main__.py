"""Command line: ``python -m trainer scenarios | reproduce | train`` (see the package docstring)."""

from __future__ import annotations

import argparse
import json
import sys

from trainer import burn, scenarios
from trainer.outcome import Status, Variant

EXIT_EXPECTED, EXIT_UNEXPECTED, EXIT_UNSUPPORTED = 0, 1, 3


def cmd_scenarios(args: argparse.Namespace) -> int:
    json.dump(scenarios.registry(), sys.stdout, indent=2)
    print()
    return EXIT_EXPECTED


def cmd_reproduce(args: argparse.Namespace) -> int:
    from trainer.runner import run_scenario

    try:
        scenarios.get(args.scenario)
    except KeyError as err:
        print(err.args[0], file=sys.stderr)
        return 2
    outcome = run_scenario(
        args.scenario,
        variant=Variant.FIXED if args.fixed else Variant.FAILURE,
        device=args.device,
        timeout_s=args.timeout,
        start=args.start,
    )
    json.dump(outcome, sys.stdout, indent=2)
    print()
    if outcome["status"] == outcome["expected_status"]:
        return EXIT_EXPECTED
    return EXIT_UNSUPPORTED if outcome["status"] == Status.UNSUPPORTED else EXIT_UNEXPECTED


def cmd_train(args: argparse.Namespace) -> int:
    from trainer.config import TrainConfig
    from trainer.learner import Learner

    config = TrainConfig(
        epochs=args.epochs,
        artifact_dir=args.artifact_dir,
        resume=args.resume,
        device=args.device,
        setup=args.setup,
    )
    learner = Learner(config)
    learner.fit()
    return 101 if learner.panicked else 0  # a Rust panic's exit status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m trainer", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("scenarios", help="print the scenario registry as JSON").set_defaults(
        func=cmd_scenarios
    )

    reproduce = commands.add_parser("reproduce", help="run one scenario, print its outcome JSON")
    reproduce.add_argument("scenario")
    reproduce.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    reproduce.add_argument("--fixed", action="store_true", help="run the documented fix instead")
    reproduce.add_argument("--timeout", type=float, default=120.0, help="wall-time limit, seconds")
    reproduce.add_argument(
        "--start", choices=("fresh", "warm"), default="fresh", help="a new interpreter or a fork"
    )
    reproduce.set_defaults(func=cmd_reproduce)

    train = commands.add_parser("train", help="train the reference model")
    train.add_argument("--epochs", type=int, default=4)
    train.add_argument("--artifact-dir", required=True)
    train.add_argument("--resume", type=int, default=None, metavar="EPOCH")
    train.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    train.add_argument("--setup", choices=sorted(burn.SETUPS), default="supervised")
    train.set_defaults(func=cmd_train)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
