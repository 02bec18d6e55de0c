"""burn v0.19.1's file recorder: a record that does not decode into the loading module's
record, and the metadata it compares then (recorder.rs:58-105 at v0.19.1)."""

import errno

import msgpack
import pytest
import torch

from trainer.errors import RecorderError
from trainer.model import MLP
from trainer.record import module_record
from trainer.recorder import (
    COMPACT_RECORDER_METADATA_19,
    compact_record,
    load_module_record_19,
    read_recorded,
    write_recorded,
)


def _state(extra_layer=False):
    return module_record(MLP(4, 3, 2, extra_layer))


def test_it_loads_the_item_of_a_record_that_fits(tmp_path):
    write_recorded(tmp_path / "model-1.mpk", _state())
    item = read_recorded(tmp_path / "model-1.mpk", like=_state())
    assert list(item) == list(_state())


def test_it_wraps_a_missing_field_in_unable_to_load_record(tmp_path):
    write_recorded(tmp_path / "model-1.mpk", _state())
    with pytest.raises(RecorderError) as caught:
        read_recorded(tmp_path / "model-1.mpk", like=_state(extra_layer=True))
    assert caught.value.debug() == (
        'Unknown("Unable to load record.\\nError: Unknown(\\"missing field `extra`\\")")'
    )


def test_it_ignores_fields_the_module_no_longer_has(tmp_path):
    write_recorded(tmp_path / "model-1.mpk", _state(extra_layer=True))
    item = read_recorded(tmp_path / "model-1.mpk", like=_state())
    model = MLP(4, 3, 2)
    load_module_record_19(model, item)
    # The record holds burn's [d_input, d_output]; the module PyTorch's [out, in].
    assert torch.equal(model.output.weight, item["output.weight"].t())


def test_it_reports_a_nested_missing_field_while_reading_its_entry(tmp_path):
    state = _state()
    del state["hidden.bias"]  # the file's `hidden` entry lacks `bias`; `output` is intact
    write_recorded(tmp_path / "model-1.mpk", state)
    with pytest.raises(RecorderError, match="missing field `bias`"):
        read_recorded(tmp_path / "model-1.mpk", like=_state())


def test_it_names_each_metadata_field_that_differs_in_burns_order(tmp_path):
    older = COMPACT_RECORDER_METADATA_19 | {"version": "0.8.0", "float": "f32"}
    record = msgpack.unpackb(compact_record(_state())) | {"metadata": older}
    (tmp_path / "model-1.mpk").write_bytes(msgpack.packb(record))
    with pytest.raises(RecorderError) as caught:
        read_recorded(tmp_path / "model-1.mpk", like=_state(extra_layer=True))
    assert caught.value.message == (
        "Unable to load record.\n"
        'Metadata has a different float type: Actual "f32", Expected "half::binary16::f16"\n'
        'Metadata has a different Burn version: Actual "0.8.0", Expected "0.19.1"\n'
        'Error: Unknown("missing field `extra`")'
    )


def test_it_reports_a_missing_file_as_file_not_found(tmp_path):
    with pytest.raises(RecorderError) as caught:
        read_recorded(tmp_path / "model-9.mpk", like=_state())
    assert caught.value.errno == errno.ENOENT
    assert caught.value.debug() == 'FileNotFound("No such file or directory (os error 2)")'
