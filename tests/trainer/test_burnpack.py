"""burnpack as burn-pack writes and reads it, checked against files no one here wrote.

burn's own ``model.bpk`` files (examples/*-inference-web at main, kept under
tests/upstream/burn/) are read and written again byte for byte; the reader's checks follow
burn-pack's tests (tests/header.rs, errors.rs, alignment.rs at main), kept beside them.
"""

import hashlib
import struct

import cbor2
import pytest
import torch

from tests.trainer.learners import trained_learner
from tests.upstream.sources import KEPT
from trainer.errors import RecordError
from trainer.record import (
    HEADER_SIZE,
    MAGIC_NUMBER,
    TENSOR_ALIGNMENT,
    TREE_KEY,
    PackTensor,
    aligned_data_section_start,
    cbor_encode,
    decode,
    encode,
    pack,
    param_id,
    read_record,
    unpack,
)

MAIN = "2c06be351006851d42fdb6df16b976f4a82d9747"
BURN_FILES = [
    KEPT / MAIN / "examples" / "mnist-inference-web" / "model.bpk",
    KEPT / MAIN / "examples" / "remote-inference-web" / "model.bpk",
]
MNIST_SHAPES = {
    "conv1.conv.bias": [64],
    "conv1.conv.weight": [64, 1, 3, 3],
    "conv1.norm.beta": [64],
    "conv1.norm.gamma": [64],
    "conv1.norm.running_mean": [64],
    "conv1.norm.running_var": [64],
    "conv2.conv.bias": [64],
    "conv2.conv.weight": [64, 64, 3, 3],
    "conv2.norm.beta": [64],
    "conv2.norm.gamma": [64],
    "conv2.norm.running_mean": [64],
    "conv2.norm.running_var": [64],
    "fc1.bias": [128],
    "fc1.weight": [1600, 128],
    "fc2.bias": [128],
    "fc2.weight": [128, 128],
    "fc3.bias": [10],
    "fc3.weight": [128, 10],
}


def _f32(name, values, shape, param_id=None):
    """burn-pack's tests/common/mod.rs `f32_tensor`."""
    data = torch.tensor(values, dtype=torch.float32).numpy().tobytes()
    return PackTensor(name, "F32", list(shape), data, param_id)


def _metadata(data: bytes):
    (size,) = struct.unpack_from("<I", data, 6)
    return cbor2.loads(data[HEADER_SIZE : HEADER_SIZE + size]), size


def _fails(data: bytes) -> str:
    with pytest.raises(RecordError) as caught:
        decode(data)
    return caught.value.debug()


# -- burn's files --------------------------------------------------------------


@pytest.mark.parametrize("path", BURN_FILES, ids=lambda p: p.parent.name)
def test_it_reads_burns_own_model_file(path):
    record = read_record(path)
    assert {name: list(t.shape) for name, t in record.items()} == MNIST_SHAPES
    assert list(record) == sorted(MNIST_SHAPES)  # into_tensors: sorted by name
    assert all(t.dtype == torch.float32 for t in record.values())
    digest = hashlib.sha256(b"".join(t.numpy().tobytes() for t in record.values()))
    assert digest.hexdigest() == "128afe192e613473378d2097eae5747004ec2be27b8def71f00297cad1d3b058"
    assert record["fc3.bias"][:3].tolist() == pytest.approx([0.51002616, -0.19103652, -0.20890829])


@pytest.mark.parametrize("path", BURN_FILES, ids=lambda p: p.parent.name)
def test_writing_burns_model_file_again_gives_the_same_bytes(path):
    data = path.read_bytes()
    tensors = unpack(data).tensors
    # The writer places tensors in the order given; burn gave them in module order, which
    # the offsets keep. Names, dtypes, shapes, param ids and bytes come from the file.
    in_written_order = sorted(tensors, key=lambda t: t.data_offsets[0])
    assert pack(in_written_order) == data


def test_burns_model_file_holds_burns_metadata_struct():
    data = BURN_FILES[0].read_bytes()
    metadata, size = _metadata(data)
    assert data[:4] == b"NRUB" and struct.unpack_from("<H", data, 4) == (1,)
    assert list(metadata) == ["tensors"]  # empty `metadata` and `scalars` are left out
    descriptor = metadata["tensors"]["conv1.conv.weight"]
    assert list(descriptor) == ["dtype", "shape", "data_offsets", "param_id"]
    assert descriptor["dtype"] == "F32" and descriptor["data_offsets"] == [0, 2304]
    # No padding after the last tensor: the file ends where the data section does.
    ends = max(d["data_offsets"][1] for d in metadata["tensors"].values())
    assert len(data) == aligned_data_section_start(size) + ends


# -- what the trainer writes ----------------------------------------------------


def test_a_module_record_is_written_as_burn_core_writes_one():
    record = {"output.weight": torch.ones(2, 3), "hidden.bias": torch.arange(3.0)}
    data = encode(record)
    metadata, size = _metadata(data)
    assert struct.unpack_from("<I", data) == (MAGIC_NUMBER,) and data[:4] == b"NRUB"
    assert list(metadata) == ["tensors"]
    assert list(metadata["tensors"]) == ["hidden.bias", "output.weight"]  # BTreeMap order
    assert metadata["tensors"]["output.weight"] == {
        "dtype": "F32",
        "shape": [2, 3],
        "data_offsets": [0, 24],  # written first: the record's order
        "param_id": param_id("output.weight"),
    }
    assert metadata["tensors"]["hidden.bias"]["data_offsets"] == [256, 268]
    start = aligned_data_section_start(size)
    assert start % TENSOR_ALIGNMENT == 0 and start >= HEADER_SIZE + size
    assert data[HEADER_SIZE + size : start] == bytes(start - HEADER_SIZE - size)
    assert data[start + 256 : start + 268] == torch.arange(3.0).numpy().tobytes()
    assert len(data) == start + 268


def test_an_optimizer_record_keeps_numbers_as_burn_pack_scalars():
    record = {"state": {0: {"step": torch.tensor(3.0)}}, "lr": 0.5, "steps": 7, "on": True}
    metadata, _ = _metadata(encode(record))
    assert list(metadata) == ["tensors", "metadata", "scalars"]
    assert metadata["scalars"] == {"lr": {"Float": 0.5}, "on": {"Bool": True}, "steps": {"Int": 7}}
    assert list(metadata["tensors"]) == ["state.0.step"]
    assert list(metadata["metadata"]) == [TREE_KEY]
    back = decode(encode(record))
    assert back == {**record, "state": back["state"]} and back["state"][0]["step"] == 3.0


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float64,
        torch.float16,
        torch.bfloat16,
        torch.int64,
        torch.int8,
        torch.uint8,
        torch.bool,
    ],
)
def test_each_dtype_round_trips_with_burns_name(dtype):
    tensor = torch.tensor([[1, 0, 1]]).to(dtype)
    back = decode(encode({"t": tensor}))["t"]
    assert back.dtype == dtype and torch.equal(back, tensor)


def test_metadata_cbor_is_what_ciborium_writes():
    # Integers and strings: the shortest heads, as cbor2 writes them too.
    value = {"a": [0, 23, 24, 255, 256, 65536, 2**32, 2**64 - 1, -1, -25], "b": "é", "c": False}
    assert cbor_encode(value) == cbor2.dumps(value)
    # Floats: the narrowest width that keeps the value (half, single, then double).
    assert cbor_encode(0.5) == bytes.fromhex("f93800")
    assert cbor_encode(1e-5) == bytes.fromhex("fb3ee4f8b588e368f1")
    assert cbor_encode(float(torch.tensor(0.1, dtype=torch.float32))) == bytes.fromhex("fa3dcccccd")


# -- the reader's checks, in burn's order, with burn's texts -----------------------


def test_header_constants_match_burn_packs_header_test():
    # tests/header.rs: 10 bytes; "BURN" as a u32 whose little-endian bytes read "NRUB".
    assert HEADER_SIZE == 10 and MAGIC_NUMBER == 0x4255524E
    assert struct.pack("<I", MAGIC_NUMBER) == b"NRUB"


def test_data_section_start_is_aligned_as_burn_packs_alignment_test_says():
    for size in [0, 1, 10, 245, 246, 247, 4096]:
        start = aligned_data_section_start(size)
        assert start % 256 == 0 and HEADER_SIZE + size <= start < HEADER_SIZE + size + 256


def test_it_reads_a_pack_without_tensors():
    assert unpack(pack([])).tensors == []  # round_trip.rs `empty_pack`


def test_a_file_shorter_than_the_header_fails_reading_it():
    # errors.rs reads 4 bytes from memory (InvalidHeader); from a file, read_exact fails.
    assert _fails(bytes(4)) == 'Io("I/O error: failed to fill whole buffer")'


def test_a_bad_magic_number_is_refused_before_the_version():
    header = struct.pack("<IHI", 0xDEADBEEF, 99, 0)
    assert _fails(header) == 'Io("Invalid magic number")'


def test_a_future_version_is_refused_before_the_metadata_size():
    header = struct.pack("<IHI", MAGIC_NUMBER, 2, 100 * 1024 * 1024 + 1)
    assert _fails(header) == 'Io("Unsupported version")'


def test_an_oversized_metadata_claim_is_refused_before_reading_it():
    header = struct.pack("<IHI", MAGIC_NUMBER, 1, 100 * 1024 * 1024 + 1)
    assert _fails(header) == (
        'Io("Validation error: Metadata size 104857601 exceeds maximum allowed size of '
        '104857600 bytes (potential DoS attack)")'
    )


def test_a_metadata_size_past_the_end_of_the_file_fails_reading_it():
    header = struct.pack("<IHI", MAGIC_NUMBER, 1, 4096)
    assert _fails(header) == 'Io("I/O error: failed to fill whole buffer")'


def test_metadata_that_is_not_burns_struct_fails_to_deserialize():
    body = cbor_encode({"tensor": {}})
    failure = _fails(struct.pack("<IHI", MAGIC_NUMBER, 1, len(body)) + body)
    assert failure.startswith('Io("Metadata deserialization error: ')


def test_duplicate_tensor_names_are_refused_by_the_writer():
    with pytest.raises(RecordError) as caught:
        pack([_f32("w", [1.0, 2.0], [2]), _f32("w", [3.0, 4.0], [2])])
    assert caught.value.message == "Validation error: Duplicate tensor name 'w'"


def test_a_data_section_cut_in_half_is_truncated():
    data = pack([_f32("w", [float(i) for i in range(512)], [512])])  # errors.rs
    assert len(data) == 2304  # 10 + 51 bytes of metadata, padding to 256, 2048 bytes
    assert _fails(data[:1152]) == (
        'Io("Validation error: File truncated: expected at least 2109 bytes, got 1152 bytes")'
    )


def test_a_file_cut_in_its_last_bytes_passes_the_size_check_and_fails_reading_the_tensor():
    # min_size leaves out the 195 bytes of padding before the data section: 2109 < 2303.
    data = pack([_f32("w", [float(i) for i in range(512)], [512])])
    assert _fails(data[:-1]) == (
        "Io(\"Validation error: Tensor 'w' data range 256..2304 could not be viewed "
        '(source is 2303 bytes)")'
    )


def test_corrupted_offsets_are_refused_by_name():
    body = cbor_encode({"tensors": {"w": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}}})
    data = struct.pack("<IHI", MAGIC_NUMBER, 1, len(body)) + body + bytes(512)
    assert _fails(data) == (
        "Io(\"Validation error: Tensor 'w' has corrupted offset data: end 260 < start 264\")"
    )


def test_more_tensors_than_burn_allows_are_refused_after_decoding_the_metadata():
    descriptor = {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}
    body = cbor_encode({"tensors": {f"t{i:06}": descriptor for i in range(100_001)}})
    data = struct.pack("<IHI", MAGIC_NUMBER, 1, len(body)) + body
    assert _fails(data) == (
        'Io("Validation error: File contains 100001 tensors, exceeding maximum of 100000 '
        '(potential DoS attack)")'
    )


# -- the trainer's records laid out as burn's ---------------------------------------


def _trained(steps=3):
    return trained_learner(steps, epochs=1)


def test_it_lays_out_a_linear_weight_as_burns_own_model_file_does():
    # burn's MNIST example holds fc1 as Linear(1600 -> 128): its record says [1600, 128].
    from trainer.model import MLP
    from trainer.record import module_record

    record = module_record(MLP(1600, 128, 10))
    assert list(record["hidden.weight"].shape) == MNIST_SHAPES["fc1.weight"]
    assert list(record["output.weight"].shape) == MNIST_SHAPES["fc3.weight"]
    assert list(record["output.bias"].shape) == MNIST_SHAPES["fc3.bias"]


def test_it_writes_adamw_state_as_burns_optimizer_record():
    from trainer.layouts import optimizer_record
    from trainer.record import module_record

    _, model, optimizer, _ = _trained(steps=3)
    data = encode(optimizer_record(model, optimizer))
    metadata, _ = _metadata(data)
    model_ids = {t.name: t.param_id for t in unpack(encode(module_record(model))).tensors}
    assert metadata["metadata"] == {str(pid): name for name, pid in model_ids.items()}
    tensors = metadata["tensors"]
    for name, pid in model_ids.items():
        rank = 1 if name.endswith("bias") else 2
        assert metadata["scalars"][f"{pid}.momentum.time"] == {"UInt": 3}
        assert metadata["scalars"][f"{pid}.__rank"] == {"UInt": rank}
        for field in ("moment_1", "moment_2"):
            descriptor = tensors[f"{pid}.momentum.{field}"]
            assert descriptor["param_id"] == pid
            assert descriptor["dtype"] == "F32"
    hidden = model_ids["hidden.weight"]
    assert tensors[f"{hidden}.momentum.moment_1"]["shape"] == [4, 8]  # [d_input, d_output]
    assert len(tensors) == 2 * len(model_ids) and len(metadata["scalars"]) == 2 * len(model_ids)
    assert TREE_KEY not in metadata["metadata"]


def test_it_restores_adamw_state_from_burns_optimizer_record():
    from trainer.layouts import load_optimizer_record, optimizer_record

    _, model, optimizer, _ = _trained(steps=3)
    _, _, fresh, _ = _trained(steps=0)
    load_optimizer_record(model, fresh, decode(encode(optimizer_record(model, optimizer))))
    for before, after in zip(optimizer.state.values(), fresh.state.values(), strict=True):
        assert all(torch.equal(before[k], after[k]) for k in ("step", "exp_avg", "exp_avg_sq"))


def test_it_leaves_a_parameter_whose_record_lacks_a_moment_without_state():
    from trainer.layouts import load_optimizer_record, optimizer_record

    _, model, optimizer, _ = _trained(steps=2)
    record = optimizer_record(model, optimizer)
    hidden = param_id("hidden.weight")
    record.tensors = [t for t in record.tensors if t.name != f"{hidden}.momentum.moment_2"]
    _, fresh_model, fresh, _ = _trained(steps=0)
    load_optimizer_record(fresh_model, fresh, decode(encode(record)))
    assert fresh_model.hidden.weight not in fresh.state
    assert fresh.state[fresh_model.hidden.bias]["step"] == 2


def test_it_writes_the_cosine_schedule_as_burns_scheduler_record():
    from trainer.layouts import load_scheduler_record, scheduler_record

    _, model, optimizer, scheduler = _trained(steps=3)
    data = encode(scheduler_record(scheduler))
    metadata, _ = _metadata(data)
    # burn's current_iter is 2 after three steps: it starts at usize::MAX and wraps to 0.
    assert metadata == {"tensors": {}, "scalars": {"current_iter": {"UInt": 2}}}
    _, _, fresh_optimizer, fresh = _trained(steps=0)
    load_scheduler_record(fresh, decode(data))
    assert fresh.state_dict() == scheduler.state_dict()
    assert [g["lr"] for g in fresh_optimizer.param_groups] == scheduler.get_last_lr()


def test_it_records_an_unstepped_schedule_at_usize_max():
    from trainer.layouts import scheduler_record

    _, _, _, scheduler = _trained(steps=0)
    assert scheduler_record(scheduler).scalars == {"current_iter": ("UInt", (1 << 64) - 1)}
