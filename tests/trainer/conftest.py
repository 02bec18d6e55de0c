"""Shared fixtures for the reference trainer's tests (no Django, no database)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from trainer.config import TrainConfig


@pytest.fixture
def config(tmp_path) -> TrainConfig:
    """The supervised launcher's set-up (burn main), writing into the test's temp dir."""
    return TrainConfig(artifact_dir=str(tmp_path / "artifacts"))


@pytest.fixture(scope="session")
def scenario_outcomes(request):
    """Outcomes of every (scenario, variant, start) the session's tests ask for, two at a time.

    A test's ``start`` parameter (default fresh) asks for that start and a fresh
    one, to compare with.  Runs are started together up front so the 2-core CI
    machine stays busy; each test then waits for its own future.
    """
    from trainer.runner import run_scenario

    wanted = sorted(
        {
            key
            for item in request.session.items
            if hasattr(item, "callspec") and "scenario_name" in item.callspec.params
            for key in _outcome_keys(item.callspec.params)
        }
    )
    pool = ThreadPoolExecutor(max_workers=2)
    futures = {
        key: pool.submit(run_scenario, key[0], variant=key[1], start=key[2]) for key in wanted
    }
    yield futures
    pool.shutdown(cancel_futures=True)


def _outcome_keys(params: dict) -> set[tuple[str, str, str]]:
    name, variant = params["scenario_name"], params["variant"]
    return {(name, variant, "fresh"), (name, variant, params.get("start", "fresh"))}
