"""burn-core's file recorders before burnpack (v0.19.1, v0.21.0): the files they write.

A recorder saves a ``BurnRecord``: ``{metadata: BurnMetadata, item, _b}``, the metadata
naming the settings' element types, the recorder, burn-core's version and the settings
(recorder.rs:51-52, 141-153, 181-209 at v0.19.1). The item is the module's record: a struct
per module, a field per submodule or parameter, each parameter a ``ParamSerde {id, param}``
whose ``param`` is the tensor's ``TensorData {bytes, shape, dtype}`` converted to the
settings' element type (primitive.rs:145-161, tensor.rs:114-125 at v0.19.1;
burn-tensor data.rs:32-42). ``CompactRecorder`` is ``NamedMpkFileRecorder<HalfPrecisionSettings>``
(recorder.rs:251): named MessagePack (``rmp_serde::encode::write_named``, file.rs:289-317):
structs as maps keyed by field name, f16 floats and i16 ints (settings.rs:37-40). rmp-serde
1.3 writes a struct as a map of its fields in order, a unit enum variant (the dtype) as its
name, ``PhantomData`` (a unit struct) as an empty array and bytes as a ``bin``
(rmp-serde/src/encode.rs:652-676 and 421-428 at rmp-serde/v1.3.0); burn's ``Bytes`` serialize
as bytes (cubecl-common bytes/base.rs:348-355 at v0.8.1). v0.21.0 writes float and int
tensors the same way; its bool dtype became ``Bool(BoolStore)`` (burn-std tensor/dtype.rs:10-26),
which the mirror does not write.

The trainer's modules are PyTorch's: their state dict's dotted names become the nested
fields of the module record, each tensor laid out as burn's module holds it (a Linear weight
``[d_input, d_output]``: ``trainer.record.module_record``). burn draws a parameter's id at
random when it builds the module; the mirror derives it from the parameter's name, so the
same record always gives the same bytes. The optimizer's and the scheduler's items are
burn's too (``trainer.layouts``).

``BinBytesRecorder`` (bincode, ``bincode::config::standard()``: little-endian, variable-length
integers, recorder.rs:176-178 and memory.rs:48-67 at v0.19.1) is read, not written: burn keeps
such a file in its repository (examples/mnist-inference-web/model.bin) and bincode carries no
field names, so reading it means walking the record's type, which ``Bincode`` helps with.
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
from pathlib import Path
from typing import Any

import msgpack
import torch

from trainer import burn
from trainer.errors import RecorderError, os_error_display, rust_str_debug
from trainer.record import to_burn_layout
from trainer.weights.pickle import TORCH_DTYPES


class Unmirrored(Exception):
    """A failure whose text burn takes from a crate the trainer does not mirror."""


# What CompactRecorder (NamedMpkFileRecorder<HalfPrecisionSettings>) writes as the record's
# BurnMetadata at v0.19.1, and compares when a load fails: the type names of the settings'
# elements and of the recorder, burn-core's version, the settings' Debug (recorder.rs:141-153,
# settings.rs:20-21 and 37-40, file.rs:18 at v0.19.1; half's f16 lives in half::binary16).
COMPACT_RECORDER_METADATA_19 = {
    "float": "half::binary16::f16",
    "int": "i16",
    "format": "burn_core::record::file::NamedMpkFileRecorder"
    "<burn_core::record::settings::HalfPrecisionSettings>",
    "version": "0.19.1",
    "settings": "HalfPrecisionSettings",
}

# burn's DType variants (element/base.rs:272-289 at v0.19.1) in declaration order: bincode
# writes a variant as its index. Their torch types are TORCH_DTYPES'.
DTYPE_VARIANTS = "F64 F32 Flex32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 Bool".split()


# -- writing ----------------------------------------------------------------


def param_id(name: str) -> str:
    """A ParamId as burn serializes it: its u64, little-endian, in BASE32_DNSSEC (id.rs:44-46)."""
    value = hashlib.sha256(name.encode()).digest()[:8]
    return base64.b32hexencode(value).decode().lower().rstrip("=")


def tensor_data(tensor: torch.Tensor) -> dict[str, Any]:
    """A tensor's ``TensorData`` under HalfPrecisionSettings: floats as f16, ints as i16."""
    if tensor.dtype == torch.bool:
        dtype = "Bool"
    elif tensor.is_floating_point():
        dtype = "F16"
    else:
        dtype = "I16"
    values = tensor.detach().to("cpu", TORCH_DTYPES[dtype]).contiguous()
    data = values.reshape(-1).view(torch.uint8).numpy().tobytes()
    return {"bytes": data, "shape": list(values.shape), "dtype": dtype}


def compact_metadata(version: str) -> dict[str, str]:
    """CompactRecorder's BurnMetadata as burn-core ``version`` writes it: the same type names
    and settings at 0.19.1 and 0.21.0, and the crate's own version (recorder.rs:141-153)."""
    return COMPACT_RECORDER_METADATA_19 | {"version": version}


def compact_record(record: Any, version: str = "0.19.1") -> bytes:
    """The bytes CompactRecorder of burn ``version`` writes for ``record`` (a state dict, or
    any tree of dicts, lists, numbers and tensors such as an optimizer's state)."""
    item = _module_item(record) if _is_state_dict(record) else _item(record)
    burn_record = {"metadata": compact_metadata(version), "item": item, "_b": []}
    return msgpack.packb(burn_record, use_bin_type=True)


def _is_state_dict(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and bool(record)
        and all(isinstance(key, str) and isinstance(v, torch.Tensor) for key, v in record.items())
    )


def _module_item(state: dict[str, torch.Tensor]) -> dict[str, Any]:
    params = {name: {"id": param_id(name), "param": tensor_data(t)} for name, t in state.items()}
    return _fields(params)


def _item(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return tensor_data(value)
    if isinstance(value, dict):
        return {key: _item(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_item(v) for v in value]
    return value


def write_recorded(path: Path | str, record: Any, version: str = "0.19.1") -> None:
    """Save like v0.19.1's file recorder (record/file.rs:105-131): parents made, old file removed.
    ``version`` is the burn-core release whose recorder writes (0.19.1 or 0.21.0).

    Only the opening step's errors are burn's own texts; a failing write goes
    through rmp_serde, whose messages are not burn's, so it is not mirrored.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # `create_dir_all(parent).ok()`
    if path.exists():
        try:
            os.remove(path)
        except OSError as err:
            raise RecorderError("Unknown", os_error_display(err), errno=err.errno) from err
    try:
        file = open(path, "wb")  # noqa: SIM115 -- the open error and the write error differ
    except OSError as err:
        raise RecorderError.from_open(err) from err
    try:
        with file:
            file.write(compact_record(record, version))
    except OSError as err:
        raise Unmirrored(f"v0.19.1 reports this write error through rmp_serde: {err}") from err


# -- reading ----------------------------------------------------------------


def decode_compact(data: bytes) -> dict[str, Any]:
    """A CompactRecorder file as burn's BurnRecord: ``metadata`` and ``item``, the item's
    tensors back as torch tensors and a module record back as a state dict."""
    try:
        raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
        metadata, item = raw["metadata"], raw["item"]
    except (ValueError, TypeError, KeyError, msgpack.UnpackException) as err:
        raise Unmirrored(f"v0.19.1 decodes through rmp_serde: {err}") from err
    return {"metadata": metadata, "item": item}


def _tensor(data: dict[str, Any]) -> torch.Tensor:
    """TensorData as the loading backend gets it: floats as f32 (``from_item`` converts
    to the backend's float type, tensor.rs:127-134 at v0.19.1), other types as stored."""
    try:
        dtype = TORCH_DTYPES[data["dtype"]]
    except (KeyError, TypeError) as err:  # a quantized tensor, or a type torch lacks
        raise Unmirrored(f"TensorData of dtype {data['dtype']!r}") from err
    tensor = torch.frombuffer(bytearray(data["bytes"]), dtype=dtype)
    tensor = tensor.reshape(data["shape"])
    return tensor.float() if tensor.is_floating_point() else tensor


def _is_tensor_data(node: Any) -> bool:
    return isinstance(node, dict) and set(node) == {"bytes", "shape", "dtype"}


def _is_param(node: Any) -> bool:
    """A ``ParamSerde``: its id and its tensor."""
    return (
        isinstance(node, dict)
        and set(node) == {"id", "param"}
        and _is_tensor_data(node.get("param"))
    )


def _params(node: Any) -> bool:
    """Whether ``node`` is a module record: nested fields whose leaves are all parameters."""
    if _is_param(node):
        return True
    return isinstance(node, dict) and bool(node) and all(_params(v) for v in node.values())


def _state_dict(node: dict[str, Any], prefix: str = "") -> dict[str, torch.Tensor]:
    state = {}
    for name, value in node.items():
        if _is_param(value):
            state[prefix + name] = _tensor(value["param"])
        else:
            state.update(_state_dict(value, f"{prefix}{name}."))
    return state


def _value(node: Any) -> Any:
    if _is_tensor_data(node):
        return _tensor(node)
    if isinstance(node, dict):
        return {key: _value(v) for key, v in node.items()}
    if isinstance(node, list):
        return [_value(v) for v in node]
    return node


def read_recorded(
    path: Path | str, like: dict[str, Any] | None = None, version: str = "0.19.1"
) -> Any:
    """Load like v0.19.1's ``Recorder::load`` (recorder.rs:58-105) and return the item;
    ``version`` is the loading burn-core's, which a failed load compares with the file's.

    ``like`` is the record of the module that loads (a state dict): the item must have
    each of its fields, as serde's derived Deserialize demands. An item that lacks one
    fails with serde's text; the metadata alone still reads, so burn wraps that error in
    ``Unable to load record.``, a line per metadata field that differs, and the error.
    Open errors are burn's texts; a file that does not decode at all is not mirrored
    (rmp_serde's texts).
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as err:
        raise RecorderError.from_open(err) from err
    record = decode_compact(data)
    item = record["item"]
    missing = None if like is None else _first_missing_field(_fields(like), item)
    if missing is not None:
        error = RecorderError("Unknown", burn.SERDE_MISSING_FIELD.format(missing))
        raise RecorderError("Unknown", _unable_to_load(record["metadata"], error, version))
    return _state_dict(item) if _params(item) else _value(item)


def _fields(state: dict[str, Any]) -> dict[str, Any]:
    """A state dict's dotted names as the nested fields of burn's derived module records."""
    nested: dict[str, Any] = {}
    for name, value in state.items():
        *parents, leaf = str(name).split(".")
        node = nested
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = value
    return nested


def _first_missing_field(expected: dict[str, Any], found: Any) -> str | None:
    """The field serde reports missing: it reads the file's entries in their order (a
    nested record fails while its entry is read), then checks the struct's fields in
    declaration order; entries the struct lacks are skipped."""
    if not isinstance(found, dict):
        return next(iter(expected), None)
    for name, value in found.items():
        if isinstance(expected.get(name), dict) and not _is_param(value):
            missing = _first_missing_field(expected[name], value)
            if missing is not None:
                return missing
    return next((name for name in expected if name not in found), None)


def _unable_to_load(metadata: dict[str, str], error: RecorderError, version: str) -> str:
    """The message of recorder.rs:65-96 at v0.19.1, the loading recorder being CompactRecorder."""
    texts = burn.RECORDER_LOAD_19
    message = texts["unable"].render()
    loading = compact_metadata(version)
    for field in ("float", "int", "format", "version"):
        actual, expected = metadata[field], loading[field]
        if actual != expected:
            message += texts[field].render(rust_str_debug(actual), rust_str_debug(expected))
    return message + texts["error"].render(error.debug())


def load_module_record_19(module: torch.nn.Module, record: dict[str, torch.Tensor]) -> None:
    """v0.19.1's ``Module::load_record``: each parameter takes the record's tensor, moved to
    the module's device, with no check of its shape (param/tensor.rs:115-136, 296-299).
    The record is in burn's layout (``module_record``): each Linear weight goes back to
    PyTorch's."""
    record = {name: tensor for name, tensor in record.items() if name in module.state_dict()}
    record = to_burn_layout(module, record)
    state = module.state_dict(keep_vars=True)  # serde skipped the entries the module lacks
    with torch.no_grad():
        for name, tensor in record.items():
            state[name].data = tensor.to(state[name].device, state[name].dtype)


# -- bincode ----------------------------------------------------------------


class Bincode:
    """A reader of ``bincode::config::standard()``: serde's data model, walked by type.

    Integers are variable-length: below 251 one byte, else a marker (251, 252, 253 for
    u16, u32, u64) and the little-endian value; a string or byte buffer is its length and
    its bytes; an ``Option`` a tag byte; a struct its fields in order; a unit struct nothing.
    """

    def __init__(self, data: bytes):
        self.data = data
        self.at = 0

    def take(self, size: int) -> bytes:
        if self.at + size > len(self.data):
            raise Unmirrored("bincode's UnexpectedEnd: the record is cut short")
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk

    def varint(self) -> int:
        first = self.take(1)[0]
        sizes = {251: "<H", 252: "<I", 253: "<Q"}
        if first < 251:
            return first
        if first not in sizes:
            raise Unmirrored(f"a bincode integer marker {first}")
        fmt = sizes[first]
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        return self.take(self.varint()).decode()

    def option(self) -> bool:
        """Whether an ``Option`` holds a value (its tag byte: 0 None, 1 Some)."""
        return self.take(1)[0] == 1

    def constant(self) -> None:
        """A ``ConstantRecord``: serialized as None (constant.rs:22-30 at v0.19.1)."""
        if self.option():
            raise Unmirrored("a ConstantRecord that is not None")

    def metadata(self) -> dict[str, str]:
        return {field: self.string() for field in ("float", "int", "format", "version", "settings")}

    def tensor(self) -> torch.Tensor:
        data = self.take(self.varint())
        shape = [self.varint() for _ in range(self.varint())]
        dtype = DTYPE_VARIANTS[self.varint()]
        return _tensor({"bytes": data, "shape": shape, "dtype": dtype})

    def param(self) -> tuple[str, torch.Tensor]:
        """A ``ParamSerde``: its id, then its tensor."""
        return self.string(), self.tensor()

    def end(self) -> None:
        if self.at != len(self.data):
            raise Unmirrored(f"{len(self.data) - self.at} bytes past the record's end")
