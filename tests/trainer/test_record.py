"""The record format: the writer keeps the OS error, the reader reports burn's texts."""

import errno
import os
import struct

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from trainer.errors import RecordError
from trainer.model import MLP
from trainer.record import (
    HEADER_SIZE,
    MAGIC,
    apply_module_record,
    decode,
    encode,
    module_record,
    read_record,
    write_record,
)


def _record():
    return {
        "weight": torch.arange(6, dtype=torch.float32).reshape(2, 3),
        "step": 3,
        "nested": {1: [0.5, None]},
    }


def test_it_round_trips_tensors_and_plain_values(tmp_path):
    path = tmp_path / "r.bpk"
    write_record(path, _record())
    back = read_record(path)
    assert torch.equal(back["weight"], _record()["weight"])
    assert back["step"] == 3
    assert back["nested"] == {1: [0.5, None]}  # int keys survive


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), min_size=0, max_size=3))
def test_it_round_trips_any_shape(shape):
    tensor = torch.randn(shape)
    assert torch.equal(decode(encode({"t": tensor}))["t"], tensor)


def test_it_reports_a_full_disk_with_its_errno_and_path(tmp_path):
    path = tmp_path / "model-1.bpk"
    path.symlink_to("/dev/full")
    with pytest.raises(RecordError) as caught:
        write_record(path, _record())
    assert caught.value.message == (
        f"I/O error: cannot write to '{path}': No space left on device (os error 28)"
    )
    assert caught.value.errno == errno.ENOSPC


def test_it_does_not_create_parent_directories(tmp_path):
    path = tmp_path / "missing" / "model-1.bpk"
    with pytest.raises(RecordError) as caught:
        write_record(path, _record())
    assert caught.value.message == (
        f"I/O error: cannot create '{path}': No such file or directory (os error 2)"
    )
    assert not path.parent.exists()


def test_it_truncates_in_place(tmp_path):
    path = tmp_path / "r.bpk"
    path.write_bytes(b"x" * 100_000)
    inode = path.stat().st_ino
    write_record(path, _record())
    assert path.stat().st_ino == inode  # same file, rewritten: not an atomic rename
    assert path.stat().st_size < 100_000


def test_it_reports_a_missing_file_without_the_path(tmp_path):
    with pytest.raises(RecordError) as caught:
        read_record(tmp_path / "nope.bpk")
    assert caught.value.debug() == 'Io("I/O error: No such file or directory (os error 2)")'


def test_it_reports_a_file_shorter_than_its_header():
    with pytest.raises(RecordError) as caught:
        decode(MAGIC)
    assert caught.value.message == "I/O error: failed to fill whole buffer"


def test_it_reports_a_foreign_file(tmp_path):
    path = tmp_path / "weights.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(RecordError) as caught:
        read_record(path)
    assert caught.value.message == "Invalid magic number"


def test_it_reports_an_unsupported_version():
    data = bytearray(encode(_record()))
    struct.pack_into("<H", data, 4, 99)
    with pytest.raises(RecordError) as caught:
        decode(bytes(data))
    assert caught.value.message == "Unsupported version"


def test_it_reads_an_older_version_as_burn_does():
    data = bytearray(encode(_record()))
    struct.pack_into("<H", data, 4, 0)  # reader.rs:242: only a newer version is refused
    assert decode(bytes(data))["step"] == 3


@pytest.mark.parametrize("inside", [1, 10])
def test_it_reports_a_file_cut_inside_its_metadata_as_burn_pack_does(tmp_path, inside):
    path = tmp_path / "cut.bpk"
    path.write_bytes(encode(_record())[: HEADER_SIZE + inside])
    with pytest.raises(RecordError) as caught:
        read_record(path)  # read_exact of the metadata (reader.rs:83)
    assert caught.value.debug() == 'Io("I/O error: failed to fill whole buffer")'


def test_it_reports_metadata_that_does_not_deserialize_with_burns_text(tmp_path):
    data = bytearray(encode(_record()))
    data[HEADER_SIZE] = ord("#")  # the first byte of the metadata
    path = tmp_path / "garbled.bpk"
    path.write_bytes(bytes(data))
    with pytest.raises(RecordError) as caught:
        read_record(path)
    # base.rs:338 with the decoder's own message (reader.rs:255-258)
    assert caught.value.message.startswith("Metadata deserialization error: ")
    assert "Invalid metadata" not in caught.value.message


def test_it_appends_the_extension_to_a_bare_path_that_does_not_exist(tmp_path):
    write_record(tmp_path / "model.bpk", _record())
    assert read_record(tmp_path / "model")["step"] == 3  # reader.rs:63-64


def test_it_reads_a_bare_path_that_exists_as_it_is(tmp_path):
    (tmp_path / "model").write_bytes(encode({"step": 1}))
    write_record(tmp_path / "model.bpk", {"step": 2})
    assert read_record(tmp_path / "model")["step"] == 1


def test_the_writer_appends_the_extension_to_a_bare_path(tmp_path):
    write_record(tmp_path / "model", {"step": 1})  # writer.rs:211-212
    assert [p.name for p in tmp_path.iterdir()] == ["model.bpk"]


def test_it_appends_nothing_to_a_path_with_an_extension(tmp_path):
    write_record(tmp_path / "model.bpk", _record())
    with pytest.raises(RecordError) as caught:
        read_record(tmp_path / "model.mpk")
    assert caught.value.debug() == 'Io("I/O error: No such file or directory (os error 2)")'


@pytest.mark.parametrize("past_metadata", [0, 23])
def test_it_reports_a_file_cut_short_of_its_metadata_end_plus_the_last_tensor_end(past_metadata):
    data = encode(_record())
    (metadata_size,) = struct.unpack_from("<I", data, 6)
    metadata_end = HEADER_SIZE + metadata_size
    cut = data[: metadata_end + past_metadata]
    with pytest.raises(RecordError) as caught:
        decode(cut)
    # reader.rs:286-292: the only tensor ends 24 bytes into the data section; the padding
    # before that section is not counted.
    assert caught.value.message == (
        "Validation error: File truncated: expected at least "
        f"{metadata_end + 24} bytes, got {len(cut)} bytes"
    )


def test_it_reports_only_the_first_failing_check_mismatches_first():
    record = module_record(MLP(4, 8, 2))
    record["extra.weight"] = record.pop("output.bias")
    record["hidden.weight"] = torch.zeros(4, 9)
    with pytest.raises(RecordError) as caught:
        apply_module_record(MLP(4, 8, 2), record)
    # burn's Linear weight is [d_input, d_output]: PyTorch's [8, 4] is [4, 8] in a record.
    assert caught.value.debug() == (
        'Validation("Apply errors: [\\"hidden.weight: shape mismatch, '
        'expected Shape { dims: [4, 8] } but record has Shape { dims: [4, 9] }\\"]")'
    )


def test_it_reports_a_record_in_pytorchs_layout_as_mis_shaped():
    with pytest.raises(RecordError) as caught:
        apply_module_record(MLP(4, 8, 2), MLP(4, 8, 2).state_dict())
    assert str(caught.value) == (
        'Record validation error: Apply errors: ["hidden.weight: shape mismatch, expected '
        'Shape { dims: [4, 8] } but record has Shape { dims: [8, 4] }", "output.weight: shape '
        'mismatch, expected Shape { dims: [8, 2] } but record has Shape { dims: [2, 8] }"]'
    )


def test_it_reports_missing_then_unused_tensors():
    record = module_record(MLP(4, 8, 2))
    record["extra.weight"] = record.pop("output.bias")
    with pytest.raises(RecordError) as caught:
        apply_module_record(MLP(4, 8, 2), record)
    assert str(caught.value) == 'Record validation error: Missing tensors: ["output.bias"]'
    del record["extra.weight"]
    record["output.bias"] = torch.zeros(2)
    record["extra.weight"] = torch.zeros(1)
    with pytest.raises(RecordError) as caught:
        apply_module_record(MLP(4, 8, 2), record)
    assert str(caught.value) == 'Record validation error: Unused tensors: ["extra.weight"]'


def test_it_applies_a_fitting_record():
    source, target = MLP(4, 8, 2), MLP(4, 8, 2)
    record = module_record(source)
    assert record["hidden.weight"].shape == (4, 8)  # burn's [d_input, d_output]
    apply_module_record(target, record)
    assert all(
        torch.equal(a, b) for a, b in zip(source.parameters(), target.parameters(), strict=True)
    )


def test_it_leaves_a_partial_file_when_the_write_fails(tmp_path):
    # EFBIG only because this test's interpreter ignores SIGXFSZ: a Rust program (and the
    # scenario process) is killed by the signal instead. The writer's behaviour is the point.
    import resource

    path = tmp_path / "big.bpk"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, hard))
    try:
        with pytest.raises(RecordError) as caught:
            write_record(path, {"t": torch.zeros(1000)})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert caught.value.errno == errno.EFBIG
    assert "File too large (os error 27)" in caught.value.message
    assert os.path.getsize(path) == 1024
