"""burn-import's ``PyTorchFileRecorder`` and the generated ONNX model's record file, mirrored.

- 0.19.0 - 0.20.1 (cited at v0.20.1): ``from_file`` reads with burn-store's
  ``PytorchReader`` (``trainer.weights.pytorch`` at that release), remaps the keys,
  nests them by their dots (``unflatten``), then burn-core's serde ``Deserializer``
  builds the module's record, with ``default_for_missing_fields``: a field the file lacks
  is ``NestedValue::Default(field)``, which an ``Option`` takes as ``None`` and a struct
  refuses (``Missing source values …``); an enum tries each variant in turn (``No variant
  match``).  burn-core iterates a record's fields in a ``HashMap``'s order: when several
  are missing, which one burn names differs from run to run; the mirror names the first
  in declaration order.  Every error becomes ``RecorderError::DeserializeError`` of
  burn-import's Display (``Store error: …``, ``Serde error: …``).
- 0.19.0 - 0.20.1, ``SafetensorsFileRecorder``: candle reads the file (``Candle Tensor
  error: …``), then the same deserialization.
- 0.12.1: the recorder reads with candle's pickle reader (``Candle pickle error: …``,
  candle's text inside); the generated model's ``from_file`` loads its record with a
  file recorder, ``.expect("Record file to exist.")``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from trainer.burn import weights as texts
from trainer.errors import os_error_display
from trainer.weights.module import Enum, Opt, Param, Struct, Vec
from trainer.weights.pickle import TensorSnapshot, Unmirrored
from trainer.weights.pytorch import PytorchError, load_pytorch_file
from trainer.weights.rust import debug_str
from trainer.weights.store import rust_replace

# The zip crate's text (not burn's, not candle's) for a file with no zip central directory,
# which candle's pickle reader passes on unchanged, as huggingface/candle#2666 shows for a
# non-zip `pytorch_model.bin`. burn-import adds its wrapper around it.
ZIP_NOT_AN_ARCHIVE = "invalid Zip archive: Could not find central directory end"


class RecorderError(Exception):
    """burn-core's ``RecorderError`` at a release: its Display is its Debug."""

    variants: dict = {}

    def __init__(self, variant: str, message: str, *, errno: int | None = None):
        self.variant = variant
        self.message = message
        self.errno = errno
        super().__init__(self.debug())

    def debug(self) -> str:
        return self.variants[self.variant].debug(debug_str(self.message))


class RecorderError20(RecorderError):
    variants = texts.RECORDER_VARIANTS_20


class RecorderError12(RecorderError):
    variants = texts.RECORDER_VARIANTS_12


class SerdeError(Exception):
    """burn-core's record serde ``Error`` (v0.20.1): ``Deserialize`` or ``Other``."""

    def __init__(self, variant: str, message: str):
        self.variant = variant
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        return texts.SERDE_ERROR_DISPLAY_20[self.variant].render(self.message)


def _deserialize_error(wrapper: str, inner: object) -> RecorderError20:
    """``From<Error> for RecorderError``: ``DeserializeError(error.to_string())``."""
    message = texts.IMPORT_ERROR_DISPLAY_20[wrapper].render(inner)
    return RecorderError20("DeserializeError", message, errno=getattr(inner, "errno", None))


# -- 0.19.0 - 0.20.1 ------------------------------------------------------------------------


def load_pytorch_record(
    path: Path | str,
    module: object,
    *,
    key_remap: list[tuple[str, str]] = (),
    top_level_key: str | None = None,
) -> dict[str, Any]:
    """``PyTorchFileRecorder::<FullPrecisionSettings>::default().load(args, &device)``:
    the module's parameters by burn path (a ``Linear`` weight transposed, as the recorder's
    ``PyTorchAdapter`` does), or ``RecorderError20``."""
    try:
        file = load_pytorch_file(path, top_level_key, release="v0.20.1")
    except PytorchError as err:
        raise _deserialize_error("Store", err) from err
    tensors = _remap(file.tensors, list(key_remap))
    nested = _unflatten(tensors)
    loaded: dict[str, Any] = {}
    try:
        _deserialize(module, nested, (), None, loaded)
    except SerdeError as err:
        raise _deserialize_error("Serde", err) from err
    return loaded


def _remap(tensors: dict[str, TensorSnapshot], rules: list[tuple[str, str]]):
    """burn-core's ``remap`` (data.rs): every rule in turn on the renamed key."""
    out = {}
    for name, tensor in tensors.items():
        for pattern, replacement in rules:
            name = rust_replace(pattern, replacement, name)
        out[name] = tensor
    return out


def _unflatten(tensors: dict[str, TensorSnapshot]) -> dict:
    """``unflatten``: keys nested by their dots (numeric parts, burn's vectors, not mirrored)."""
    root: dict = {}
    for name, tensor in tensors.items():
        parts = name.split(".")
        if any(part.isdigit() for part in parts):
            raise Unmirrored(f"{name}: a numeric key part nests as a vector")
        node = root
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise Unmirrored(f"{name}: a tensor and a module at the same key")
            node = child
        node[parts[-1]] = tensor
    return root


class _Missing:
    """``NestedValue::Default(Some(field))``: what a missing field deserializes from."""

    def __init__(self, field: str | None):
        self.field = field


def _missing_struct(value: _Missing, type_name: str) -> SerdeError:
    """``DefaultDeserializer::deserialize_struct`` (de.rs:879-894)."""
    field = value.field if value.field is not None else "UNKNOWN"
    return SerdeError("Other", texts.SERDE_DE_20["missing_source"].render(field, type_name))


def _deserialize(node, value, path: tuple[str, ...], field, loaded: dict) -> None:
    if isinstance(node, Opt):
        if isinstance(value, _Missing):
            return  # `deserialize_option`: `visit_none`
        _deserialize(node.value, value, path, field, loaded)
    elif isinstance(node, Param):
        if isinstance(value, _Missing):
            raise _missing_struct(value, "ParamSerde")
        if not isinstance(value, TensorSnapshot):
            raise Unmirrored(f"{'.'.join(path)}: a parameter's record read from a map")
        loaded[".".join(path)] = value.load()
    elif isinstance(node, Struct):
        _deserialize_struct(node, value, path, loaded)
    elif isinstance(node, Enum):
        _deserialize_enum(node, value, path, loaded)
    elif isinstance(node, Vec):
        raise Unmirrored("a Vec of modules in a record")
    else:
        raise TypeError(f"not a module node: {node!r}")


def _deserialize_struct(node: Struct, value, path, loaded) -> None:
    record_item = f"{node.name}RecordItem"
    if isinstance(value, _Missing):
        raise _missing_struct(value, record_item)
    if not isinstance(value, dict):
        raise Unmirrored(f"{'.'.join(path)}: a struct read from a tensor")
    value = _adapt(node.name, dict(value), path)
    for name, child in node.fields:
        if child is None:
            continue  # an Option at None: the module's record holds none either
        item = value.get(name, _Missing(name))
        _deserialize(child, item, (*path, name), name, loaded)


def _adapt(name: str, value: dict, path) -> dict:
    """burn-import's ``PyTorchAdapter`` (common/adapter.rs): a ``Linear``'s weight is
    transposed; a norm layer's ``weight``/``bias`` become ``gamma``/``beta``."""
    if name == "Linear":
        if "weight" not in value:
            raise Unmirrored(f"{'.'.join(path)}: adapt_linear's expect on a missing weight")
        weight = value["weight"]
        value["weight"] = TensorSnapshot(
            weight.dtype, weight.shape[::-1], lambda w=weight: w.load().t().contiguous()
        )
    elif name in ("BatchNorm", "GroupNorm", "LayerNorm"):
        if "weight" not in value or "bias" not in value:
            raise Unmirrored(f"{'.'.join(path)}: rename_weight_bias's expect on a missing key")
        value["gamma"], value["beta"] = value.pop("weight"), value.pop("bias")
    elif name.startswith(("Conv", "Embedding")):
        raise Unmirrored(f"{name}: burn-import's adapter for it is not mirrored")
    return value


def _deserialize_enum(node: Enum, value, path, loaded) -> None:
    """``deserialize_enum`` (de.rs:357-395): each variant, in order, from the same value."""
    if isinstance(value, _Missing):
        raise Unmirrored("an enum from a missing field: DefaultDeserializer's unimplemented!()")
    for _, variant in node.variants:
        attempt: dict = {}
        try:
            _deserialize(variant, value, path, None, attempt)
        except SerdeError:
            continue
        loaded.update(attempt)
        return
    raise SerdeError("Deserialize", texts.SERDE_DE_20["no_variant"].render())


def load_safetensors_record(
    path: Path | str, module: object, *, key_remap: list[tuple[str, str]] = ()
) -> dict[str, Any]:
    """``SafetensorsFileRecorder::<FullPrecisionSettings>::default().load(args, &device)``
    (0.19.0 - 0.20.1, safetensors/reader.rs): candle's ``safetensors::load`` reads the file,
    then the record is deserialized as the PyTorch recorder's is (``AdapterType::PyTorch``,
    the default).  A file the safetensors crate refuses is ``Candle Tensor error: …`` around
    candle's text, which the mirror takes from the Python package built from the same
    crate (its version may word it otherwise: not burn's text)."""
    from trainer.weights.store import SafetensorsStoreError, read_safetensors

    try:
        tensors = dict(read_safetensors(path))
    except SafetensorsStoreError as err:
        if err.variant != "Safetensors":
            raise Unmirrored(f"candle's text for {err.variant}") from err
        inner = str(err.payload)
        message = texts.IMPORT_CANDLE_DISPLAY_20["CandleTensor"].render(inner)
        raise RecorderError20("DeserializeError", message) from err
    nested = _unflatten(_remap(tensors, list(key_remap)))
    loaded: dict[str, Any] = {}
    try:
        _deserialize(module, nested, (), None, loaded)
    except SerdeError as err:
        message = texts.IMPORT_CANDLE_DISPLAY_20["Serde"].render(err)
        raise RecorderError20("DeserializeError", message) from err
    return loaded


class BurnpackError20(RecorderError):
    """burn-store's ``BurnpackError`` (0.20.1), for the variant it mirrors: ``IoError``."""

    variants = texts.BURNPACK_VARIANTS_20


def open_burnpack_file(path: Path | str) -> Path:
    """0.20.1's ``BurnpackStore::from_file(file)`` reading: ``.bpk`` added to a path with
    no extension (store.rs:328-345), then ``File::open``, its error's Display in
    ``IoError`` (reader.rs:266 with mmap, :406 without)."""
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix("." + texts.BPK_EXTENSION_20.render())
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        raise BurnpackError20("IoError", os_error_display(err), errno=err.errno) from err
    return path


# -- 0.12.1 -----------------------------------------------------------------------------


def load_candle_pytorch_record(path: Path | str) -> dict[str, TensorSnapshot]:
    """0.12.1's ``from_file``: ``candle_core::pickle::read_all(path)?``.  candle reads only
    ZIP archives: any other file is the zip crate's error, inside burn's wrapper.  A ZIP
    state dict is read here with burn-store's reader, standing in for candle's."""
    if not zipfile.is_zipfile(path):
        message = texts.IMPORT_ERROR_DISPLAY_12["CandlePickle"].render(ZIP_NOT_AN_ARCHIVE)
        raise RecorderError12("DeserializeError", message)
    return load_pytorch_file(path).tensors


def open_record_file(path: Path | str) -> Path:
    """0.12.1's file recorder opening a record: the recorder's extension set on the path
    (``mpk`` for ``NamedMpkFileRecorder``, file.rs:85-99), a missing file ``FileNotFound``
    with std's text, any other open error ``Unknown``."""
    path = Path(path).with_suffix("." + texts.MPK_EXTENSION_12.render())
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        variant = "FileNotFound" if isinstance(err, FileNotFoundError) else "Unknown"
        raise RecorderError12(variant, os_error_display(err), errno=err.errno) from err
    return path
