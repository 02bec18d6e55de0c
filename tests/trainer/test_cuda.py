"""On a GPU host, scenarios run with --device cuda.

Records are saved from CPU copies and loaded onto the GPU.
"""

import pytest

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this host"),
]


@pytest.mark.parametrize(
    "name",
    [
        "supervised-dev-full-model",
        "hand-built-dev-full-model",
        "resume-missing-optimizer-file",
        "init-changed-architecture",
    ],
)
def test_it_reproduces_on_cuda(name):
    from trainer.runner import run_scenario

    outcome = run_scenario(name, device="cuda")
    assert outcome["status"] == "reproduced", outcome
    assert outcome["device"] == "cuda"
    assert run_scenario(name, device="cuda", variant="fixed")["status"] == "fixed"


def test_it_resumes_on_cuda_from_cpu_records(tmp_path):
    from trainer.config import TrainConfig
    from trainer.learner import Learner

    config = TrainConfig(artifact_dir=str(tmp_path), device="cuda")
    Learner(config).fit(stop_after=2)
    resumed = Learner(config.with_overrides(resume=2))
    resumed.fit()
    assert next(resumed.model.parameters()).is_cuda
