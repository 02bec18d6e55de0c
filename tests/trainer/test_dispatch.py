"""The Dispatch device kind the learner of a Dispatch set-up carries (burn-dispatch, 0.21)."""

import pytest

from trainer import burn
from trainer.dispatch import DispatchDevice, float_to_device, load_record
from trainer.errors import Panic

CPU = DispatchDevice.default("cpu")
AUTODIFF = CPU.to_autodiff()


def test_the_default_device_is_never_an_autodiff_one():
    assert not DispatchDevice.default("cpu").autodiff
    assert not DispatchDevice.default("cuda").autodiff
    assert AUTODIFF.autodiff and repr(AUTODIFF) == "Autodiff(Cpu)"


def test_an_autodiff_device_equals_its_inner_device_as_dispatchs_partial_eq_says():
    assert AUTODIFF == CPU and CPU == AUTODIFF
    assert DispatchDevice.default("cuda") != AUTODIFF


def test_it_moves_between_devices_of_one_kind():
    assert float_to_device(CPU, DispatchDevice.default("cuda")) == DispatchDevice.default("cuda")
    moved = float_to_device(AUTODIFF, AUTODIFF)
    assert moved.autodiff


@pytest.mark.parametrize("source, target", [(CPU, AUTODIFF), (AUTODIFF, CPU)])
def test_it_panics_between_autodiff_and_non_autodiff_at_the_macros_call(source, target):
    with pytest.raises(Panic) as raised:
        float_to_device(source, target)
    assert raised.value.message == "Cannot move between autodiff and non-autodiff instances."
    assert raised.value.location == "crates/burn-dispatch/src/ops/tensor.rs:39:9"
    assert raised.value.site is burn.DISPATCH["to_device"]


def test_load_record_keeps_the_records_device_when_dispatch_calls_them_equal():
    kept = load_record(AUTODIFF, CPU)  # param on Autodiff(Cpu), record on Cpu: no move
    assert not kept.autodiff
    with pytest.raises(Panic):  # another backend's plain device: moved, across kinds
        load_record(AUTODIFF, DispatchDevice.default("cuda"))
    assert load_record(AUTODIFF, AUTODIFF).autodiff
