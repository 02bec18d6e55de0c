"""The recorder-era files as burn-core writes them: CompactRecorder's named MessagePack,
and the bincode file burn keeps in its repository, read with the trainer's mirror."""

import base64
import hashlib
import re
from pathlib import Path

import msgpack
import pytest
import torch

from tests.trainer.learners import trained_learner
from tests.upstream.sources import COMMITS, KEPT
from trainer.checkpoint.file import FileCheckpointer
from trainer.errors import RecorderError
from trainer.model import MLP
from trainer.recorder import (
    COMPACT_RECORDER_METADATA_19,
    Bincode,
    Unmirrored,
    compact_record,
    param_id,
    read_recorded,
    write_recorded,
)

MNIST_MODEL = KEPT / COMMITS["v0.19.1"] / "examples/mnist-inference-web/model.bin"
# ParamId::serialize: a u64's 8 bytes in BASE32_DNSSEC, unpadded (id.rs:44-46 at v0.19.1).
PARAM_ID = re.compile(r"[0-9a-v]{13}")


def _state():
    torch.manual_seed(0)
    return MLP(4, 3, 2).state_dict()


def _mnist_record(reader: Bincode) -> dict[str, tuple[str, torch.Tensor]]:
    """examples/mnist-inference-web's ``Model`` record at v0.19.1 (src/model.rs:9-18 and
    65-71), field by field. A module without a backend parameter (MaxPool2d, Relu, Gelu,
    Dropout) and a non-parameter field (usize, ``[usize; 2]``, ``Ignored``) record as
    ``ConstantRecord`` (burn-derive module/codegen.rs:113-143, constant.rs at v0.19.1)."""
    params = {}

    def param(name):
        params[name] = reader.param()

    def constants(count):
        for _ in range(count):
            reader.constant()

    def linear(name):  # Linear: weight, bias (linear.rs:47-54)
        param(f"{name}.weight")
        if reader.option():
            param(f"{name}.bias")

    def conv_block(name):
        linear(f"{name}.conv")  # Conv2d: weight, bias, then stride, kernel_size, dilation,
        constants(2 + 2 + 2 + 1 + 1)  # groups and padding (conv2d.rs:54-69)
        for field in ("gamma", "beta", "running_mean", "running_var"):
            param(f"{name}.norm.{field}")  # BatchNorm (batch.rs:44-57), then momentum, epsilon
        constants(2)
        if reader.option():  # pool: Option<MaxPool2d>
            constants(1)
        constants(1)  # activation

    conv_block("conv1")
    conv_block("conv2")
    constants(1)  # dropout
    for name in ("fc1", "fc2", "fc3"):
        linear(name)
    constants(1)  # activation
    return params


def test_it_reads_the_model_burn_keeps_in_its_repository():
    reader = Bincode(MNIST_MODEL.read_bytes())
    metadata = reader.metadata()
    params = _mnist_record(reader)
    reader.end()  # the walk took every byte: the layout is burn's
    assert metadata == {
        "float": "f32",
        "int": "i32",
        "format": "burn_core::record::file::BinFileRecorder"
        "<burn_core::record::settings::FullPrecisionSettings>",
        "version": "0.19.0",
        "settings": "FullPrecisionSettings",
    }
    shapes = {name: list(tensor.shape) for name, (_, tensor) in params.items()}
    assert shapes == {
        "conv1.conv.weight": [64, 1, 3, 3],
        "conv1.conv.bias": [64],
        **{f"conv1.norm.{f}": [64] for f in ("gamma", "beta", "running_mean", "running_var")},
        "conv2.conv.weight": [64, 64, 3, 3],
        "conv2.conv.bias": [64],
        **{f"conv2.norm.{f}": [64] for f in ("gamma", "beta", "running_mean", "running_var")},
        "fc1.weight": [1600, 256],  # burn's Linear holds [in, out]
        "fc1.bias": [256],
        "fc2.weight": [256, 128],
        "fc2.bias": [128],
        "fc3.weight": [128, 10],
        "fc3.bias": [10],
    }
    assert all(PARAM_ID.fullmatch(id_) for id_, _ in params.values())
    tensors = [tensor for _, tensor in params.values()]
    assert all(t.dtype == torch.float32 and torch.isfinite(t).all() for t in tensors)
    assert (params["conv1.norm.running_var"][1] > 0).all()  # variances: the floats read right
    # The values' checksum, in field order: any change in how the bytes become floats shows.
    values = b"".join(t.numpy().tobytes() for t in tensors)
    assert hashlib.sha256(values).hexdigest() == (
        "8b91b5595e3cd4153ed2cde2e2b6274e9cb6091275a5f9e7039cc3e21d671378"
    )


def test_it_writes_burns_record_as_named_messagepack(tmp_path):
    state = _state()
    write_recorded(tmp_path / "model-1.mpk", state)
    record = msgpack.unpackb((tmp_path / "model-1.mpk").read_bytes())
    assert list(record) == ["metadata", "item", "_b"]  # BurnRecord's fields
    assert record["_b"] == []  # PhantomData: a unit struct, an empty array
    assert record["metadata"] == COMPACT_RECORDER_METADATA_19
    assert list(record["metadata"]) == ["float", "int", "format", "version", "settings"]
    assert list(record["item"]) == ["hidden", "output"]
    weight = record["item"]["hidden"]["weight"]
    assert list(weight) == ["id", "param"]  # ParamSerde
    assert list(weight["param"]) == ["bytes", "shape", "dtype"]  # TensorData
    assert weight["param"]["shape"] == [3, 4] and weight["param"]["dtype"] == "F16"
    values = torch.frombuffer(bytearray(weight["param"]["bytes"]), dtype=torch.float16)
    assert torch.equal(values.reshape(3, 4), state["hidden.weight"].half())


def test_it_writes_a_param_id_as_burn_serializes_one():
    id_ = param_id("hidden.weight")
    assert PARAM_ID.fullmatch(id_)
    assert len(base64.b32hexdecode(id_.upper() + "===")) == 8  # a u64


def test_it_writes_int_tensors_as_i16_and_other_records_as_trees(tmp_path):
    write_recorded(tmp_path / "optim-1.mpk", {"state": {0: {"step": torch.tensor(3)}}, "lr": 0.5})
    item = msgpack.unpackb((tmp_path / "optim-1.mpk").read_bytes(), strict_map_key=False)["item"]
    step = item["state"][0]["step"]
    assert step == {"bytes": b"\x03\x00", "shape": [], "dtype": "I16"}
    assert item["lr"] == 0.5


def test_it_reads_back_what_it_wrote_at_half_precision(tmp_path):
    state = _state()
    write_recorded(tmp_path / "model-1.mpk", state)
    item = read_recorded(tmp_path / "model-1.mpk", like=state)
    assert list(item) == list(state)
    for name, tensor in state.items():
        assert item[name].dtype == torch.float32
        assert torch.equal(item[name], tensor.half().float())


def test_it_reads_back_a_record_that_is_not_a_module(tmp_path):
    record = {"state": {0: {"step": torch.tensor(2.0)}}, "param_groups": [{"lr": 0.1}]}
    write_recorded(tmp_path / "optim-1.mpk", record)
    read = read_recorded(tmp_path / "optim-1.mpk")
    assert read["param_groups"] == [{"lr": 0.1}]
    assert torch.equal(read["state"][0]["step"], torch.tensor(2.0))


def test_it_writes_the_same_bytes_for_the_same_record(tmp_path: Path):
    write_recorded(tmp_path / "a.mpk", _state())
    write_recorded(tmp_path / "b.mpk", _state())
    assert (tmp_path / "a.mpk").read_bytes() == (tmp_path / "b.mpk").read_bytes()
    assert (tmp_path / "a.mpk").read_bytes() == compact_record(_state())


def test_it_writes_a_bool_tensor_one_byte_a_value(tmp_path):
    write_recorded(tmp_path / "mask-1.mpk", {"mask": torch.tensor([True, False, True])})
    item = msgpack.unpackb((tmp_path / "mask-1.mpk").read_bytes())["item"]
    assert item["mask"]["param"] == {"bytes": b"\x01\x00\x01", "shape": [3], "dtype": "Bool"}
    read = read_recorded(tmp_path / "mask-1.mpk")
    assert torch.equal(read["mask"], torch.tensor([True, False, True]))


def test_it_leaves_a_file_cut_short_to_rmp_serdes_texts(tmp_path):
    write_recorded(tmp_path / "model-1.mpk", _state())
    data = (tmp_path / "model-1.mpk").read_bytes()
    (tmp_path / "model-1.mpk").write_bytes(data[: len(data) // 2])
    with pytest.raises(Unmirrored, match="rmp_serde"):
        read_recorded(tmp_path / "model-1.mpk", like=_state())


def test_a_0_21_0_file_checkpointer_writes_and_compares_burn_core_0_21_0(tmp_path):
    checkpointer = FileCheckpointer(tmp_path, "model", release="v0.21.0")
    checkpointer.save(1, _state())
    record = msgpack.unpackb((tmp_path / "model-1.mpk").read_bytes())
    assert record["metadata"] == COMPACT_RECORDER_METADATA_19 | {"version": "0.21.0"}
    write_recorded(tmp_path / "model-2.mpk", _state(), version="0.19.1")
    with pytest.raises(RecorderError) as failed:
        read_recorded(
            tmp_path / "model-2.mpk", like=_state() | {"extra": torch.zeros(1)}, version="0.21.0"
        )
    assert 'different Burn version: Actual \\"0.19.1\\", Expected \\"0.21.0\\"' in str(failed.value)


# -- the trainer's optimizer and scheduler items laid out as burn-core 0.19.1's -------------


def _trained_learner_parts(steps=3):
    _, model, optimizer, scheduler = trained_learner(steps)
    return model, optimizer, scheduler


def test_it_writes_adamw_state_as_the_0_19_adaptors_record(tmp_path):
    from trainer.layouts import optimizer_item
    from trainer.record import module_record

    model, optimizer, _ = _trained_learner_parts(steps=3)
    write_recorded(tmp_path / "optim-1.mpk", optimizer_item(model, optimizer))
    item = msgpack.unpackb((tmp_path / "optim-1.mpk").read_bytes())["item"]
    module_item = msgpack.unpackb(compact_record(module_record(model)))["item"]
    # Keyed by the id the module record gives the same parameter.
    assert set(item) == {
        module_item[layer][field]["id"] for layer in module_item for field in module_item[layer]
    }
    hidden = item[module_item["hidden"]["weight"]["id"]]
    assert list(hidden) == ["V1"] and list(hidden["V1"]) == ["Rank2"]
    momentum = hidden["V1"]["Rank2"]["momentum"]
    assert list(momentum) == ["time", "moment_1", "moment_2"]
    assert momentum["time"] == 3 and isinstance(momentum["time"], int)  # a usize, not a tensor
    assert momentum["moment_1"]["shape"] == [4, 8] and momentum["moment_1"]["dtype"] == "F16"
    bias = item[module_item["output"]["bias"]["id"]]
    assert list(bias["V1"]) == ["Rank1"]


def test_it_writes_the_0_21_momentum_with_max_moment_2_as_nil(tmp_path):
    from trainer.layouts import load_optimizer_item, optimizer_item

    model, optimizer, _ = _trained_learner_parts(steps=1)
    path = tmp_path / "optim-1.mpk"
    write_recorded(path, optimizer_item(model, optimizer, "0.21.0"), "0.21.0")
    item = msgpack.unpackb(path.read_bytes())["item"]
    for record in item.values():
        ((_, ranked),) = record["V1"].items()
        assert list(ranked["momentum"]) == ["time", "moment_1", "moment_2", "max_moment_2"]
        assert ranked["momentum"]["max_moment_2"] is None
    fresh_model, fresh, _ = _trained_learner_parts(steps=0)
    load_optimizer_item(fresh_model, fresh, read_recorded(path, version="0.21.0"))
    assert all(state["step"] == 1 for state in fresh.state.values())


def test_it_restores_adamw_state_from_the_0_19_record_at_half_precision(tmp_path):
    from trainer.layouts import load_optimizer_item, optimizer_item

    model, optimizer, _ = _trained_learner_parts(steps=3)
    write_recorded(tmp_path / "optim-1.mpk", optimizer_item(model, optimizer))
    fresh_model, fresh, _ = _trained_learner_parts(steps=0)
    load_optimizer_item(fresh_model, fresh, read_recorded(tmp_path / "optim-1.mpk"))
    for before, after in zip(optimizer.state.values(), fresh.state.values(), strict=True):
        assert after["step"] == before["step"] == 3
        for key in ("exp_avg", "exp_avg_sq"):
            assert torch.equal(after[key], before[key].half().float())


def test_it_writes_the_cosine_schedule_as_its_0_19_record_current_iter(tmp_path):
    from trainer.layouts import load_scheduler_item

    model, _, scheduler = _trained_learner_parts(steps=3)
    write_recorded(tmp_path / "scheduler-1.mpk", scheduler.current_iter)
    assert msgpack.unpackb((tmp_path / "scheduler-1.mpk").read_bytes())["item"] == 2
    _, fresh_optimizer, fresh = _trained_learner_parts(steps=0)
    load_scheduler_item(fresh, read_recorded(tmp_path / "scheduler-1.mpk"))
    assert fresh.state_dict() == scheduler.state_dict()
