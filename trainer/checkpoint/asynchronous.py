"""burn's ``AsyncCheckpointer``: a worker thread behind a rendezvous channel.

The channel has capacity 0 (Rust's ``sync_channel(0)``): ``send`` returns once
the worker has *taken* the message, not once the write is done.  So a save
that fails in the worker cannot be reported to the learner; without an
interrupter the worker panics, its end of the channel closes, and the
learner's next send fails with ``sending on a closed channel`` -- the
misleading ``Can delete ... checkpoint.`` panic of upstream issue #3990.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trainer.checkpoint.file import FileCheckpointer
from trainer.errors import CheckpointerError, Panic


class SendError(Exception):
    """Rust's ``SendError``: the receiving end of the channel is gone."""

    def __init__(self):
        super().__init__("sending on a closed channel")

    def debug(self) -> str:
        return "SendError { .. }"


class RendezvousChannel:
    """A zero-capacity channel: ``send`` blocks until ``recv`` takes the message.

    A sender waiting on a receiver that goes away is woken and fails, as in
    Rust; that is what makes the failure deterministic rather than a race.
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._message: Any = None
        self._full = False
        self._closed = False
        self._busy = False  # the receiver took a message and has not reported it done

    def send(self, message: Any) -> None:
        with self._cond:
            self._cond.wait_for(lambda: not self._full or self._closed)
            if self._closed:
                raise SendError()
            self._message, self._full = message, True
            self._cond.notify_all()
            self._cond.wait_for(lambda: not self._full or self._closed)
            if self._full:  # the receiver left before taking it
                self._message, self._full = None, False
                raise SendError()

    def recv(self) -> Any:
        with self._cond:
            self._cond.wait_for(lambda: self._full)
            message, self._message, self._full = self._message, None, False
            self._busy = True
            self._cond.notify_all()
            return message

    def task_done(self) -> None:
        """The receiver finished with the message it took last."""
        with self._cond:
            self._busy = False
            self._cond.notify_all()

    def wait_idle(self) -> None:
        """Block until the receiver is done with every message it took, or gone.

        Not part of burn's channel: the scenarios use it so that a fault strikes
        between two checkpoint rounds, never under a write still in flight.
        """
        with self._cond:
            self._cond.wait_for(lambda: not self._busy or self._closed)

    def close(self) -> None:
        """Drop the receiving end."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class Interrupter:
    """burn's ``TrainingInterrupter``: a stop flag with an optional reason."""

    def __init__(self):
        self._event = threading.Event()
        self.reason: str | None = None

    def stop(self, reason: str | None = None) -> None:
        self.reason = reason
        self._event.set()

    def should_stop(self) -> bool:
        return self._event.is_set()


@dataclass(frozen=True)
class _Save:
    epoch: int
    record: Any


@dataclass(frozen=True)
class _Delete:
    epoch: int


_END = object()


def print_panic(thread_name: str, message: str, errno: int | None = None) -> None:
    """What Rust's default panic hook prints on stderr."""
    print(f"thread '{thread_name}' panicked:\n{message}", file=sys.stderr, flush=True)


class AsyncCheckpointer:
    """Hands saves and deletes to a worker thread; restores block."""

    def __init__(
        self,
        checkpointer: FileCheckpointer,
        *,
        interrupter: Interrupter | None = None,
        on_panic: Callable[[str, str, int | None], None] = print_panic,
    ):
        self.checkpointer = checkpointer
        self.name = checkpointer.name
        self.interrupter = interrupter
        self.on_panic = on_panic
        self._channel = RendezvousChannel()
        self._thread = threading.Thread(
            target=self._work, name=f"checkpointer-{self.name}", daemon=True
        )
        self._thread.start()

    def save(self, epoch: int, record: Any) -> None:
        # burn: `self.sender.send(..).expect("Can send message to checkpointer thread.")`,
        # so a save either hands the record over and returns Ok, or panics.
        try:
            self._channel.send(_Save(epoch, record))
        except SendError as err:
            raise Panic(f"Can send message to checkpointer thread.: {err.debug()}") from err

    def delete(self, epoch: int) -> None:
        # burn maps the send error into the checkpointer error, so the learner's
        # expect prints `Unknown("sending on a closed channel")`.
        try:
            self._channel.send(_Delete(epoch))
        except SendError as err:
            raise CheckpointerError.unknown(str(err)) from err

    def restore(self, epoch: int) -> Any:
        return self.checkpointer.restore(epoch)

    def wait_idle(self) -> None:
        """Wait until the worker has finished every save and delete handed to it."""
        self._channel.wait_idle()

    def close(self) -> None:
        """burn's ``Drop``: send the end message and join the worker."""
        try:
            self._channel.send(_END)
        except SendError as err:
            raise Panic(
                f"Can send the end message to the checkpointer thread.: {err.debug()}"
            ) from err
        self._thread.join()

    def stop(self) -> None:
        """End the worker without reporting anything: the run has already failed.

        Leaving a worker mid-write while the interpreter shuts down can abort
        the process inside torch, which would hide the panic being reported.
        """
        try:
            self._channel.send(_END)
        except SendError:
            return
        self._thread.join()

    def _work(self) -> None:
        try:
            while (message := self._channel.recv()) is not _END:
                handled = self._handle(message)
                self._channel.task_done()
                if not handled:
                    return  # the worker panicked: its end of the channel closes
        finally:
            self._channel.close()

    def _handle(self, message: _Save | _Delete) -> bool:
        try:
            if isinstance(message, _Save):
                self.checkpointer.save(message.epoch, message.record)
            else:
                self.checkpointer.delete(message.epoch)
            return True
        except CheckpointerError as err:
            what = "saving" if isinstance(message, _Save) else "deleting"
            return self._fail(f"Error when {what} the state: {err}", err)

    def _fail(self, reason: str, err: CheckpointerError) -> bool:
        if self.interrupter is not None:
            self.interrupter.stop(reason)
            return True
        self.on_panic(self._thread.name, reason, err.errno)
        return False
