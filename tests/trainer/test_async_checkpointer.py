"""The async checkpointer: a rendezvous channel and a worker that can die."""

import threading
import time

import pytest
import torch

from trainer.checkpoint import AsyncCheckpointer, FileCheckpointer, Interrupter
from trainer.checkpoint.asynchronous import RendezvousChannel, SendError
from trainer.errors import CheckpointerError, Panic


def test_it_returns_from_send_once_the_receiver_takes_the_message():
    channel = RendezvousChannel()
    taken = threading.Event()

    def receiver():
        time.sleep(0.2)
        channel.recv()
        taken.set()

    threading.Thread(target=receiver).start()
    started = time.monotonic()
    channel.send("hello")
    assert time.monotonic() - started >= 0.15  # it waited for the receiver
    assert taken.wait(1)


def test_it_fails_a_blocked_send_when_the_receiver_goes_away():
    channel = RendezvousChannel()
    threading.Timer(0.1, channel.close).start()
    with pytest.raises(SendError, match="sending on a closed channel"):
        channel.send("lost")


def test_it_waits_until_the_receiver_is_done_with_what_it_took():
    channel = RendezvousChannel()
    finished = threading.Event()

    def receiver():
        channel.recv()
        time.sleep(0.2)  # a slow write
        finished.set()
        channel.task_done()

    threading.Thread(target=receiver).start()
    channel.send("record")
    assert not finished.is_set()  # send returned while the write goes on
    channel.wait_idle()
    assert finished.is_set()


def test_it_stops_waiting_for_idle_when_the_receiver_goes_away():
    channel = RendezvousChannel()
    threading.Thread(target=lambda: (channel.recv(), channel.close())).start()
    channel.send("record")
    channel.wait_idle()  # returns: the receiver left without reporting done


def _failing_checkpointer(tmp_path, *, release="main", **kwargs):
    file = FileCheckpointer(tmp_path / "checkpoint", "model", release=release)
    file.path_for(1).symlink_to("/dev/full") if release == "main" else file.path_for(1).mkdir()
    panics = []
    checkpointer = AsyncCheckpointer(file, on_panic=panics.append, **kwargs)
    return checkpointer, panics


def test_it_returns_ok_from_a_save_that_fails_in_the_worker(tmp_path):
    checkpointer, panics = _failing_checkpointer(tmp_path)
    checkpointer.save(1, {"x": 1})  # handed over: no error here
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.delete(0)  # the worker died meanwhile
    assert caught.value.debug() == 'Unknown("sending on a closed channel")'
    [panic] = panics
    assert panic.text.startswith("Error when saving the state: Record error: `Record I/O error: ")
    assert panic.text.endswith("No space left on device (os error 28)`")
    assert (panic.thread, panic.errno) == ("<unnamed>", 28)
    assert panic.location == "crates/burn-train/src/checkpoint/async_checkpoint.rs:46:32"


def test_it_panics_on_save_and_on_drop_once_the_worker_is_gone(tmp_path):
    checkpointer, _ = _failing_checkpointer(tmp_path)
    checkpointer.save(1, {"x": 1})
    with pytest.raises(Panic, match=r"Can send message to checkpointer thread\.: SendError"):
        checkpointer.save(2, {"x": 1})
    with pytest.raises(Panic, match=r"Can send the end message to the checkpointer thread\."):
        checkpointer.close()


def test_it_answers_a_restore_on_a_dead_worker_with_the_send_error(tmp_path):
    checkpointer, _ = _failing_checkpointer(tmp_path)
    checkpointer.save(1, {"x": 1})
    checkpointer.wait_idle()
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.restore(1)
    assert caught.value.debug() == 'Unknown("sending on a closed channel")'


def test_it_hands_a_failed_0_19_restore_back_and_keeps_its_worker(tmp_path):
    # The worker sends a restore's result, error or not, back through the callback
    # (async_checkpoint.rs:31-35 at v0.19.1): a failed read does not end it.
    file = FileCheckpointer(tmp_path, "model", release="v0.19.1")
    checkpointer = AsyncCheckpointer(file, on_panic=pytest.fail)
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.restore(1)
    assert "FileNotFound" in caught.value.debug()
    assert checkpointer.alive
    checkpointer.save(1, {"x": 1})
    checkpointer.close()
    assert file.restore(1) == {"x": 1}


def test_it_stops_training_through_the_interrupter_with_the_errors_display(tmp_path):
    interrupter = Interrupter()
    checkpointer, panics = _failing_checkpointer(tmp_path, interrupter=interrupter)
    checkpointer.save(1, {"x": 1})
    checkpointer.delete(0)  # the worker is still alive
    checkpointer.close()
    assert panics == []
    assert interrupter.should_stop()
    # `int.stop(Some(&err.to_string()))`: the CheckpointerError's Display, nothing around it.
    assert interrupter.reason.startswith("Record error: `Record I/O error: I/O error: ")


def test_it_panics_with_the_0_19_text_and_the_errors_debug(tmp_path):
    checkpointer, panics = _failing_checkpointer(tmp_path, release="v0.19.1")
    checkpointer.save(1, {"x": 1})
    checkpointer.wait_idle()
    [panic] = panics
    assert panic.text == (
        'Can save the state.: RecorderError(Unknown("Is a directory (os error 21)"))'
    )


def test_it_has_no_interrupter_in_0_19(tmp_path):
    file = FileCheckpointer(tmp_path, "model", release="v0.19.1")
    with pytest.raises(ValueError, match="no interrupter"):
        AsyncCheckpointer(file, interrupter=Interrupter())


def test_it_writes_and_deletes_through_the_worker(tmp_path):
    file = FileCheckpointer(tmp_path, "model")
    checkpointer = AsyncCheckpointer(file)
    checkpointer.save(1, {"x": 1})
    checkpointer.wait_idle()
    assert checkpointer.restore(1) == {"x": 1}
    checkpointer.delete(1)
    checkpointer.close()  # waits for pending work
    assert not file.path_for(1).exists()


def test_it_keeps_the_earlier_reason_when_stopped_without_one():
    interrupter = Interrupter()
    interrupter.stop("Record error: `…`", errno=28)
    interrupter.stop(None)  # learner/base.rs:238-244: only Some(reason) replaces it
    assert interrupter.should_stop()
    assert (interrupter.reason, interrupter.errno) == ("Record error: `…`", 28)
    interrupter.stop("a later reason")
    assert (interrupter.reason, interrupter.errno) == ("a later reason", None)


def test_it_stops_without_a_reason_when_none_was_ever_given():
    interrupter = Interrupter()
    interrupter.stop()
    assert interrupter.should_stop() and interrupter.reason is None


def test_it_writes_the_records_tensors_it_reads_to_the_host(tmp_path):
    file = FileCheckpointer(tmp_path / "checkpoint", "model")
    checkpointer = AsyncCheckpointer(file, on_panic=pytest.fail)
    checkpointer.save(1, {"weight": torch.ones(2)})
    checkpointer.close()
    assert torch.equal(file.restore(1)["weight"], torch.ones(2))
