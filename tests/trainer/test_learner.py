"""The learner: it learns, checkpoints like burn, resumes exactly, and prints burn's texts."""

import threading
from pathlib import Path

import pytest
import torch

from trainer.errors import Abort
from trainer.learner import Learner


def _files(config):
    return sorted(p.name for p in (Path(config.artifact_dir) / "checkpoint").iterdir())


def _texts(learner):
    return [p.text for p in learner.printed]


def _panics(learner):
    """The panics alone, without what the launcher's logger prints before each."""
    return [p for p in learner.printed if p.kind == "panic"]


def _dev_full_at(learner_ref, name, epoch):
    def strike(current):
        if current == epoch:
            learner = learner_ref()
            learner.wait_for_checkpointers()
            learner.checkpointers[name].checkpointer.path_for(epoch).symlink_to("/dev/full")

    return strike


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


def test_it_numbers_the_rl_checkpoints_by_step_and_never_deletes_by_default(config):
    Learner(config.with_overrides(setup="rl")).fit()
    names = ("learning-agent", "policy")
    # composed keep-last-2 + metric at step counts: keep-last lets go of N - 2 only
    assert _files(config) == [f"{n}-{e}0000.bpk" for n in names for e in (1, 2, 3, 4)]


def test_it_deletes_step_minus_two_with_a_keep_last_strategy_which_is_never_a_file(config):
    learner = Learner(config.with_overrides(setup="rl-keep-last"))
    assert [type(a).__name__ for a in learner.strategy.checkpointing(20000)] == ["Save", "Delete"]
    assert learner.strategy.checkpointing(30000)[1].epoch == 29998
    learner.fit()
    names = ("learning-agent", "policy")
    assert _files(config) == [f"{n}-{e}0000.bpk" for n in names for e in (1, 2, 3, 4)]


def test_it_writes_recorder_files_in_the_0_19_set_up(config):
    Learner(config.with_overrides(setup="learner-builder")).fit()
    assert _files(config) == [
        f"{n}-{e}.mpk" for n in ("model", "optim", "scheduler") for e in (3, 4)
    ]


def test_it_refuses_a_set_up_burn_does_not_have(config):
    with pytest.raises(ValueError, match="unknown set-up"):
        Learner(config.with_overrides(setup="sync-checkpointer"))


def test_it_resumes_with_the_state_of_an_uninterrupted_run(config, tmp_path):
    straight = Learner(config.with_overrides(artifact_dir=str(tmp_path / "straight")))
    straight.fit()
    Learner(config).fit(stop_after=2)
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


def test_it_checkpoints_burns_optimizer_and_scheduler_records_at_main(config):
    from trainer.record import param_id, unpack

    learner = Learner(config)
    learner.fit(stop_after=1)
    directory = Path(config.artifact_dir) / "checkpoint"
    optim = unpack((directory / "optim-1.bpk").read_bytes())
    names = [name for name, _ in learner.model.named_parameters()]
    assert optim.metadata == {str(param_id(name)): name for name in names}
    assert {t.name for t in optim.tensors} == {
        f"{param_id(name)}.momentum.{field}" for name in names for field in ("moment_1", "moment_2")
    }
    assert all(t.name.startswith(f"{t.param_id}.") for t in optim.tensors)
    scheduler = unpack((directory / "scheduler-1.bpk").read_bytes())
    steps = int(learner.optimizer.state[learner.model.hidden.weight]["step"])
    assert scheduler.tensors == [] and scheduler.scalars == {"current_iter": ("UInt", steps - 1)}


def test_it_resumes_the_0_19_set_up_from_its_half_precision_records(config, tmp_path):
    builder = config.with_overrides(setup="learner-builder")
    stopped = Learner(builder)
    stopped.fit(stop_after=2)
    resumed = Learner(builder.with_overrides(resume=2))
    resumed.load_checkpoint(2)
    # The schedule's record is an integer, restored exactly; the moments went through f16.
    assert resumed.scheduler.state_dict() == stopped.scheduler.state_dict()
    assert resumed.optimizer.param_groups[0]["lr"] == stopped.optimizer.param_groups[0]["lr"]
    for a, b in zip(
        stopped.optimizer.state.values(), resumed.optimizer.state.values(), strict=True
    ):
        assert a["step"] == b["step"]
        assert torch.equal(a["exp_avg"].half().float(), b["exp_avg"])
    for a, b in zip(stopped.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(a.detach().half().float(), b.detach())


def _settle_after_each_checkpoint(learner):
    """Let the workers finish each round before the next epoch trains.

    burn's workers race its loop: a failed save stops training at the first
    check after the worker sets the interrupter, an epoch later on a busy
    machine.  Waiting pins that check to the next epoch's first batch.
    """
    checkpoint = learner.checkpoint

    def settled(number):
        checkpoint(number)
        learner.wait_for_checkpointers()

    learner.checkpoint = settled


def test_it_stops_with_training_interrupted_logged_under_the_supervised_launcher(config):
    learner = None
    learner = Learner(config, before_checkpoint=_dev_full_at(lambda: learner, "optim", 2))
    _settle_after_each_checkpoint(learner)
    learner.fit()
    path = learner.checkpointers["optim"].checkpointer.path_for(2)
    assert _texts(learner) == [
        "Training interrupted: Record error: `Record I/O error: I/O error: cannot write to "
        f"'{path}': No space left on device (os error 28)`"
    ]
    assert [p.kind for p in learner.printed] == ["log"]
    # log::info! goes to experiment.log, where the launcher's logger sends it; not stderr
    assert learner.printed[0].logged
    assert (
        learner.printed[0]
        .render()
        .startswith(
            " INFO burn_train::learner::supervised::strategies::single::strategy: "
            "Training interrupted: "
        )
    )
    assert learner.epochs_run == 2
    assert not any("Can save" in text for text in _texts(learner))


def test_it_prints_the_worker_panic_then_the_closed_channel_without_interrupter(config):
    learner = None
    learner = Learner(
        config.with_overrides(setup="hand-built"),
        before_checkpoint=_dev_full_at(lambda: learner, "model", 3),
    )
    with pytest.raises(Abort):  # Drop panicked while unwinding: nothing after it runs
        learner.fit()
    panics = _panics(learner)
    texts = [p.text for p in panics]
    assert texts[0].startswith("Error when saving the state: Record error: `Record I/O error: ")
    assert texts[1:] == [
        'Can delete model checkpoint.: Unknown("sending on a closed channel")',
        "Can send the end message to the checkpointer thread.: SendError { .. }",
        "panic in a destructor during cleanup",
    ]
    assert [p.thread for p in panics] == ["<unnamed>", "main", "main", "main"]
    assert panics[1].location == "crates/burn-train/src/learner/base.rs:167:26"
    assert panics[3].location.endswith("library/core/src/panicking.rs:233:5")
    assert panics[0].errno == 28
    assert [p.kind for p in learner.printed] == ["log", "banner", "panic"] * 4 + ["abort"]
    assert _texts(learner)[-1] == "thread caused non-unwinding panic. aborting."


def test_it_prints_burns_0_19_worker_panic_with_the_errors_debug(config):
    def directory_at_model_file(epoch):
        if epoch == 3:
            learner.wait_for_checkpointers()
            learner.checkpointers["model"].checkpointer.path_for(3).mkdir()

    learner = Learner(
        config.with_overrides(setup="learner-builder"),
        before_checkpoint=directory_at_model_file,
    )
    with pytest.raises(Abort):
        learner.fit()
    assert [p.text for p in _panics(learner)] == [
        'Can save the state.: RecorderError(Unknown("Is a directory (os error 21)"))',
        'Can delete model checkpoint.: Unknown("sending on a closed channel")',
        "Can send the end message to the checkpointer thread.: SendError { .. }",
        "panic in a destructor during cleanup",
    ]
    assert _panics(learner)[1].location == "crates/burn-train/src/learner/base.rs:58:26"
    # LearnerBuilder::build installs the same logger (builder.rs:350-354 at v0.19.1): the
    # experiment.log line of tracel-ai/burn#3990, less its timestamp and registry path.
    assert learner.printed[3].render() == (
        "ERROR burn_train::learner::application_logger: PANIC => panicked at "
        "crates/burn-train/src/learner/base.rs:58:26:\n"
        'Can delete model checkpoint.: Unknown("sending on a closed channel")'
    )


def test_it_panics_with_burns_load_text_for_a_missing_epoch(config):
    learner = Learner(config.with_overrides(resume=1))
    learner.fit()
    panic = (
        "Can load model checkpoint.: "
        'Record(Io("I/O error: No such file or directory (os error 2)"))'
    )
    log = Path(config.artifact_dir) / "experiment.log"
    # launch installs the logger, then restores: its hook logs and announces the panic
    assert _texts(learner) == [
        f"PANIC => panicked at crates/burn-train/src/learner/base.rs:200:14:\n{panic}",
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => "
        f"'{log}'\n=============",
        panic,
    ]
    assert [p.logged for p in learner.printed] == [True, False, False]
    assert (
        learner.printed[0]
        .render()
        .startswith("ERROR burn_train::learner::application_logger: PANIC => panicked at ")
    )
    # Rust >= 1.91 names the panicking thread's OS id: here the thread that ran fit()
    assert learner.printed[2].render() == (
        f"thread 'main' ({threading.get_native_id()}) panicked at "
        f"crates/burn-train/src/learner/base.rs:200:14:\n{panic}"
    )


def test_it_loads_initial_weights_and_panics_on_a_foreign_file(config, tmp_path):
    from trainer.errors import Panic

    weights = tmp_path / "weights.pt"
    torch.save(Learner(config).model.state_dict(), weights)
    with pytest.raises(Panic) as caught:
        Learner(config.with_overrides(init_from=str(weights)))
    assert caught.value.message == 'Failed to load module from file: Io("Invalid magic number")'
    assert caught.value.location == "crates/burn-core/src/module/base.rs:337:14"


def _steps(learner) -> int:
    return learner.scheduler.last_epoch  # stepped once per training item


def test_it_checks_the_interrupter_after_each_item_so_one_more_step_runs(config):
    learner = Learner(config)
    learner.interrupter.stop("a reason given before the epoch")
    learner.fit()
    # single/epoch.rs:135: the item is trained, then the check breaks the loop; the strategy
    # then logs the reason (single/strategy.rs:83-90) before any validation.
    assert _steps(learner) == 1
    assert _texts(learner) == ["Training interrupted: a reason given before the epoch"]
    assert learner.epochs_run == 0


def test_it_runs_every_item_without_a_stop(config):
    learner = Learner(config.with_overrides(epochs=1))
    learner.fit()
    assert _steps(learner) == -(-config.train_samples // config.batch_size)
