"""The async checkpointer: a rendezvous channel and a worker that can die."""

import threading
import time

import pytest

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


def _failing_checkpointer(tmp_path, **kwargs):
    file = FileCheckpointer(tmp_path / "checkpoint", "model")
    file.path_for(1).symlink_to("/dev/full")
    panics = []
    checkpointer = AsyncCheckpointer(
        file, on_panic=lambda thread, message, errno: panics.append((message, errno)), **kwargs
    )
    return checkpointer, panics


def test_it_returns_ok_from_a_save_that_fails_in_the_worker(tmp_path):
    checkpointer, panics = _failing_checkpointer(tmp_path)
    checkpointer.save(1, {"x": 1})  # handed over: no error here
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.delete(0)  # the worker died meanwhile
    assert caught.value.debug() == 'Unknown("sending on a closed channel")'
    [(message, errno)] = panics
    assert message.startswith("Error when saving the state: Record error: `Record I/O error: ")
    assert message.endswith("No space left on device (os error 28)`")
    assert errno == 28


def test_it_panics_on_save_and_on_drop_once_the_worker_is_gone(tmp_path):
    checkpointer, _ = _failing_checkpointer(tmp_path)
    checkpointer.save(1, {"x": 1})
    with pytest.raises(Panic, match=r"Can send message to checkpointer thread\.: SendError"):
        checkpointer.save(2, {"x": 1})
    with pytest.raises(Panic, match=r"Can send the end message to the checkpointer thread\."):
        checkpointer.close()


def test_it_stops_training_through_the_interrupter_instead_of_panicking(tmp_path):
    interrupter = Interrupter()
    checkpointer, panics = _failing_checkpointer(tmp_path, interrupter=interrupter)
    checkpointer.save(1, {"x": 1})
    checkpointer.delete(0)  # the worker is still alive
    checkpointer.close()
    assert panics == []
    assert interrupter.should_stop()
    assert interrupter.reason.startswith("Error when saving the state: ")


def test_it_writes_and_deletes_through_the_worker(tmp_path):
    file = FileCheckpointer(tmp_path, "model")
    checkpointer = AsyncCheckpointer(file)
    checkpointer.save(1, {"x": 1})
    checkpointer.close()  # waits for pending work
    assert checkpointer.restore(1) == {"x": 1}
