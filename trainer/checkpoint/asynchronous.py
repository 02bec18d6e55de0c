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

from trainer import burn
from trainer.checkpoint.file import FileCheckpointer
from trainer.errors import CheckpointerError, Panic, Printed


class SendError(Exception):
    """Rust's ``SendError``: the receiving end of the channel is gone."""

    def __init__(self):
        super().__init__(burn.STD["send_error_display"])

    def debug(self) -> str:
        return burn.STD["send_error_debug"]


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

    @property
    def closed(self) -> bool:
        return self._closed


class Interrupter:
    """burn's ``Interrupter``: a stop flag with an optional reason (learner/base.rs:222-260)."""

    def __init__(self):
        self._event = threading.Event()
        self.reason: str | None = None
        self.errno: int | None = None  # not burn's: the OS error behind the reason, for outcomes

    def stop(self, reason: str | None = None, *, errno: int | None = None) -> None:
        # learner/base.rs:238-244: the flag is set; a reason replaces the earlier one,
        # and `None` keeps it.
        self._event.set()
        if reason is not None:
            self.reason, self.errno = reason, errno

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
OnPanic = Callable[[Printed], None]


def print_panic(printed: Printed) -> None:
    """What Rust's default panic hook prints on stderr."""
    print(printed.render(), file=sys.stderr, flush=True)


class AsyncCheckpointer:
    """burn's ``AsyncCheckpointer``: saves and deletes go to a worker thread; restores wait.

    What the worker does with a failed save or delete depends on the release:
    on main it stops training through the interrupter when one is attached
    (``with_interrupter``) and panics ``Error when saving the state: {err}``
    otherwise; v0.19.1 has no interrupter and panics ``Can save the state.: {err:?}``.
    A panicking worker drops its receiver, so the learner's next send fails.
    """

    def __init__(
        self,
        checkpointer: FileCheckpointer,
        *,
        interrupter: Interrupter | None = None,
        on_panic: OnPanic = print_panic,
    ):
        self.checkpointer = checkpointer
        self.name = checkpointer.name
        self.release = checkpointer.release
        if interrupter is not None and not self.release.worker_shows_display:
            raise ValueError(f"burn {self.release.name} has no interrupter for checkpointers")
        self.interrupter = interrupter
        self.on_panic = on_panic
        self.crash: BaseException | None = None  # a harness failure inside the worker
        self._channel = RendezvousChannel()
        self._thread = threading.Thread(
            target=self._work, name=f"checkpointer-{self.name}", daemon=True
        )
        self._thread.start()

    @property
    def alive(self) -> bool:
        return not self._channel.closed

    def save(self, epoch: int, record: Any) -> None:
        # `self.sender.send(..).expect("Can send message to checkpointer thread.")`:
        # a save either hands the record over and returns Ok, or panics right here.
        try:
            self._channel.send(_Save(epoch, record))
        except SendError as err:
            raise self._send_panic("send", err) from err

    def delete(self, epoch: int) -> None:
        # The send error becomes `CheckpointerError::Unknown(e.to_string())`.
        try:
            self._channel.send(_Delete(epoch))
        except SendError as err:
            raise CheckpointerError.unknown(str(err)) from err

    def restore(self, epoch: int, like: dict[str, Any] | None = None) -> Any:
        # burn sends a Restore message and waits for the answer; the worker reads
        # the file, so the result is the file checkpointer's, read here directly.
        if self._channel.closed:
            raise CheckpointerError.unknown(str(SendError()))
        self.wait_idle()
        return self.checkpointer.restore(epoch, like)

    def wait_idle(self) -> None:
        """Wait until the worker has finished every save and delete handed to it."""
        self._channel.wait_idle()
        self._raise_crash()

    def close(self) -> None:
        """burn's ``Drop``: send the end message (or panic) and join the worker."""
        try:
            self._channel.send(_END)
        except SendError as err:
            self._raise_crash()
            raise self._send_panic("send_end", err) from err
        self._thread.join()
        self._raise_crash()

    def stop(self) -> None:
        """End a live worker quietly: the process is aborting after a panic in a panic.

        Leaving a worker mid-write while the interpreter shuts down can abort
        the process inside torch, which would hide the panic being reported.
        """
        try:
            self._channel.send(_END)
        except SendError:
            return
        self._thread.join()

    def _send_panic(self, key: str, err: SendError) -> Panic:
        return Panic(
            burn.expect(self.release.worker[key].text.format, err.debug()),
            site=self.release.worker[key],
        )

    def _raise_crash(self) -> None:
        if self.crash is not None:
            raise RuntimeError(f"checkpointer worker {self.name} crashed") from self.crash

    def _work(self) -> None:
        try:
            while (message := self._channel.recv()) is not _END:
                handled = self._handle(message)
                self._channel.task_done()
                if not handled:
                    return  # the worker panicked: its end of the channel closes
        except BaseException as err:  # a harness bug: report it, never hang the learner
            self.crash = err
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
            key = "save_failed" if isinstance(message, _Save) else "delete_failed"
            return self._fail(key, err)

    def _fail(self, key: str, err: CheckpointerError) -> bool:
        if self.interrupter is not None:
            self.interrupter.stop(str(err), errno=err.errno)  # `int.stop(Some(&err.to_string()))`
            return True
        site = self.release.worker[key]
        if self.release.worker_shows_display:
            panic = Panic.at(site, err, errno=err.errno)  # panic!("... {err}")
        else:
            panic = Panic(burn.expect(site.text.format, err.debug()), site=site, errno=err.errno)
        self.on_panic(Printed.panic(panic, thread=burn.UNNAMED_THREAD))
        return False
