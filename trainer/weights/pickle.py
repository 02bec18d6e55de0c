"""burn-store's pickle reader (crates/burn-store/src/pytorch/pickle_reader.rs at main), mirrored.

"Just enough pickle support to read PyTorch checkpoints": the opcodes burn knows, its
stack and memo, and its rebuilding of tensors, each check in burn's order with burn's
text.  Where burn clones a value (the memo's ``put`` and ``get``), so does the mirror:
an object taken from the memo is a copy, never the object itself.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trainer.burn import weights as texts
from trainer.errors import IoError
from trainer.weights.rust import debug_f64, debug_list, debug_str, parse_int_error, utf8_error

MEMO_NODE_LIMIT = 1_000_000


# PickleError's Display at each release line mirrored (burn-import 0.20.1 reads through the
# burn-store of its release: the same literals on other lines).
PICKLE_DISPLAYS = {"main": texts.PICKLE_DISPLAY, "v0.20.1": texts.PICKLE_DISPLAY_20}


class PickleError(Exception):
    """burn-store's ``PickleError``: ``str()`` is its Display, ``debug()`` its Debug (main)."""

    release = "main"  # whose Display texts ``str()`` prints

    def __init__(self, variant: str, payload: Any = None):
        self.variant = variant
        self.payload = payload  # IoError, int, str, or None for a unit variant
        super().__init__(variant)

    @classmethod
    def io(cls, err: IoError) -> PickleError:
        return cls("Io", err)

    @classmethod
    def data(cls, key: str, *values: object) -> PickleError:
        """``PickleError::InvalidData`` with the message of ``texts.PICKLE_DATA[key]``."""
        return cls("InvalidData", texts.PICKLE_DATA[key].render(*values))

    def __str__(self) -> str:
        display = PICKLE_DISPLAYS[self.release].get(self.variant)
        if display is None:
            raise Unmirrored(f"PickleError::{self.variant}'s Display at {self.release}")
        if self.variant == "InvalidOpCode":
            return display.render(f"{self.payload:02x}")
        if self.variant == "UnexpectedOpCode":
            return display.render(texts.OPCODE_NAMES[self.payload].render())
        if self.payload is None:
            return display.render()
        return display.render(self.payload)

    def debug(self) -> str:
        if self.variant in texts.PICKLE_UNIT_VARIANTS:
            return texts.PICKLE_UNIT_VARIANTS[self.variant].render()
        variant = texts.PICKLE_VARIANTS[self.variant]
        if self.variant == "Io":
            return variant.debug(self.payload.debug())
        if self.variant == "UnexpectedOpCode":
            return variant.debug(texts.OPCODE_NAMES[self.payload].render())
        if isinstance(self.payload, str):
            return variant.debug(debug_str(self.payload))
        return variant.debug(str(self.payload))


# -- burn's Object enum ------------------------------------------------------------


@dataclass
class Object:
    """One value of burn's ``Object`` enum: ``kind`` is the variant, ``value`` its data."""

    kind: str
    value: Any = None

    def debug(self) -> str:
        """The derived Debug of the variant (a HashMap's entries in insertion order)."""
        kind, value = self.kind, self.value
        if kind == "None":
            return "None"
        if kind == "Class":
            module, name = value
            return f"Class {{ module_name: {debug_str(module)}, name: {debug_str(name)} }}"
        if kind == "String":
            return f"String({debug_str(value)})"
        if kind == "Int":
            return f"Int({value})"
        if kind == "Float":
            return f"Float({debug_f64(value)})"
        if kind == "Bool":
            return f"Bool({str(value).lower()})"
        if kind in ("Tuple", "List", "PersistentTuple"):
            return f"{kind}({debug_list([item.debug() for item in value])})"
        if kind == "Persistent":
            return f"Persistent({debug_list([str(b) for b in value])})"
        if kind == "Dict":
            entries = ", ".join(f"{debug_str(k)}: {v.debug()}" for k, v in value.items())
            return f"Dict({{{entries}}})"
        if kind in ("Reduce", "Build"):
            callable_, args = value
            return f"{kind} {{ callable: {callable_.debug()}, args: {args.debug()} }}"
        raise Unmirrored(f"the Debug form of Object::{kind}")

    def node_count(self) -> int:
        if self.kind in ("Tuple", "List", "PersistentTuple"):
            return 1 + sum(item.node_count() for item in self.value)
        if self.kind == "Dict":
            return 1 + sum(item.node_count() for item in self.value.values())
        if self.kind in ("Reduce", "Build"):
            return 1 + self.value[0].node_count() + self.value[1].node_count()
        return 1

    def clone(self) -> Object:
        """Rust's ``clone()``: containers copied all the way down, tensors shared."""
        if self.kind in ("Tuple", "List", "PersistentTuple"):
            return Object(self.kind, [item.clone() for item in self.value])
        if self.kind == "Dict":
            return Object("Dict", {k: v.clone() for k, v in self.value.items()})
        if self.kind in ("Reduce", "Build"):
            return Object(self.kind, (self.value[0].clone(), self.value[1].clone()))
        return Object(self.kind, self.value)

    def is_class(self, module: str, name: str) -> bool:
        return self.kind == "Class" and self.value == (module, name)


class Unmirrored(Exception):
    """A path of burn's code the mirror does not follow (it says which)."""


MARK = ("mark", "mark")  # burn marks the stack with this Class


@dataclass(frozen=True)
class TensorSnapshot:
    """A tensor burn found in the file: its dtype, shape, and how to read its data."""

    dtype: str  # burn's DType: F32, F64, F16, BF16, I64, I32, I16, I8, U8, Bool
    shape: tuple[int, ...]
    load: Callable[[], Any]  # returns a torch tensor, as burn's `to_data()` (lazily)


# -- the data sources (lazy_data.rs) -------------------------------------------------


class DataSource:
    """``LazyDataSource``: reads a storage's bytes by key; see ``trainer.weights.pytorch``."""

    legacy = False

    def contains(self, key: str) -> bool:
        raise NotImplementedError

    def keys(self) -> list[str]:
        raise NotImplementedError

    def read(self, key: str) -> bytes:
        """The storage's bytes; OSError when burn's read fails."""
        raise NotImplementedError

    def track_storage_usage(self, storage_key: str, offset: int, size: int) -> None:
        """Only the legacy source learns its storages' extents while the pickle is read."""


# -- tensors (rebuild_*) ----------------------------------------------------------------

# storage_type_to_dtype (pickle_reader.rs:455-472): storage class name -> (DType, bytes)
STORAGE_DTYPES = {
    "FloatStorage": ("F32", 4),
    "DoubleStorage": ("F64", 8),
    "HalfStorage": ("F16", 2),
    "BFloat16Storage": ("BF16", 2),
    "LongStorage": ("I64", 8),
    "IntStorage": ("I32", 4),
    "ShortStorage": ("I16", 2),
    "CharStorage": ("I8", 1),
    "ByteStorage": ("U8", 1),
    "BoolStorage": ("Bool", 1),
}


def _rebuild_from_type_v2(obj: Object, stack: Stack) -> Object:
    if obj.kind != "Tuple":
        raise PickleError.data("rebuild_not_tuple", obj.debug())
    args = obj.value
    if not args:
        raise PickleError.data("rebuild_empty")
    func = args[0]
    if func.kind != "Class":
        raise PickleError.data("rebuild_not_class", func.debug())
    module, name = func.value
    if len(args) == 2 and args[1].kind == "Tuple":
        actual = args[1].clone()
    else:
        actual = Object("Tuple", [a.clone() for a in args[1:]])
    if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
        return _rebuild_tensor(actual, stack, minimum=5, fn_name="rebuild_tensor_v2")
    if (module, name) == ("torch._utils", "_rebuild_tensor"):
        return _rebuild_tensor(actual, stack, minimum=4, fn_name="rebuild_tensor")
    if (module, name) == ("torch._tensor", "_rebuild_from_type_v2"):
        return _rebuild_from_type_v2(actual, stack)
    if (module, name) == ("torch._utils", "_rebuild_parameter"):
        return _rebuild_parameter(actual, stack)
    if (module, name) == ("collections", "OrderedDict"):
        return Object("Dict", {})
    raise PickleError("UnsupportedType", texts.PICKLE_DATA["unsupported_type"].render(module, name))


def _rebuild_parameter(args: Object, stack: Stack) -> Object:
    if args.kind != "Tuple":
        raise PickleError.data("parameter_not_tuple", args.debug())
    if not args.value:
        raise PickleError.data("parameter_empty")
    data = args.value[0]
    if data.kind == "Reduce":
        return _rebuild_from_type_v2(data.clone(), stack)
    return data.clone()


def _storage_arg(arg: Object, fn_name: str) -> tuple[bytes, list[Object] | None]:
    if arg.kind == "Persistent":
        return arg.value, None
    if arg.kind in ("PersistentTuple", "Tuple"):
        return b"", [item.clone() for item in arg.value]
    raise PickleError.data("not_persistent", fn_name, arg.debug())


def _shape_arg(arg: Object, fn_name: str) -> tuple[int, ...]:
    if arg.kind != "Tuple":
        raise PickleError.data("shape_not_tuple", fn_name, arg.debug())
    shape = []
    for item in arg.value:
        if item.kind != "Int":
            raise PickleError.data("shape_ints")
        shape.append(item.value % 2**64)  # `*i as usize`
    return tuple(shape)


def _rebuild_tensor(args: Object, stack: Stack, *, minimum: int, fn_name: str) -> Object:
    """``rebuild_tensor_v2`` (5+ arguments) and the legacy ``rebuild_tensor`` (4+)."""
    if args.kind != "Tuple":
        key = "tensor_v2_not_tuple" if minimum == 5 else "tensor_not_tuple"
        raise PickleError.data(key, args.debug())
    if len(args.value) < minimum:
        raise PickleError.data("tensor_v2_args" if minimum == 5 else "tensor_args", len(args.value))
    storage_info, storage_tuple = _storage_arg(args.value[0], fn_name)
    offset = args.value[1].value % 2**64 if args.value[1].kind == "Int" else 0
    shape = _shape_arg(args.value[2], fn_name)
    return _rebuild_tensor_impl(storage_info, storage_tuple, offset, shape, stack.data_source)


def _storage_dtype(storage_type: str) -> tuple[str, int]:
    if storage_type not in STORAGE_DTYPES:
        raise PickleError.data("unknown_storage", storage_type)
    return STORAGE_DTYPES[storage_type]


def _storage_of(storage_info: bytes, storage_tuple: list[Object] | None):
    """(dtype, element size, storage key, total elements or None), as rebuild_tensor_impl
    reads them from the persistent id (pickle_reader.rs:483-564)."""
    if storage_tuple is not None:
        if len(storage_tuple) < 3:
            raise PickleError.data("storage_tuple", len(storage_tuple))
        kind = storage_tuple[1]
        if kind.kind == "String":
            storage_type = kind.value
        elif kind.kind == "Class":
            storage_type = kind.value[1]
        else:
            raise PickleError.data("storage_type", kind.debug())
        dtype, size = _storage_dtype(storage_type)
        key = storage_tuple[2]
        if key.kind != "String":
            raise PickleError.data("storage_key", key.debug())
        total = storage_tuple[4] if len(storage_tuple) > 4 else None
        total = total.value % 2**64 if total is not None and total.kind == "Int" else None
        return dtype, size, key.value, total
    if storage_info:
        # A persistent id given as a string: burn parses a Debug form it never writes.
        raise Unmirrored("a persistent id given as a string (pickle_reader.rs:523-559)")
    raise PickleError.data("no_storage")


def _rebuild_tensor_impl(storage_info, storage_tuple, offset, shape, source) -> Object:
    dtype, size, storage_key, total = _storage_of(storage_info, storage_tuple)
    if source is None:
        raise PickleError.data("no_data_source")
    key = _data_file_key(source, storage_key)
    if source.legacy:
        needed = total * size if total is not None else (offset + _product(shape)) * size
        source.track_storage_usage(storage_key, 0, needed)

    def load():
        return _tensor_data(source, key, dtype, size, offset, shape)

    return Object("TorchParam", TensorSnapshot(dtype, shape, load))


def _data_file_key(source: DataSource, storage_key: str) -> str:
    exact = f"data/{storage_key}"
    if source.contains(exact):
        return exact
    for key in source.keys():
        if key.endswith(f"/data/{storage_key}") or (
            "/data/" in key and key.rsplit("/", 1)[-1] == storage_key
        ):
            return key
    return exact


def _product(shape: tuple[int, ...]) -> int:
    product = 1
    for dim in shape:
        product *= dim
    return product


def _tensor_data(source, key, dtype, size, offset, shape):
    """The closure burn stores in the snapshot (pickle_reader.rs:616-859): a storage that
    cannot be read, or an offset past its end, gives zeros; a short one is zero-padded."""
    import torch

    torch_dtype = TORCH_DTYPES[dtype]
    count = max(_product(shape), 1)
    try:
        data = source.read(key)
    except OSError:
        return _reshape(torch.zeros(count, dtype=torch_dtype), shape)
    start = offset * size
    if start >= len(data):
        # burn returns f32 zeros here, whatever the storage's dtype
        return _reshape(torch.zeros(count, dtype=torch.float32), shape)
    available = (len(data) - start) // size
    read = min(count, available)
    raw = bytearray(data[start : start + read * size])
    values = torch.frombuffer(raw, dtype=torch.uint8 if dtype == "Bool" else torch_dtype)
    values = values != 0 if dtype == "Bool" else values.clone()
    padding = torch.zeros(count - read, dtype=values.dtype)
    return _reshape(torch.cat([values, padding]), shape)


def _reshape(values, shape):
    if _product(shape) != values.numel():
        # burn's TensorData::new refuses a shape its values do not fill (an empty tensor)
        raise Unmirrored(f"TensorData of shape {list(shape)} with {values.numel()} values")
    return values.reshape(shape)


def _torch_dtypes() -> dict[str, Any]:
    import torch

    return {
        "F32": torch.float32,
        "F64": torch.float64,
        "F16": torch.float16,
        "BF16": torch.bfloat16,
        "I64": torch.int64,
        "I32": torch.int32,
        "I16": torch.int16,
        "I8": torch.int8,
        "U8": torch.uint8,
        "Bool": torch.bool,
    }


class _LazyDtypes(dict):
    def __missing__(self, key):
        self.update(_torch_dtypes())
        return dict.__getitem__(self, key)


TORCH_DTYPES: dict[str, Any] = _LazyDtypes()


# -- the stack machine (read_pickle_with_optional_data) -------------------------------


class Stack:
    def __init__(self, data_source: DataSource | None = None):
        self.stack: list[Object] = []
        self.memo: dict[int, Object] = {}
        self.data_source = data_source
        self.memo_nodes = 0

    def push(self, obj: Object) -> None:
        self.stack.append(obj)

    def pop(self) -> Object:
        if not self.stack:
            raise PickleError("StackUnderflow")
        return self.stack.pop()

    def top(self) -> Object:
        if not self.stack:
            raise PickleError("StackUnderflow")
        return self.stack[-1].clone()

    def last(self) -> Object:
        if not self.stack:
            raise PickleError("StackUnderflow")
        return self.stack[-1]

    def pop_to_marker(self) -> list[Object]:
        for position in range(len(self.stack) - 1, -1, -1):
            if self.stack[position].is_class(*MARK):
                items = self.stack[position + 1 :]
                del self.stack[position:]
                return items
        raise PickleError.data("marker")

    def memo_get(self, index: int) -> Object:
        if index not in self.memo:
            raise PickleError("MemoNotFound", index)
        obj = self.memo[index].clone()
        self.memo_nodes += obj.node_count()
        if self.memo_nodes > MEMO_NODE_LIMIT:
            raise PickleError.data("memo_bomb")
        return obj


class _Reader:
    """Reads like Rust's `Read`/`BufRead`: a short read is "failed to fill whole buffer"."""

    def __init__(self, stream: io.BufferedIOBase):
        self.stream = stream

    def exact(self, count: int) -> bytes:
        data = self.stream.read(count)
        if len(data) < count:
            raise PickleError.io(IoError.unexpected_eof())
        return data

    def u8(self) -> int:
        return self.exact(1)[0]

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.exact(struct.calcsize(fmt)))[0]

    def line(self) -> bytes:
        """`read_until(b'\\n')`, then the last byte (and a `\\r` before it) dropped."""
        data = bytearray()
        while True:
            byte = self.stream.read(1)
            if not byte:
                break
            data += byte
            if byte == b"\n":
                break
        if data:
            data.pop()
        if data[-1:] == b"\r":
            data.pop()
        return bytes(data)

    def tell(self) -> int:
        return self.stream.tell()


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PickleError.data("utf8", utf8_error(data)) from None


def _long1(reader: _Reader) -> int:
    length = reader.u8()
    data = reader.exact(length)
    value = 0
    for i, byte in enumerate(data[:8]):
        value |= byte << (8 * i)
    if length < 8 and data and data[-1] & 0x80:
        for i in range(length, 8):
            value |= 0xFF << (8 * i)
    value &= 2**64 - 1
    return value - 2**64 if value >= 2**63 else value


def _dict_key(obj: Object) -> str:
    if obj.kind == "String":
        return obj.value
    if obj.kind == "Int":
        return str(obj.value)
    raise PickleError.data("dict_key_type", obj.debug())


def read_pickle(stream, data_source: DataSource | None = None) -> Object:
    """One pickle from ``stream`` (at its position), as ``read_pickle_with_optional_data``."""
    reader = _Reader(stream)
    stack = Stack(data_source)
    while True:
        code = reader.u8()
        handler = _OPCODES.get(code)
        if handler is None:
            raise PickleError("InvalidOpCode", code)
        if handler(reader, stack) is _STOP:
            break
    return stack.pop()


_STOP = object()


def _proto(reader, stack):
    version = reader.u8()
    if version > 5:
        raise PickleError("InvalidProtocol", version)


def _global(reader, stack):
    module = _text(reader.line())
    name = _text(reader.line())
    stack.push(Object("Class", (module, name)))


def _int(reader, stack):
    text = _text(reader.line())
    error = parse_int_error(text)
    if error is not None:
        raise PickleError.data("int_value", text, error)
    stack.push(Object("Int", int(text)))


def _push(kind: str, read: Callable[[_Reader], Any]):
    def handler(reader, stack):
        stack.push(Object(kind, read(reader)))

    return handler


def _string(length_format: str):
    def handler(reader, stack):
        stack.push(Object("String", _text(reader.exact(reader.unpack(length_format)))))

    return handler


def _tuple_of(count: int):
    def handler(reader, stack):
        items = [stack.pop() for _ in range(count)]
        stack.push(Object("Tuple", items[::-1]))

    return handler


def _tuple(reader, stack):
    stack.push(Object("Tuple", stack.pop_to_marker()))


def _append(reader, stack):
    value = stack.pop()
    target = stack.last()
    if target.kind != "List":
        raise PickleError("UnexpectedOpCode", "Append")
    target.value.append(value)


def _appends(reader, stack):
    items = stack.pop_to_marker()
    target = stack.last()
    if target.kind != "List":
        raise PickleError("UnexpectedOpCode", "Appends")
    target.value.extend(items)


def _setitem(reader, stack):
    value = stack.pop()
    key = stack.pop()
    target = stack.last()
    if target.kind != "Dict":
        raise PickleError("UnexpectedOpCode", "SetItem")
    if key.kind != "String":
        raise PickleError.data("dict_key")
    target.value[key.value] = value


def _setitems(reader, stack):
    items = stack.pop_to_marker()
    if len(items) % 2:
        raise PickleError.data("setitems_odd")
    target = stack.last()
    if target.kind != "Dict":
        raise PickleError("UnexpectedOpCode", "SetItems")
    for key, value in zip(items[::2], items[1::2], strict=True):
        target.value[_dict_key(key)] = value


def _put(index_format: str):
    def handler(reader, stack):
        index = reader.unpack(index_format)
        stack.memo[index] = stack.top()

    return handler


def _get(index_format: str):
    def handler(reader, stack):
        stack.push(stack.memo_get(reader.unpack(index_format)))

    return handler


def _mark(reader, stack):
    stack.push(Object("Class", MARK))


def _persistent_id(reader, stack):
    pid = stack.pop()
    if pid.kind == "String":
        stack.push(Object("Persistent", pid.value.encode()))
    elif pid.kind == "Tuple":
        stack.push(Object("PersistentTuple", pid.value))
    else:
        raise PickleError.data("persistent_id", pid.debug())


def _reduce(reader, stack):
    args = stack.pop()
    callable_ = stack.pop()
    if callable_.is_class("collections", "OrderedDict"):
        items = None
        if args.kind == "Tuple" and args.value and args.value[0].kind == "List":
            items = args.value[0].value
        elif args.kind == "List":
            items = args.value
        entries = {}
        for item in items or ():
            if item.kind in ("List", "Tuple") and len(item.value) >= 2:
                if item.value[0].kind == "String":
                    entries[item.value[0].value] = item.value[1].clone()
        stack.push(Object("Dict", entries))
    else:
        stack.push(_rebuild_from_type_v2(Object("Tuple", [callable_, args]), stack))


def _build(reader, stack):
    args = stack.pop()
    obj = stack.pop()
    if obj.kind == "Dict":
        if args.kind == "Dict":
            obj.value.update(args.value)
        stack.push(obj)
    else:
        stack.push(Object("Build", (obj, args)))


def _newobj(reader, stack):
    args = stack.pop()
    cls = stack.pop()
    stack.push(Object("Reduce", (cls, args)))


def _dict(reader, stack):
    items = stack.pop_to_marker()
    if len(items) % 2:
        raise PickleError.data("dict_odd")
    pairs = zip(items[::2], items[1::2], strict=True)
    stack.push(Object("Dict", {_dict_key(key): value for key, value in pairs}))


def _list(reader, stack):
    stack.push(Object("List", stack.pop_to_marker()))


def _memoize(reader, stack):
    stack.memo[len(stack.memo)] = stack.top()


_OPCODES: dict[int, Callable[[_Reader, Stack], Any]] = {
    0x80: _proto,
    ord("c"): _global,
    ord("J"): _push("Int", lambda r: r.unpack("<i")),
    ord("I"): _int,
    ord("K"): _push("Int", lambda r: r.u8()),
    ord("M"): _push("Int", lambda r: r.unpack("<H")),
    ord("G"): _push("Float", lambda r: r.unpack(">d")),
    ord("X"): _string("<I"),
    ord("U"): _string("<B"),
    0x8A: _push("Int", _long1),
    ord("N"): lambda r, s: s.push(Object("None")),
    0x88: lambda r, s: s.push(Object("Bool", True)),
    0x89: lambda r, s: s.push(Object("Bool", False)),
    ord(")"): lambda r, s: s.push(Object("Tuple", [])),
    ord("]"): lambda r, s: s.push(Object("List", [])),
    ord("}"): lambda r, s: s.push(Object("Dict", {})),
    ord("t"): _tuple,
    0x85: _tuple_of(1),
    0x86: _tuple_of(2),
    0x87: _tuple_of(3),
    ord("a"): _append,
    ord("e"): _appends,
    ord("s"): _setitem,
    ord("u"): _setitems,
    ord("q"): _put("<B"),
    ord("r"): _put("<I"),
    ord("h"): _get("<B"),
    ord("j"): _get("<I"),
    ord("("): _mark,
    ord("Q"): _persistent_id,
    ord("R"): _reduce,
    ord("b"): _build,
    0x81: _newobj,
    ord("d"): _dict,
    ord("l"): _list,
    0x94: _memoize,
    ord("."): lambda r, s: _STOP,
}


# -- skip_pickle (legacy files) ----------------------------------------------------------

_SKIP_LINES = {0x63: 2, 0x69: 2, 0x53: 1, 0x46: 1, 0x49: 1, 0x4C: 1, 0x50: 1, 0x67: 1, 0x70: 1}
_SKIP_LENGTH = {0x43: "<B", 0x55: "<B", 0x8C: "<B", 0x42: "<I", 0x54: "<I", 0x58: "<I"}
_SKIP_LENGTH.update({0x56: "<I", 0x8D: "<Q", 0x8E: "<Q", 0x8A: "<B", 0x8B: "<I"})
_SKIP_FIXED = {0x4B: 1, 0x4D: 2, 0x4A: 4, 0x47: 8, 0x71: 1, 0x68: 1, 0x72: 4, 0x6A: 4}
_SKIP_FIXED.update({0x82: 1, 0x83: 2, 0x84: 4, 0x95: 8})


def skip_pickle(stream) -> None:
    """Scan past one pickle to its STOP without building it (pickle_reader.rs:1057-1250);
    an unknown opcode is taken to carry no data."""
    reader = _Reader(stream)
    first = reader.exact(1)[0]
    pending = None
    if first == 0x80:
        reader.exact(1)
    else:
        pending = first
    while True:
        code = pending if pending is not None else reader.exact(1)[0]
        pending = None
        if code == 0x2E:
            return
        if code in _SKIP_LINES:
            for _ in range(_SKIP_LINES[code]):
                reader.line()
        elif code in _SKIP_LENGTH:
            reader.exact(reader.unpack(_SKIP_LENGTH[code]))
        elif code in _SKIP_FIXED:
            reader.exact(_SKIP_FIXED[code])
