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

from trainer.errors import IoError, RecordError, os_error_display

MAGIC = b"BURN"
VERSION = 1
_HEADER = struct.Struct("<4sHI")
HEADER_SIZE = _HEADER.size
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
    return _HEADER.pack(MAGIC, VERSION, len(metadata)) + metadata + b"".join(chunks)


def decode(data: bytes) -> Any:
    """Parse bytes produced by :func:`encode`; errors carry burn's reader texts."""
    if len(data) < HEADER_SIZE:
        raise _reader_io(IoError.unexpected_eof())
    magic, version, metadata_size = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise RecordError.io("Invalid magic number")
    if version != VERSION:
        raise RecordError.io("Unsupported version")
    _check_length(data, HEADER_SIZE + metadata_size)
    try:
        metadata = json.loads(data[HEADER_SIZE : HEADER_SIZE + metadata_size])
    except ValueError as err:
        raise RecordError.io(f"Invalid metadata: {err}") from err
    data_start = HEADER_SIZE + metadata_size
    data_size = sum(t["nbytes"] for t in metadata["tensors"])
    _check_length(data, data_start + data_size)
    tensors = {t["name"]: _tensor(data, data_start, t) for t in metadata["tensors"]}
    return _build(metadata["tree"], tensors)


def _check_length(data: bytes, needed: int) -> None:
    if len(data) < needed:
        raise RecordError.io(
            f"File truncated: expected at least {needed} bytes, got {len(data)} bytes"
        )


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
    return RecordError.io(f"I/O error: {err}", errno=err.errno)


def write_record(path: Path | str, record: Any) -> None:
    """Write a record the way burn's file recorder does (see the module docstring)."""
    data = encode(record)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as err:
        raise RecordError.io(
            f"I/O error: cannot create '{path}': {os_error_display(err)}", errno=err.errno
        ) from err
    try:
        _write_all(fd, data)
    except OSError as err:
        raise RecordError.io(
            f"I/O error: cannot write to '{path}': {os_error_display(err)}", errno=err.errno
        ) from err
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (a nearly full disk, RLIMIT_FSIZE):
    # keep going so the *next* call surfaces the errno, as Rust's write_all does.
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_record(path: Path | str) -> Any:
    """Read and decode a record file; errors carry burn's reader texts."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as err:
        raise _reader_io(IoError(err)) from err
    return decode(data)


# -- applying a record to a module ------------------------------------------


def apply_module_record(module: torch.nn.Module, record: dict[str, torch.Tensor]) -> None:
    """Load a module record, reporting missing, unused and mis-shaped tensors as burn does."""
    expected = module.state_dict()
    problems = []
    missing = sorted(set(expected) - set(record))
    unused = sorted(set(record) - set(expected))
    if missing:
        problems.append(f"missing tensors: {missing}")
    if unused:
        problems.append(f"unused tensors: {unused}")
    for name in sorted(set(expected) & set(record)):
        want, got = list(expected[name].shape), list(record[name].shape)
        if want != got:
            problems.append(f"shape mismatch for '{name}': expected {want}, got {got}")
    if problems:
        raise RecordError.validation("; ".join(problems))
    module.load_state_dict(record)
