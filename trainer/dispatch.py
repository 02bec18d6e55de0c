"""burn's ``Dispatch`` backend (crates/burn-dispatch, 0.21): the kind of device a tensor is on.

torch has no autodiff-vs-plain device: any tensor can require grad wherever it lives. burn's
Dispatch backend has one: ``DispatchDevice::Autodiff(inner)`` holds tensors tracked by
autodiff, a backend's own device (``Cpu``, ``Cuda``, …) plain ones, and moving a float tensor
from one kind to the other panics. So the learner of a Dispatch set-up carries, beside its
torch device, the ``DispatchDevice`` its model's parameters are on, and moves it as burn does.
Every line cited is at v0.21.0 (546cacb5).
"""

from __future__ import annotations

from dataclasses import dataclass

from trainer import burn
from trainer.errors import Panic

# A backend's device as DispatchDevice's Debug names it (device.rs:119-145), by torch device.
_BACKENDS = {"cpu": "Cpu", "cuda": "Cuda"}


@dataclass(frozen=True, eq=False)
class DispatchDevice:
    """A Dispatch device: a backend's device, or ``Autodiff`` around one."""

    backend: str  # the (inner) backend's device, e.g. "Cpu"
    autodiff: bool = False

    @classmethod
    def default(cls, torch_device: str) -> DispatchDevice:
        """``DispatchDevice::default()`` (device.rs:147-181): the first enabled backend's
        device, never an autodiff one. The backend is the one the run trains on."""
        return cls(_BACKENDS[torch_device])

    def to_autodiff(self) -> DispatchDevice:
        """``DispatchDevice::autodiff(device)``, as burn's MNIST example builds its device
        (examples/mnist/examples/mnist.rs:45)."""
        return DispatchDevice(self.backend, autodiff=True)

    def __eq__(self, other: object) -> bool:
        """``PartialEq`` (device.rs:183-193): an autodiff device equals its inner device."""
        if not isinstance(other, DispatchDevice):
            return NotImplemented
        return self.backend == other.backend

    def __hash__(self) -> int:
        return hash(self.backend)

    def __repr__(self) -> str:  # the Debug of device.rs:119-145, the inner device's elided
        return f"Autodiff({self.backend})" if self.autodiff else self.backend


def float_to_device(tensor: DispatchDevice, device: DispatchDevice) -> DispatchDevice:
    """The device a float tensor on ``tensor`` is on after ``float_to_device(device)``
    (ops/tensor.rs:38-50): autodiff to autodiff, or a backend's device to a backend's
    (macros.rs:187-229); any other pair is the catch-all arm, a panic (macros.rs:230-231),
    reported at the ``float_to_device!`` call (ops/tensor.rs:39:9)."""
    if tensor.autodiff != device.autodiff:
        raise Panic.at(burn.DISPATCH["to_device"])
    return device


def load_record(param: DispatchDevice, record: DispatchDevice) -> DispatchDevice:
    """The device of a parameter after ``load_record`` of a record on ``record``
    (param/tensor.rs:116-127): moved to the parameter's device only when the devices
    differ, and to Dispatch ``Autodiff(d)`` equals ``d``: the record's device then stays."""
    if record != param:
        return float_to_device(record, param)
    return record
