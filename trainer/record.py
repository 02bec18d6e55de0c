"""A small burnpack-like record format: a header, JSON metadata, raw tensor bytes.

Layout::

    magic "BURN" | version u16 LE | metadata length u32 LE | metadata (JSON) | tensor data

The metadata holds the record's structure (nested dicts and lists, with tensors
replaced by references) and, per tensor, its dtype, shape and byte range.

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

import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import torch

from trainer import burn
from trainer.errors import IoError, RecorderError, RecordError, os_error_display, rust_str_debug

MAGIC = b"BURN"
VERSION = 1
HEADER = struct.Struct("<4sHI")
HEADER_SIZE = HEADER.size
EXTENSION = "bpk"

_DTYPES = {
    "F32": (torch.float32, np.float32),
    "F64": (torch.float64, np.float64),
    "I64": (torch.int64, np.int64),
    "I32": (torch.int32, np.int32),
    "Bool": (torch.bool, np.bool_),
}
_DTYPE_NAMES = {torch_dtype: name for name, (torch_dtype, _) in _DTYPES.items()}


# -- encoding ---------------------------------------------------------------


def encode(record: Any) -> bytes:
    """Serialize a record (nested dicts/lists of tensors and plain values) to bytes."""
    tensors: list[dict] = []
    chunks: list[bytes] = []
    offset = 0

    def visit(value: Any, path: str) -> Any:
        nonlocal offset
        if isinstance(value, torch.Tensor):
            data = value.detach().cpu().contiguous().numpy().tobytes()
            tensors.append(
                {
                    "name": path,
                    "dtype": _DTYPE_NAMES[value.dtype],
                    "shape": list(value.shape),
                    "offset": offset,
                    "nbytes": len(data),
                }
            )
            chunks.append(data)
            offset += len(data)
            return {"tensor": path}
        if isinstance(value, dict):
            # Pairs keep non-string keys (optimizer state is keyed by int).
            return {
                "dict": [[k, visit(v, f"{path}.{k}" if path else str(k))] for k, v in value.items()]
            }
        if isinstance(value, list | tuple):
            return {"list": [visit(v, f"{path}.{i}") for i, v in enumerate(value)]}
        return {"value": value}

    tree = visit(record, "")
    metadata = json.dumps({"tree": tree, "tensors": tensors}).encode()
    return HEADER.pack(MAGIC, VERSION, len(metadata)) + metadata + b"".join(chunks)


def decode(data: bytes) -> Any:
    """Parse a file's bytes produced by :func:`encode`, in the order and with the texts of
    burn-pack's ``Reader::from_file`` (reader.rs:61-88 at main)."""
    # `read_exact` of the header, then of the metadata: a file that ends inside either
    # fails with the I/O error "failed to fill whole buffer" (reader.rs:79, 83).
    if len(data) < HEADER_SIZE:
        raise _reader_io(IoError.unexpected_eof())
    magic, version, metadata_size = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise RecordError.io(burn.PACK["magic"].render())
    if version > VERSION:  # reader.rs:242: an older version is read
        raise RecordError.io(burn.PACK["version"].render())
    if len(data) < HEADER_SIZE + metadata_size:
        raise _reader_io(IoError.unexpected_eof())
    try:
        metadata = json.loads(data[HEADER_SIZE : HEADER_SIZE + metadata_size])
    except ValueError as err:
        # reader.rs:255-258. The payload is the decoder's: ciborium's (CBOR) in burn, the
        # JSON decoder's here; burn's text ends in a payload this trainer cannot mirror.
        raise RecordError.io(burn.PACK["metadata"].render(err)) from err
    data_start = HEADER_SIZE + metadata_size
    data_size = sum(t["nbytes"] for t in metadata["tensors"])
    _check_length(data, data_start + data_size)
    tensors = {t["name"]: _tensor(data, data_start, t) for t in metadata["tensors"]}
    return _build(metadata["tree"], tensors)


def _check_length(data: bytes, needed: int) -> None:
    if len(data) < needed:
        truncated = burn.PACK["truncated"].render(needed, len(data))
        raise RecordError.io(burn.PACK["validation"].render(truncated))


def _tensor(data: bytes, data_start: int, meta: dict) -> torch.Tensor:
    start = data_start + meta["offset"]
    torch_dtype, np_dtype = _DTYPES[meta["dtype"]]
    array = np.frombuffer(
        data, dtype=np_dtype, count=meta["nbytes"] // np.dtype(np_dtype).itemsize, offset=start
    )
    return torch.from_numpy(array.copy()).reshape(meta["shape"]).to(torch_dtype)


def _build(node: dict, tensors: dict[str, torch.Tensor]) -> Any:
    if "tensor" in node:
        return tensors[node["tensor"]]
    if "dict" in node:
        return {k: _build(v, tensors) for k, v in node["dict"]}
    if "list" in node:
        return [_build(v, tensors) for v in node["list"]]
    return node["value"]


# -- files ------------------------------------------------------------------


def _reader_io(err: IoError) -> RecordError:
    # The reader's I/O errors carry no path, as burn's do: "I/O error: {io}".
    return RecordError.io(burn.PACK["io"].render(err), errno=err.errno)


def write_record(path: Path | str, record: Any) -> None:
    """Write a record the way burn's file recorder does (see the module docstring)."""
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


def apply_module_record(module: torch.nn.Module, record: dict[str, torch.Tensor]) -> None:
    """Apply a module record as burn's ``ModuleRecord::apply`` does (store/mod.rs:237-265).

    Mis-shaped tensors are checked first, then missing, then unused ones, and
    only the first failing check is reported.  Shapes print as lists: burn
    prints its ``Shape`` type's Debug, which lives in cubecl, outside burn's
    repository, so the trainer does not claim its exact form.
    """
    expected = module.state_dict()
    mismatches = [
        burn.SHAPE_MISMATCH.render(name, list(expected[name].shape), list(record[name].shape))
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
    module.load_state_dict(record)


def _vec_debug(items: list[str]) -> str:
    """Rust's Debug of a ``Vec<String>``: ``["a", "b"]``."""
    return "[" + ", ".join(rust_str_debug(item) for item in items) + "]"


# -- burn v0.19.1: the file recorder -------------------------------------------


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


def write_recorded(path: Path | str, record: Any) -> None:
    """Save like v0.19.1's file recorder (record/file.rs:105-131): parents made, old file removed.

    The file holds a BurnRecord: the metadata, then the item (recorder.rs:52-53, 200-209).
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
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as err:
        raise RecorderError.from_open(err) from err
    try:
        _write_all(fd, encode({"metadata": COMPACT_RECORDER_METADATA_19, "item": record}))
    except OSError as err:
        raise Unmirrored(f"v0.19.1 reports this write error through rmp_serde: {err}") from err
    finally:
        os.close(fd)


def read_recorded(path: Path | str, like: dict[str, Any] | None = None) -> Any:
    """Load like v0.19.1's ``Recorder::load`` (recorder.rs:58-105) and return the item.

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
    try:
        record = decode(data)
    except RecordError as err:
        raise Unmirrored(f"v0.19.1 decodes through rmp_serde: {err}") from err
    missing = None if like is None else _first_missing_field(_fields(like), _fields(record["item"]))
    if missing is None:
        return record["item"]
    error = RecorderError("Unknown", burn.SERDE_MISSING_FIELD.format(missing))
    raise RecorderError("Unknown", _unable_to_load(record["metadata"], error))


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


def _first_missing_field(expected: dict[str, Any], found: dict[str, Any]) -> str | None:
    """The field serde reports missing: it reads the file's entries in their order (a
    nested record fails while its entry is read), then checks the struct's fields in
    declaration order; entries the struct lacks are skipped."""
    for name, value in found.items():
        if isinstance(expected.get(name), dict) and isinstance(value, dict):
            missing = _first_missing_field(expected[name], value)
            if missing is not None:
                return missing
    return next((name for name in expected if name not in found), None)


def _unable_to_load(metadata: dict[str, str], error: RecorderError) -> str:
    """The message of recorder.rs:65-96 at v0.19.1, the loading recorder being CompactRecorder."""
    texts = burn.RECORDER_LOAD_19
    message = texts["unable"].render()
    for field in ("float", "int", "format", "version"):
        actual, expected = metadata[field], COMPACT_RECORDER_METADATA_19[field]
        if actual != expected:
            message += texts[field].render(rust_str_debug(actual), rust_str_debug(expected))
    return message + texts["error"].render(error.debug())


def load_module_record_19(module: torch.nn.Module, record: dict[str, torch.Tensor]) -> None:
    """v0.19.1's ``Module::load_record``: each parameter takes the record's tensor, moved to
    the module's device, with no check of its shape (param/tensor.rs:115-136, 296-299)."""
    record = {name: tensor for name, tensor in record.items() if name in module.state_dict()}
    state = module.state_dict(keep_vars=True)  # serde skipped the entries the module lacks
    with torch.no_grad():
        for name, tensor in record.items():
            state[name].data = tensor.to(state[name].device, state[name].dtype)
