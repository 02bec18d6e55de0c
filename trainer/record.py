"""burnpack, burn-pack's file format, as burn writes and reads it (crates/burn-pack at main).

Layout (lib.rs:56-85, base.rs:13-62 at main)::

    magic 0x4255524E as u32 LE (the bytes "NRUB") | version u16 LE | metadata size u32 LE
    | metadata (CBOR) | zero padding to a multiple of 256 | tensor data, each tensor's
    start a multiple of 256 from the data section's start

The metadata is burn-pack's ``Metadata`` struct as ciborium writes it (base.rs:284-312): a
map of ``tensors`` (a map by name, sorted as Rust's ``BTreeMap`` sorts: by bytes), then
``metadata`` (strings) and ``scalars`` (typed numbers), each left out when empty. A tensor's
descriptor holds ``dtype`` (burn_std's ``DType`` by its serde name), ``shape``,
``data_offsets`` (start, end) relative to the data section, and ``param_id`` when there is
one. The writer places the tensors in the order it is given them (writer.rs:264-315).

A record of tensors alone (a module's state dict) is written as burn-core writes a module
record: one tensor per parameter, named by its path, with a parameter id, nothing else
(store/mod.rs:189-202). burn's ids are random (``ParamId::new``); the trainer derives each from
the tensor's name so that the same record gives the same bytes. The trainer's modules are
PyTorch's: :func:`module_record` lays their state out as burn's modules hold it (a Linear
weight ``[d_input, d_output]``). burn's optimizer and scheduler records are a :class:`Pack`
written as it is (``trainer.layouts`` builds them). Any other record (nested dicts and lists,
which no burn record is) keeps its tensors as tensors named by their dotted path, its numbers
and booleans as burn-pack scalars, and its nesting as JSON in one metadata entry, ``TREE_KEY``.

Why the writer serializes to bytes first and then writes with ``os.open`` /
``os.write``: ``torch.save(path)`` reports a full disk as a ``RuntimeError``
whose text hides the errno.  burn encodes the record in memory and writes it
with plain file calls, so the OS error (and its number) reaches the message;
doing the same here keeps ``No space left on device (os error 28)`` intact.
Like burn, the writer truncates the file in place (not atomic: a failed write
leaves a partial file) and does not create parent directories.

There is no checksum, as in burn: a flipped bit in tensor data goes unnoticed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cbor2
import torch

from trainer import burn
from trainer.errors import IoError, RecordError, os_error_display, rust_str_debug, shape_debug
from trainer.weights.pickle import TORCH_DTYPES

MAGIC_NUMBER = 0x4255524E  # base.rs:15
MAGIC = struct.pack("<I", MAGIC_NUMBER)  # b"NRUB"
VERSION = 1  # base.rs:18
HEADER = struct.Struct("<4sHI")  # base.rs:139-146
HEADER_SIZE = HEADER.size
TENSOR_ALIGNMENT = 256  # base.rs:48
MAX_METADATA_SIZE = 100 * 1024 * 1024  # base.rs:69
MAX_TENSOR_SIZE = 10 * 1024 * 1024 * 1024  # base.rs:78, 64-bit platforms
MAX_TENSOR_COUNT = 100_000  # base.rs:82
MAX_FILE_SIZE = 100 * 1024 * 1024 * 1024  # base.rs:92
EXTENSION = "bpk"
TREE_KEY = "trainer.record"

# burn_std's DType variants (tensor/dtype.rs:10-26 at main) as serde names them, for the
# element types torch has (torch's for each: ``TORCH_DTYPES``); a bool is
# ``Bool(BoolStore::Native)``, one byte per element.
_NAMES = ("F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8")
_BOOL = {"Bool": "Native"}


def aligned_data_section_start(metadata_size: int) -> int:
    """base.rs:58-62: the data section starts at the next multiple of 256."""
    return -(-(HEADER_SIZE + metadata_size) // TENSOR_ALIGNMENT) * TENSOR_ALIGNMENT


# -- the container ------------------------------------------------------------


@dataclass
class PackTensor:
    """One tensor entry: burn-pack's ``Tensor`` (tensor.rs), its bytes little-endian."""

    name: str
    dtype: str | dict
    shape: list[int]
    data: bytes
    param_id: int | None = None
    data_offsets: tuple[int, int] | None = None  # set by the reader

    def to_torch(self) -> torch.Tensor:
        dtype = _torch_dtype(self.dtype)
        count = math.prod(self.shape)
        itemsize = torch.empty(0, dtype=dtype).element_size()
        if len(self.data) != count * itemsize:
            # burn-core's TensorData takes the bytes as they are; what it does with a length
            # that does not fit the shape is not burn-pack's, and not mirrored here.
            raise ValueError(f"tensor {self.name!r}: {len(self.data)} bytes for shape {self.shape}")
        if not self.data:  # torch.frombuffer refuses an empty buffer
            return torch.empty(self.shape, dtype=dtype)
        return torch.frombuffer(bytearray(self.data), dtype=dtype).reshape(self.shape)

    @classmethod
    def from_torch(cls, name: str, tensor: torch.Tensor, param_id: int | None) -> PackTensor:
        tensor = tensor.detach().cpu().contiguous()
        data = tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
        return cls(name, _dtype_name(tensor.dtype), list(tensor.shape), data, param_id)


@dataclass
class Pack:
    """What a burnpack file holds: tensors (in write order), string metadata, scalars.

    Scalars are ``(variant, value)`` pairs of burn-pack's ``Scalar`` (base.rs:178-188):
    ``Int``, ``UInt``, ``Float`` or ``Bool``.
    """

    tensors: list[PackTensor]
    metadata: dict[str, str]
    scalars: dict[str, tuple[str, Any]]


def _dtype_name(dtype: torch.dtype) -> str | dict:
    if dtype == torch.bool:
        return dict(_BOOL)
    for name in _NAMES:
        if TORCH_DTYPES[name] == dtype:
            return name
    raise ValueError(f"burn has no dtype for torch's {dtype}")


def _torch_dtype(name: str | dict) -> torch.dtype:
    if name == _BOOL:
        return torch.bool
    if name in _NAMES:
        return TORCH_DTYPES[name]
    raise ValueError(f"the trainer has no torch dtype for burn's {name!r}")


def pack(
    tensors: list[PackTensor],
    metadata: dict[str, str] | None = None,
    scalars: dict[str, tuple[str, Any]] | None = None,
) -> bytes:
    """The bytes burn-pack's ``Writer`` produces (writer.rs:220-387 at main)."""
    descriptors: dict[str, dict] = {}
    placements: list[tuple[int, bytes]] = []
    offset = 0
    for tensor in tensors:
        start = -(-offset // TENSOR_ALIGNMENT) * TENSOR_ALIGNMENT
        end = start + len(tensor.data)
        if tensor.name in descriptors:
            raise RecordError.io(
                burn.PACK["validation"].render(burn.PACK["duplicate"].render(tensor.name))
            )
        descriptor = {"dtype": tensor.dtype, "shape": list(tensor.shape)}
        descriptor["data_offsets"] = [start, end]
        if tensor.param_id is not None:
            descriptor["param_id"] = tensor.param_id
        descriptors[tensor.name] = descriptor
        placements.append((start, tensor.data))
        offset = end
    body: dict[str, Any] = {"tensors": _btree(descriptors)}
    if metadata:
        body["metadata"] = _btree(metadata)
    if scalars:
        body["scalars"] = _btree(
            {key: {variant: value} for key, (variant, value) in scalars.items()}
        )
    metadata_bytes = cbor_encode(body)
    out = bytearray(HEADER.pack(MAGIC, VERSION, len(metadata_bytes)) + metadata_bytes)
    out += bytes(aligned_data_section_start(len(metadata_bytes)) - len(out))
    data_start = len(out)
    for start, data in placements:
        out += bytes(data_start + start - len(out))
        out += data
    return bytes(out)


def _btree(mapping: dict[str, Any]) -> dict[str, Any]:
    # Rust's String orders by UTF-8 bytes, which is Python's order of code points.
    return {key: mapping[key] for key in sorted(mapping)}


def cbor_encode(value: Any) -> bytes:
    """CBOR as ciborium's serializer writes burn-pack's metadata: definite lengths, the
    shortest integer head, and a float in the shortest width that keeps its value.

    cbor2 encodes a float in 8 bytes unless asked for canonical output, which also reorders
    map keys by length; the metadata's keys must stay in the struct's field order, so the
    trainer writes the few CBOR types the metadata uses itself and decodes with cbor2.
    """
    out = bytearray()
    _cbor(value, out)
    return bytes(out)


def _cbor_head(major: int, n: int, out: bytearray) -> None:
    if n < 24:
        out.append(major << 5 | n)
    elif n < 1 << 8:
        out += bytes([major << 5 | 24, n])
    elif n < 1 << 16:
        out += bytes([major << 5 | 25]) + n.to_bytes(2, "big")
    elif n < 1 << 32:
        out += bytes([major << 5 | 26]) + n.to_bytes(4, "big")
    else:
        out += bytes([major << 5 | 27]) + n.to_bytes(8, "big")


def _cbor(value: Any, out: bytearray) -> None:
    if value is True or value is False:
        out.append(0xF5 if value else 0xF4)
    elif isinstance(value, int):
        _cbor_head(0, value, out) if value >= 0 else _cbor_head(1, -1 - value, out)
    elif isinstance(value, float):
        out += _cbor_float(value)
    elif isinstance(value, str):
        raw = value.encode()
        _cbor_head(3, len(raw), out)
        out += raw
    elif isinstance(value, list | tuple):
        _cbor_head(4, len(value), out)
        for item in value:
            _cbor(item, out)
    elif isinstance(value, dict):
        _cbor_head(5, len(value), out)
        for key, item in value.items():
            _cbor(key, out)
            _cbor(item, out)
    else:
        raise TypeError(f"no CBOR for {type(value).__name__}")


def _cbor_float(value: float) -> bytes:
    bits = struct.pack(">d", value)
    for code, fmt in ((0xF9, ">e"), (0xFA, ">f")):
        try:
            narrow = struct.pack(fmt, value)
        except OverflowError:
            continue
        if struct.pack(">d", struct.unpack(fmt, narrow)[0]) == bits:
            return bytes([code]) + narrow
    return b"\xfb" + bits


def unpack(data: bytes) -> Pack:
    """Read a file's bytes as burn-pack's ``Reader::from_file`` then ``into_tensors`` do,
    check for check and text for text (reader.rs:61-146 and 196-295 at main).

    The file's bytes are given whole, so "the file" ends where ``data`` does.
    """
    if len(data) > MAX_FILE_SIZE:  # reader.rs:71-76
        limit = burn.PACK["file_size"].render(len(data), MAX_FILE_SIZE)
        raise RecordError.io(burn.PACK["validation"].render(limit))
    # `read_exact` of the header, then of the metadata: a file that ends inside either
    # fails with the I/O error "failed to fill whole buffer" (reader.rs:79, 83).
    if len(data) < HEADER_SIZE:
        raise _reader_io(IoError.unexpected_eof())
    magic, version, metadata_size = HEADER.unpack_from(data)
    if magic != MAGIC:  # base.rs:154-157
        raise RecordError.io(burn.PACK["magic"].render())
    if version > VERSION:  # reader.rs:242: an older version is read
        raise RecordError.io(burn.PACK["version"].render())
    if metadata_size > MAX_METADATA_SIZE:  # reader.rs:245-250
        text = burn.PACK["metadata_size"].render(metadata_size, MAX_METADATA_SIZE)
        raise RecordError.io(burn.PACK["validation"].render(text))
    metadata_end = HEADER_SIZE + metadata_size
    if len(data) < metadata_end:
        raise _reader_io(IoError.unexpected_eof())
    descriptors, metadata, scalars = _parse_metadata(data[HEADER_SIZE:metadata_end])
    _validate_total_size(descriptors, metadata_end, len(data))
    data_offset = aligned_data_section_start(metadata_size)
    tensors = []
    for name, descriptor in descriptors.items():  # reader.rs:134-145, sorted by name
        start, end = _tensor_range(data_offset, name, descriptor)
        if end > len(data):
            # A file-backed view past the file's end fails (reader.rs:137-142); the view
            # itself is burn_std's `Bytes`, which burn takes from cubecl.
            text = burn.PACK["view"].render(name, start, end, len(data))
            raise RecordError.io(burn.PACK["validation"].render(text))
        tensors.append(
            PackTensor(
                name,
                descriptor["dtype"],
                list(descriptor["shape"]),
                bytes(data[start:end]),
                descriptor.get("param_id"),
                tuple(descriptor["data_offsets"]),
            )
        )
    return Pack(tensors, metadata, scalars)


class _Malformed(Exception):
    """Metadata that CBOR decodes but that is not burn-pack's ``Metadata`` struct."""


def _parse_metadata(raw: bytes) -> tuple[dict[str, dict], dict[str, str], dict[str, tuple]]:
    """reader.rs:255-266: decode, then count the tensors."""
    try:
        body = cbor2.loads(raw)
        descriptors, metadata, scalars = _metadata_fields(body)
    except (cbor2.CBORDecodeError, _Malformed) as err:
        # base.rs:338 with the decoder's message: ciborium's and serde's in burn, cbor2's
        # or the trainer's here; burn's text ends in a payload the trainer cannot mirror.
        raise RecordError.io(burn.PACK["metadata"].render(err)) from err
    if len(descriptors) > MAX_TENSOR_COUNT:
        text = burn.PACK["tensor_count"].render(len(descriptors), MAX_TENSOR_COUNT)
        raise RecordError.io(burn.PACK["validation"].render(text))
    return descriptors, metadata, scalars


def _metadata_fields(body: Any) -> tuple[dict[str, dict], dict[str, str], dict[str, tuple]]:
    """The checks serde's derived ``Deserialize`` makes of ``Metadata`` (base.rs:284-312)."""
    if not isinstance(body, dict) or "tensors" not in body:
        raise _Malformed("missing field `tensors`")
    tensors, metadata, scalars = body["tensors"], body.get("metadata", {}), body.get("scalars", {})
    if not isinstance(tensors, dict) or not isinstance(metadata, dict):
        raise _Malformed("expected a map")
    for name, descriptor in tensors.items():
        _check_descriptor(name, descriptor)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise _Malformed("expected a map of strings")
    typed = {}
    for key, scalar in scalars.items():
        if not (isinstance(scalar, dict) and len(scalar) == 1):
            raise _Malformed("expected an enum Scalar")
        ((variant, value),) = scalar.items()
        if variant not in ("Int", "UInt", "Float", "Bool"):
            raise _Malformed(f"unknown variant `{variant}`")
        typed[key] = (variant, value)
    return dict(sorted(tensors.items())), metadata, typed


def _check_descriptor(name: Any, descriptor: Any) -> None:
    """``TensorDescriptor`` (base.rs:300-312): its three fields, and ``param_id`` if present."""
    if not isinstance(name, str) or not isinstance(descriptor, dict):
        raise _Malformed("expected a map of descriptors by name")
    for field in ("dtype", "shape", "data_offsets"):
        if field not in descriptor:
            raise _Malformed(f"missing field `{field}`")
    offsets, shape = descriptor["data_offsets"], descriptor["shape"]
    if not (isinstance(offsets, list) and len(offsets) == 2 and isinstance(shape, list)):
        raise _Malformed("expected a tuple of size 2 and a sequence")
    if not all(_is_u64(v) for v in (*offsets, *shape, descriptor.get("param_id", 0))):
        raise _Malformed("expected u64")


def _is_u64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 64


def _validate_total_size(descriptors: dict[str, dict], metadata_end: int, available: int) -> None:
    """reader.rs:269-295. The minimum is the metadata's end plus the largest tensor end: it
    leaves out the padding that aligns the data section (base.rs:58-62), so a file cut in its
    last bytes can pass this check and fail when its last tensor is read."""
    if not descriptors:
        return
    min_size = metadata_end + max(d["data_offsets"][1] for d in descriptors.values())
    if available < min_size:
        truncated = burn.PACK["truncated"].render(min_size, available)
        raise RecordError.io(burn.PACK["validation"].render(truncated))


def _tensor_range(data_offset: int, name: str, descriptor: dict) -> tuple[int, int]:
    """reader.rs:197-234 (the platform-maximum and overflow checks cannot fail for offsets a
    u64 holds on a 64-bit platform)."""
    start = data_offset + descriptor["data_offsets"][0]
    end = data_offset + descriptor["data_offsets"][1]
    if end < start:
        text = burn.PACK["corrupted_offsets"].render(name, end, start)
        raise RecordError.io(burn.PACK["validation"].render(text))
    if end - start > MAX_TENSOR_SIZE:
        text = burn.PACK["tensor_size"].render(name, end - start, MAX_TENSOR_SIZE)
        raise RecordError.io(burn.PACK["validation"].render(text))
    return start, end


# -- records ------------------------------------------------------------------


def param_id(name: str) -> int:
    """A u64 parameter id for the tensor ``name``, the same on every run."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def encode(record: Any) -> bytes:
    """Serialize a record to burnpack bytes: a :class:`Pack` as it is, a module record (a dict
    of tensors by path), or nested dicts/lists of tensors and plain values."""
    if isinstance(record, Pack):
        return pack(record.tensors, record.metadata, record.scalars)
    if isinstance(record, dict) and all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in record.items()
    ):
        # A module record: store/mod.rs:189-202.
        return pack([PackTensor.from_torch(k, v, param_id(k)) for k, v in record.items()])
    tensors: list[PackTensor] = []
    scalars: dict[str, tuple[str, Any]] = {}

    def visit(value: Any, path: str) -> Any:
        if isinstance(value, torch.Tensor):
            tensors.append(PackTensor.from_torch(path, value, param_id(path)))
            return {"tensor": path}
        if isinstance(value, dict):
            # Pairs keep non-string keys (optimizer state is keyed by int).
            return {
                "dict": [[k, visit(v, f"{path}.{k}" if path else str(k))] for k, v in value.items()]
            }
        if isinstance(value, list | tuple):
            return {"list": [visit(v, f"{path}.{i}") for i, v in enumerate(value)]}
        if isinstance(value, bool):
            scalars[path] = ("Bool", value)
        elif isinstance(value, int):
            scalars[path] = ("Int", value) if -(1 << 63) <= value < 1 << 63 else ("UInt", value)
        elif isinstance(value, float):
            scalars[path] = ("Float", value)
        else:
            return {"value": value}
        return {"scalar": path}

    tree = visit(record, "")
    return pack(tensors, {TREE_KEY: json.dumps(tree)}, scalars)


def decode(data: bytes) -> Any:
    """Parse a burnpack file's bytes (see :func:`unpack`) into the record it holds: a dict
    of tensors by name (a module record), the :class:`Pack` of a record with scalars or
    metadata (an optimizer's or a scheduler's), or the nested record the trainer wrote."""
    contents = unpack(data)
    tensors = {t.name: t.to_torch() for t in contents.tensors}
    if TREE_KEY not in contents.metadata:
        return contents if contents.scalars or contents.metadata else tensors
    scalars = {key: value for key, (_, value) in contents.scalars.items()}
    return _build(json.loads(contents.metadata[TREE_KEY]), tensors, scalars)


def _build(node: dict, tensors: dict[str, torch.Tensor], scalars: dict[str, Any]) -> Any:
    if "tensor" in node:
        return tensors[node["tensor"]]
    if "scalar" in node:
        return scalars[node["scalar"]]
    if "dict" in node:
        return {k: _build(v, tensors, scalars) for k, v in node["dict"]}
    if "list" in node:
        return [_build(v, tensors, scalars) for v in node["list"]]
    return node["value"]


# -- files ------------------------------------------------------------------


def _reader_io(err: IoError) -> RecordError:
    # The reader's I/O errors carry no path, as burn's do: "I/O error: {io}".
    return RecordError.io(burn.PACK["io"].render(err), errno=err.errno)


def write_record(path: Path | str, record: Any) -> None:
    """Write a record the way burn-pack's ``Writer::write_to_file`` does (see the module
    docstring). A path without an extension gets ``.bpk`` (writer.rs:140-149 at main; the
    same at 0.22.0-pre.1 and 0.22.0-pre.2)."""
    path = Path(path)
    if _has_no_extension(path):
        path = path.with_name(f"{path.name}.{EXTENSION}")
    data = encode(record)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as err:
        raise _writer_io("create", path, err) from err
    try:
        _write_all(fd, data)
    except OSError as err:
        raise _writer_io("write", path, err) from err
    finally:
        os.close(fd)


def _writer_io(step: str, path: Path | str, err: OSError) -> RecordError:
    text = burn.PACK[step].render(path, os_error_display(err))
    return RecordError.io(burn.PACK["io"].render(text), errno=err.errno)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (a nearly full disk, RLIMIT_FSIZE):
    # keep going so the *next* call surfaces the errno, as Rust's write_all does.
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_record(path: Path | str) -> Any:
    """Read and decode a record file; errors carry burn's reader texts.

    A path without an extension that does not exist is read with ``.bpk`` appended,
    as burn-pack's reader does (reader.rs:58-67 at main).
    """
    path = Path(path)
    if _has_no_extension(path) and not path.exists():
        path = path.with_name(f"{path.name}.{EXTENSION}")
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as err:
        raise _reader_io(IoError(err)) from err
    return decode(data)


def _has_no_extension(path: Path) -> bool:
    """Rust's ``Path::extension().is_none()``: no dot in the name after its first character."""
    return path.name.rfind(".") <= 0


# -- applying a record to a module ------------------------------------------


def linear_weights(module: torch.nn.Module) -> set[str]:
    """The state-dict names of the module's Linear weights."""
    return {
        f"{name}.weight" if name else "weight"
        for name, sub in module.named_modules()
        if isinstance(sub, torch.nn.Linear)
    }


def module_record(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The module's state as burn's modules hold it: PyTorch's Linear weight is
    ``[out, in]``; burn's, in its default ``LinearLayout::Row``, is ``[d_input, d_output]``
    and its record holds it so (burn-nn modules/linear.rs:24-26 and 59-64 at v0.19.1, v0.21.0
    and main), so each Linear weight is transposed on its way into a record."""
    return to_burn_layout(module, module.state_dict())


def to_burn_layout(module: torch.nn.Module, state: dict[str, torch.Tensor]) -> dict:
    """``state`` (named as the module's state dict) with its Linear weights as burn holds them;
    the transpose is its own inverse, so the same call brings a record back to PyTorch's."""
    linear = linear_weights(module)
    return {
        name: tensor.t().contiguous() if name in linear and tensor.dim() == 2 else tensor
        for name, tensor in state.items()
    }


def apply_module_record(module: torch.nn.Module, record: dict[str, torch.Tensor]) -> None:
    """Apply a module record as burn's ``ModuleRecord::apply`` does (store/mod.rs:237-265).

    Mis-shaped tensors are checked first, then missing, then unused ones, and
    only the first failing check is reported; the shapes compared are burn's
    (:func:`module_record`), printed as burn's ``Shape`` Debug (``shape_debug``).
    """
    expected = module_record(module)
    mismatches = [
        burn.SHAPE_MISMATCH.render(
            name, shape_debug(list(expected[name].shape)), shape_debug(list(record[name].shape))
        )
        for name in expected
        if name in record and expected[name].shape != record[name].shape
    ]
    missing = [name for name in expected if name not in record]
    unused = sorted(set(record) - set(expected))
    for problems, text in (
        (mismatches, burn.APPLY_ERRORS),
        (missing, burn.MISSING_TENSORS),
        (unused, burn.UNUSED_TENSORS),
    ):
        if problems:
            raise RecordError.validation(text.render(_vec_debug(problems)))
    module.load_state_dict(to_burn_layout(module, record))


def _vec_debug(items: list[str]) -> str:
    """Rust's Debug of a ``Vec<String>``: ``["a", "b"]``."""
    return "[" + ", ".join(rust_str_debug(item) for item in items) + "]"
