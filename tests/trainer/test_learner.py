"""The learner: it learns, checkpoints like burn, resumes exactly, and panics with burn's texts."""

from pathlib import Path

import pytest
import torch

from trainer.errors import Panic, TrainingInterrupted
from trainer.learner import Learner


def _files(config):
    return sorted(p.name for p in (Path(config.artifact_dir) / "checkpoint").iterdir())


def test_it_reduces_the_validation_loss(config):
    learner = Learner(config)
    learner.fit()
    assert learner.valid_losses[config.epochs] < learner.valid_losses[1] * 0.9


def test_it_keeps_burns_default_checkpoints(config):
    learner = Learner(config)
    learner.fit()
    assert learner.kept_epochs == {3, 4}
    assert _files(config) == [
        f"{n}-{e}.bpk" for n in ("model", "optim", "scheduler") for e in (3, 4)
    ]


def test_it_resumes_with_the_state_of_an_uninterrupted_run(config, tmp_path):
    straight = Learner(config.with_overrides(artifact_dir=str(tmp_path / "straight")))
    straight.fit()
    first = Learner(config)
    first.fit(stop_after=2)
    resumed = Learner(config.with_overrides(resume=2))
    resumed.fit()
    for a, b in zip(
        straight.model.state_dict().values(), resumed.model.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b)
    for a, b in zip(
        straight.optimizer.state.values(), resumed.optimizer.state.values(), strict=True
    ):
        assert all(torch.equal(a[k], b[k]) for k in ("step", "exp_avg", "exp_avg_sq"))
    assert straight.scheduler.state_dict() == resumed.scheduler.state_dict()


def test_it_resumes_with_the_async_checkpointer(config):
    Learner(config.with_overrides(checkpointer="async")).fit(stop_after=3)
    resumed = Learner(config.with_overrides(checkpointer="async", resume=3))
    resumed.fit()
    assert resumed.epochs_run == config.epochs


def test_it_panics_with_burns_save_text(config):
    def link_optimizer_to_dev_full(epoch):
        if epoch == 2:
            learner.checkpointers["optim"].path_for(2).symlink_to("/dev/full")

    learner = Learner(config, before_checkpoint=link_optimizer_to_dev_full)
    with pytest.raises(Panic) as caught:
        learner.fit()
    path = learner.checkpointers["optim"].path_for(2)
    assert caught.value.message == (
        f"Can save optimizer checkpoint.: Record(Io(\"I/O error: cannot write to '{path}': "
        'No space left on device (os error 28)"))'
    )
    assert caught.value.errno == 28


def test_it_panics_with_burns_load_text_for_a_missing_epoch(config):
    with pytest.raises(Panic) as caught:
        Learner(config.with_overrides(resume=1)).fit()
    assert caught.value.message == (
        "Can load model checkpoint.: "
        'Record(Io("I/O error: No such file or directory (os error 2)"))'
    )


def test_it_reports_the_worker_error_then_the_closed_channel(config):
    def break_model_file(epoch):
        if epoch == 3:
            learner.checkpointers["model"].checkpointer.path_for(3).symlink_to("/dev/full")

    learner = Learner(
        config.with_overrides(checkpointer="async"), before_checkpoint=break_model_file
    )
    with pytest.raises(Panic) as caught:
        learner.fit()
    assert (
        caught.value.message
        == 'Can delete model checkpoint.: Unknown("sending on a closed channel")'
    )
    [(worker_message, errno)] = learner.worker_panics
    assert worker_message.startswith("Error when saving the state: ")
    assert errno == 28


def test_it_stops_with_training_interrupted_when_an_interrupter_is_attached(config):
    def break_model_file(epoch):
        if epoch == 2:
            learner.checkpointers["model"].checkpointer.path_for(2).symlink_to("/dev/full")

    learner = Learner(
        config.with_overrides(checkpointer="async", interrupter=True),
        before_checkpoint=break_model_file,
    )
    with pytest.raises(TrainingInterrupted) as caught:
        learner.fit()
    assert str(caught.value).startswith("Training interrupted: Error when saving the state: ")
    assert learner.worker_panics == []


def test_it_loads_initial_weights_and_panics_on_a_foreign_file(config, tmp_path):
    weights = tmp_path / "weights.pt"
    torch.save(Learner(config).model.state_dict(), weights)
    with pytest.raises(Panic) as caught:
        Learner(config.with_overrides(init_from=str(weights)))
    assert caught.value.message == 'Failed to load module from file: Io("Invalid magic number")'


def test_it_rejects_an_unknown_checkpointer(config):
    with pytest.raises(ValueError, match="unknown checkpointer"):
        Learner(config.with_overrides(checkpointer="carrier-pigeon"))
