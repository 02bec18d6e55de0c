"""burn's texts for imported weights: burn-store's (PyTorch and safetensors files, main at
2c06be35), burn-import's recorders (v0.20.1, v0.12.1) and its generated model code (v0.12.1).

The mirror in ``trainer.weights`` prints only these texts.  Each is the literal of its
cited line (``path:line@commit``), as in ``texts``; a literal that holds Rust escapes
other than ``\\n`` (``\\"``, ``\\\\``) is declared as written on its line and read with
:func:`rust_unescape` when printed.
"""

from __future__ import annotations

from trainer.burn.sources import MAIN, V0_12_1, V0_20_1
from trainer.burn.text import Text, Variant

STORE_SRC = "crates/burn-store/src"
READER_RS = f"{STORE_SRC}/pytorch/reader.rs"
PICKLE_RS = f"{STORE_SRC}/pytorch/pickle_reader.rs"
LAZY_DATA_RS = f"{STORE_SRC}/pytorch/lazy_data.rs"
PYTORCH_STORE_RS = f"{STORE_SRC}/pytorch/store.rs"
SAFETENSORS_STORE_RS = f"{STORE_SRC}/safetensors/store.rs"
APPLY_RESULT_RS = f"{STORE_SRC}/apply_result.rs"
APPLIER_RS = f"{STORE_SRC}/applier.rs"


def _t(fmt: str, path: str, line: int, end: int | None = None) -> Text:
    return Text(fmt, path, line, MAIN, end)


def _v(name: str, path: str, line: int) -> Variant:
    return Variant(name, path, line, MAIN)


def rust_unescape(literal: str) -> str:
    """A string literal's value from its source form: ``\\"`` is ``"``, ``\\\\`` is ``\\``."""
    out, chars = [], iter(literal)
    for char in chars:
        if char == "\\":
            escaped = next(chars)
            out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(escaped, escaped))
        else:
            out.append(char)
    return "".join(out)


# -- PickleError (pickle_reader.rs) --------------------------------------------

PICKLE_VARIANTS = {
    name: _v(name, PICKLE_RS, line)
    for name, line in (
        ("Io", 28),
        ("InvalidOpCode", 29),
        ("InvalidProtocol", 30),
        ("UnexpectedOpCode", 31),
        ("UnsupportedType", 32),
        ("InvalidData", 33),
        ("MemoNotFound", 35),
    )
}
# Unit variants print their name alone.
PICKLE_UNIT_VARIANTS = {
    "StackUnderflow": _t("StackUnderflow", PICKLE_RS, 34),
    "InvalidShapeOrType": _t("InvalidShapeOrType", PICKLE_RS, 36),
}
PICKLE_DISPLAY = {
    "Io": _t("IO error: {}", PICKLE_RS, 48),
    "InvalidOpCode": _t(
        "Invalid pickle opcode: 0x{:02x}. The file may be corrupted or use an unsupported "
        "pickle protocol.",
        PICKLE_RS,
        51,
    ),
    "InvalidProtocol": _t(
        "Invalid or unsupported pickle protocol version: {}. Supported versions are 2-5.",
        PICKLE_RS,
        56,
    ),
    "UnexpectedOpCode": _t("Unexpected pickle opcode {:?} in current context", PICKLE_RS, 60),
    "UnsupportedType": _t(
        "Unsupported Python type '{}'. This may indicate a full model save rather than a "
        "state_dict.",
        PICKLE_RS,
        64,
    ),
    "InvalidData": _t("Invalid data in pickle file: {}", PICKLE_RS, 67),
    "StackUnderflow": _t("Pickle stack underflow - the file may be corrupted", PICKLE_RS, 69),
    "MemoNotFound": _t(
        "Pickle memo reference {} not found - the file may be corrupted", PICKLE_RS, 73
    ),
    "InvalidShapeOrType": _t("Invalid tensor shape or data type in PyTorch file", PICKLE_RS, 77),
}
# The opcodes whose Debug an UnexpectedOpCode shows (the enum's variant names).
OPCODE_NAMES = {
    "SetItem": _t("SetItem", PICKLE_RS, 131),
    "SetItems": _t("SetItems", PICKLE_RS, 132),
    "Append": _t("Append", PICKLE_RS, 141),
    "Appends": _t("Appends", PICKLE_RS, 142),
}
# The messages of PickleError::InvalidData, and of the storage-type lookup.
PICKLE_DATA = {
    "unknown_storage_size": _t("Unknown storage type: {}", PICKLE_RS, 99),
    "utf8": _t("Invalid UTF-8: {}", PICKLE_RS, 206),
    "rebuild_empty": _t("rebuild_from_type_v2: empty args", PICKLE_RS, 261),
    "rebuild_not_tuple": _t("rebuild_from_type_v2: expected tuple got {:?}", PICKLE_RS, 267),
    "unsupported_type": _t("{}.{}", PICKLE_RS, 299),
    "rebuild_not_class": _t("rebuild_from_type_v2: expected class got {:?}", PICKLE_RS, 305),
    "parameter_empty": _t("rebuild_parameter: empty args", PICKLE_RS, 319),
    "parameter_not_tuple": _t("rebuild_parameter: expected tuple got {:?}", PICKLE_RS, 325),
    "not_persistent": _t("{}: expected persistent id got {:?}", PICKLE_RS, 348),
    "shape_ints": _t("shape must contain ints", PICKLE_RS, 362),
    "shape_not_tuple": _t("{}: expected shape tuple got {:?}", PICKLE_RS, 367),
    "tensor_not_tuple": _t("rebuild_tensor: expected tuple got {:?}", PICKLE_RS, 384),
    "tensor_args": _t("rebuild_tensor: expected at least 4 args, got {}", PICKLE_RS, 391),
    "tensor_v2_not_tuple": _t("rebuild_tensor_v2: expected tuple got {:?}", PICKLE_RS, 423),
    "tensor_v2_args": _t("rebuild_tensor_v2: expected at least 5 args, got {}", PICKLE_RS, 430),
    "unknown_storage": _t("Unknown storage type: {}", PICKLE_RS, 468),
    "storage_type": _t("Expected storage type as String or Class, got {:?}", PICKLE_RS, 496),
    "storage_key": _t("Expected storage key as String, got {:?}", PICKLE_RS, 506),
    "storage_tuple": _t(
        "Storage tuple too short, expected at least 3 elements, got {}", PICKLE_RS, 519
    ),
    "storage_parts": _t(
        "Storage info tuple too short, expected at least 3 parts, got {}", PICKLE_RS, 550
    ),
    "storage_format": _t("Invalid storage info format: {}", PICKLE_RS, 556),
    "no_storage": _t("No storage information available", PICKLE_RS, 562),
    "no_data_source": _t("Cannot load tensor data without a data source", PICKLE_RS, 571),
    "marker": _t("marker not found", PICKLE_RS, 928),
    "memo_bomb": _t("Pickle memo bomb detected: exceeded 1M nodes", PICKLE_RS, 961),
    "int_value": _t("Invalid INT value '{}': {}", PICKLE_RS, 1025),
    "persistent_id": _t("persistent id must be a string or tuple, got {:?}", PICKLE_RS, 1410),
    "dict_key": _t("dict key must be a string", PICKLE_RS, 1350),
    "setitems_odd": _t("setitems requires even number of objects", PICKLE_RS, 1361),
    "dict_odd": _t("dict requires even number of objects", PICKLE_RS, 1512),
    "dict_key_type": _t("dict key must be a valid type, got {obj:?}", PICKLE_RS, 1264),
}

# -- PytorchError (reader.rs) ----------------------------------------------------

READER_VARIANTS = {
    name: _v(name, READER_RS, line)
    for name, line in (
        ("Io", 55),
        ("Pickle", 57),
        ("Zip", 59),
        ("Tar", 61),
        ("InvalidFormat", 63),
        ("KeyNotFound", 65),
        ("Serde", 67),
    )
}
READER_DISPLAY = {
    "Io": _t("IO error: {}", READER_RS, 97),
    "Pickle": _t(
        "Pickle parsing error: {}. This may indicate an unsupported PyTorch file format or "
        "corrupted file.",
        READER_RS,
        100,
    ),
    "Zip": _t("Zip archive error: {}", READER_RS, 103),
    "Tar": _t("TAR archive error: {}", READER_RS, 104),
    "InvalidFormat": _t("Invalid PyTorch file format: {}", READER_RS, 105),
    "KeyNotFound": _t(
        "Key '{}' not found in PyTorch file. Available keys may be listed with the keys() method.",
        READER_RS,
        108,
    ),
}
# The messages of PytorchError::InvalidFormat and ::KeyNotFound.
READER_FORMAT = {
    "no_data_pkl": _t(
        "No data.pkl file found in ZIP archive. Expected PyTorch 1.6+ format with data.pkl or "
        "archive/data.pkl",
        READER_RS,
        443,
    ),
    "big_endian": _t(
        "Big-endian PyTorch files are not yet supported. The file was saved on a big-endian "
        "system and requires byte order conversion.",
        READER_RS,
        475,
    ),
    "pickle_with_tensors": _t(
        "Pickle file contains tensor data but no data source is available. This file should be "
        "loaded as ZIP or legacy format.",
        READER_RS,
        621,
    ),
    "top_level_key": _t(
        "Top-level key '{}' not found or is not a dictionary. Available top-level keys in "
        "file: {:?}",
        READER_RS,
        664,
    ),
    "not_a_dict": _t(
        "Expected a dictionary at the root of the PyTorch file, but found a different type. "
        "The file may be a full model save rather than a state_dict.",
        READER_RS,
        676,
    ),
    "legacy_magic": _t("Failed to read magic number from legacy format: {}", READER_RS, 722),
    "legacy_protocol": _t("Failed to read protocol version from legacy format: {}", READER_RS, 730),
    "legacy_sys_info": _t("Failed to read system info from legacy format: {}", READER_RS, 738),
    "legacy_skip": _t("Failed to skip main object in legacy format: {}", READER_RS, 751),
    "tar_no_pickle": _t("TAR file missing 'pickle' entry", READER_RS, 879),
    "tar_no_storages": _t("TAR file missing 'storages' entry", READER_RS, 882),
    "tar_big_endian": _t("Big-endian TAR PyTorch files are not supported", READER_RS, 894),
}
LAZY_DATA = {
    "legacy_boundaries": _t(
        "Storage boundaries not available for key '{}'. Cannot perform lazy loading.",
        LAZY_DATA_RS,
        270,
    ),
    "tar_storage_type": _t("Expected Class for storage type, got {:?}", LAZY_DATA_RS, 328),
    "tar_key": _t("Storage key '{}' not found in TAR archive", LAZY_DATA_RS, 388),
}

# -- PytorchStoreError and SafetensorsStoreError (pytorch/store.rs, safetensors/store.rs) --

PYTORCH_STORE_VARIANTS = {
    name: _v(name, PYTORCH_STORE_RS, line)
    for name, line in (
        ("Reader", 22),
        ("Io", 25),
        ("TensorNotFound", 28),
        ("ValidationFailed", 31),
        ("Other", 34),
    )
}
PYTORCH_STORE_DISPLAY = {
    "Reader": _t("PyTorch reader error: {}", PYTORCH_STORE_RS, 40),
    "Io": _t("I/O error: {}", PYTORCH_STORE_RS, 41),
    "TensorNotFound": _t("Tensor not found: {}", PYTORCH_STORE_RS, 42),
    "ValidationFailed": _t("Validation failed: {}", PYTORCH_STORE_RS, 43),
}
PYTORCH_STORE = {
    "import_errors": _t("Import errors:\n{}", PYTORCH_STORE_RS, 364),
    "missing_hint": _t(
        "\n{}\n\nHint: Use `.allow_partial(true)` on the store to get an `ApplyResult` "
        "with structured missing/error info instead of a hard failure.",
        PYTORCH_STORE_RS,
        371,
        end=372,
    ),
}
SAFETENSORS_STORE_VARIANTS = {
    name: _v(name, SAFETENSORS_STORE_RS, line)
    for name, line in (
        ("Safetensors", 34),
        ("Io", 38),
        ("TensorNotFound", 41),
        ("ValidationFailed", 44),
        ("Other", 47),
    )
}
SAFETENSORS_STORE_DISPLAY = {
    "Safetensors": _t("SafeTensors error: {}", SAFETENSORS_STORE_RS, 53),
    "Io": _t("I/O error: {}", SAFETENSORS_STORE_RS, 55),
    "TensorNotFound": _t("Tensor not found: {}", SAFETENSORS_STORE_RS, 56),
    "ValidationFailed": _t("Validation failed: {}", SAFETENSORS_STORE_RS, 57),
}
SAFETENSORS_STORE = {
    "import_errors": _t("Import errors: {:?}", SAFETENSORS_STORE_RS, 714),
    "missing_hint": _t(
        "\n{}\n\nHint: Use `.allow_partial(true)` on the store to get an `ApplyResult` "
        "with structured missing/error info instead of a hard failure.",
        SAFETENSORS_STORE_RS,
        721,
        end=722,
    ),
    "unsupported_dtype": _t("Unsupported dtype: {:?}", SAFETENSORS_STORE_RS, 1063),
}

# -- ApplyError and ApplyResult (apply_result.rs) ------------------------------------

APPLY_ERROR_DISPLAY = {
    "ShapeMismatch": _t("Shape mismatch for '{}': expected {:?}, found {:?}", APPLY_RESULT_RS, 56),
    "LoadError": _t("Load error for '{}': {}", APPLY_RESULT_RS, 75),
}
# ApplyError's derived Debug: the variant's name and its fields' names.
APPLY_ERROR_DEBUG = {
    "ShapeMismatch": _t("ShapeMismatch", APPLY_RESULT_RS, 13),
    "path": _t("path", APPLY_RESULT_RS, 15),
    "expected": _t("expected", APPLY_RESULT_RS, 17),
    "found": _t("found", APPLY_RESULT_RS, 19),
    "LoadError": _t("LoadError", APPLY_RESULT_RS, 38),
    "message": _t("message", APPLY_RESULT_RS, 42),
}
APPLIER = {
    "load_failed": _t("Failed to load tensor data: {:?}", APPLIER_RS, 223),
}
# ApplyResult's Display, line by line (writeln! ends each with a newline; the last is write!).
APPLY_RESULT = {
    "title": _t("┌─ Tensor Loading Summary ─────────────────────────", APPLY_RESULT_RS, 181),
    "bar": _t("│", APPLY_RESULT_RS, 182),
    "applied": _t("│ ✓ Successfully applied: {} tensors", APPLY_RESULT_RS, 185),
    "skipped": _t("│ ⊘ Skipped (filtered):  {} tensors", APPLY_RESULT_RS, 188),
    "missing": _t("│ ✗ Missing in source:    {} tensors", APPLY_RESULT_RS, 191),
    "unused": _t("│ ? Unused in target:     {} tensors", APPLY_RESULT_RS, 194),
    "errors": _t("│ ! Errors:               {} errors", APPLY_RESULT_RS, 195),
    "missing_title": _t(
        "├─ Missing Tensors (requested by model but not found in source)", APPLY_RESULT_RS, 201
    ),
    "enum_count": _t(
        "│  ⚠️  {} paths contain enum variants (detected from container stack)",
        APPLY_RESULT_RS,
        216,
    ),
    "enum_why": _t(
        "│      Burn includes enum variant names in paths, but PyTorch doesn't.",
        APPLY_RESULT_RS,
        221,
    ),
    "enum_example": _t(
        "│      Example: Burn has 'field.BaseConv.weight', PyTorch has 'field.weight'",
        APPLY_RESULT_RS,
        225,
    ),
    "enum_solution_1": _t(
        "│      💡 Solution 1: Enable skip_enum_variants flag (simplest):", APPLY_RESULT_RS, 230
    ),
    # As written on their lines: read with rust_unescape.
    "enum_solution_1_code": _t(
        '│         let mut store = PytorchStore::from_file(\\"model.pth\\")', APPLY_RESULT_RS, 235
    ),
    "enum_solution_1_call": _t(
        "│             .skip_enum_variants(true);  // ← Add this", APPLY_RESULT_RS, 237
    ),
    "enum_solution_2": _t(
        "│      💡 Solution 2: Remap enum keys in source (most precise):", APPLY_RESULT_RS, 241
    ),
    "enum_solution_2_code": _t(
        '│         let mut store = SafetensorsStore::from_file(\\"model.safetensors\\")',
        APPLY_RESULT_RS,
        246,
    ),
    "enum_solution_2_call": _t(
        '│             .with_key_remapping(r\\"field\\\\.(\\\\w+)\\", \\"field.BaseConv.$1\\");',
        APPLY_RESULT_RS,
        250,
    ),
    "first_missing": _t("│  First 10 missing tensors:", APPLY_RESULT_RS, 255),
    "item": _t("│    • {}", APPLY_RESULT_RS, 257),
    "did_you_mean": _t("│        Did you mean: '{}'?", APPLY_RESULT_RS, 262),
    "more": _t("│    ... and {} more", APPLY_RESULT_RS, 266),
    "unused_title": _t("├─ Unused Tensors (in source but not used by model)", APPLY_RESULT_RS, 272),
    "first_unused": _t("│  First 10 unused tensors:", APPLY_RESULT_RS, 274),
    "errors_title": _t("├─ Errors", APPLY_RESULT_RS, 285),
    "error_item": _t("│  ⚠️  {}", APPLY_RESULT_RS, 288),
    "end": _t("└───────────────────────────────────────────────────", APPLY_RESULT_RS, 296),
}


# -- burn-import's PyTorchFileRecorder, 0.19.0 - 0.20.1 (cited at v0.20.1) -----------------
#
# It reads through burn-store's PytorchReader of its release, whose texts for the paths
# mirrored are main's (``PICKLE_DISPLAY_20``, ``READER_DISPLAY_20``: the same literals,
# other lines), then deserializes the record with burn-core's serde ``Deserializer``.

IMPORT_PYTORCH_RS_20 = "crates/burn-import/src/pytorch/reader.rs"
PICKLE_RS_20 = PICKLE_RS
READER_RS_20 = READER_RS
RECORDER_RS_20 = "crates/burn-core/src/record/recorder.rs"
SERDE_ERROR_RS_20 = "crates/burn-core/src/record/serde/error.rs"
SERDE_DE_RS_20 = "crates/burn-core/src/record/serde/de.rs"


def _t20(fmt: str, path: str, line: int) -> Text:
    return Text(fmt, path, line, V0_20_1)


PICKLE_DISPLAY_20 = {
    "InvalidOpCode": _t20(
        "Invalid pickle opcode: 0x{:02x}. The file may be corrupted or use an unsupported "
        "pickle protocol.",
        PICKLE_RS_20,
        52,
    ),
    "UnsupportedType": _t20(
        "Unsupported Python type '{}'. This may indicate a full model save rather than a "
        "state_dict.",
        PICKLE_RS_20,
        65,
    ),
    "InvalidData": _t20("Invalid data in pickle file: {}", PICKLE_RS_20, 68),
}
READER_DISPLAY_20 = {
    "Io": _t20("IO error: {}", READER_RS_20, 88),
    "Pickle": _t20(
        "Pickle parsing error: {}. This may indicate an unsupported PyTorch file format or "
        "corrupted file.",
        READER_RS_20,
        91,
    ),
    "InvalidFormat": _t20("Invalid PyTorch file format: {}", READER_RS_20, 95),
}
READER_FORMAT_20 = {
    "not_a_dict": _t20(
        "Expected a dictionary at the root of the PyTorch file, but found a different type. "
        "The file may be a full model save rather than a state_dict.",
        READER_RS_20,
        659,
    ),
}
PICKLE_DATA_20 = {"unsupported_type": _t20("{}.{}", PICKLE_RS_20, 263)}
IMPORT_ERROR_DISPLAY_20 = {
    "Store": _t20("Store error: {0}", IMPORT_PYTORCH_RS_20, 25),
    "Serde": _t20("Serde error: {0}", IMPORT_PYTORCH_RS_20, 28),
}
# burn-import's common error, which its SafetensorsFileRecorder (candle reading the file) uses
IMPORT_CANDLE_DISPLAY_20 = {
    "Serde": _t20("Serde error: {0}", "crates/burn-import/src/common/candle.rs", 24),
    "CandleTensor": _t20("Candle Tensor error: {0}", "crates/burn-import/src/common/candle.rs", 27),
}
SERDE_ERROR_DISPLAY_20 = {
    "Deserialize": _t20("failed to deserialize: {0}", SERDE_ERROR_RS_20, 7),
    "Other": _t20("other error: {0}", SERDE_ERROR_RS_20, 19),
}
SERDE_DE_20 = {
    "no_variant": _t20("No variant match", SERDE_DE_RS_20, 394),
    "missing_source": _t20(
        "Missing source values for the '{}' field of type '{}'. Please verify the source data "
        "and ensure the field name is correct",
        SERDE_DE_RS_20,
        890,
    ),
}
RECORDER_VARIANTS_20 = {
    name: Variant(name, RECORDER_RS_20, line, V0_20_1)
    for name, line in (("FileNotFound", 159), ("DeserializeError", 162), ("Unknown", 165))
}

# The generated model's `from_file` with a burnpack file (register_burnpack_file's quote!,
# 0.20.1), and burn-store's BurnpackError (burnpack/base.rs at 0.20.1).
FAILED_TO_LOAD_BURNPACK = _t20(
    "Failed to load burnpack file", "crates/burn-import/src/burn/graph.rs", 285
)
BURNPACK_VARIANTS_20 = {
    "IoError": Variant("IoError", "crates/burn-store/src/burnpack/base.rs", 203, V0_20_1),
}
# Its Display, which the generated code's expect does not print (it prints the Debug
# above): the text the `I/O error: {}` entry names, whose pattern reads either form.
BURNPACK_DISPLAY_20 = {
    "IoError": _t20("I/O error: {}", "crates/burn-store/src/burnpack/base.rs", 221),
}
BPK_EXTENSION_20 = _t20("bpk", "crates/burn-store/src/burnpack/store.rs", 343)

# -- burn-import 0.12.1: the candle-based PyTorchFileRecorder, and ModelGen's generated code ---

IMPORT_ERROR_RS_12 = "burn-import/src/pytorch/error.rs"
GRAPH_RS_12 = "burn-import/src/burn/graph.rs"
RECORDER_RS_12 = "burn-core/src/record/recorder.rs"
FILE_RS_12 = "burn-core/src/record/file.rs"


def _t12(fmt: str, path: str, line: int) -> Text:
    return Text(fmt, path, line, V0_12_1)


IMPORT_ERROR_DISPLAY_12 = {
    "CandlePickle": _t12("Candle pickle error: {0}", IMPORT_ERROR_RS_12, 8),
}
RECORDER_VARIANTS_12 = {
    name: Variant(name, RECORDER_RS_12, line, V0_12_1)
    for name, line in (("FileNotFound", 159), ("DeserializeError", 162), ("Unknown", 165))
}
# The generated model's `from_file` (register_record_file's quote!): the panic is reported
# in the user's generated file, not here.
RECORD_FILE_TO_EXIST = _t12("Record file to exist.", GRAPH_RS_12, 371)
MPK_EXTENSION_12 = _t12("mpk", FILE_RS_12, 85)


def all_texts() -> list[Text]:
    """Every text of this module, for the fidelity tests."""
    groups = (
        PICKLE_UNIT_VARIANTS,
        PICKLE_DISPLAY,
        OPCODE_NAMES,
        PICKLE_DATA,
        READER_DISPLAY,
        READER_FORMAT,
        LAZY_DATA,
        PYTORCH_STORE_DISPLAY,
        PYTORCH_STORE,
        SAFETENSORS_STORE_DISPLAY,
        SAFETENSORS_STORE,
        APPLY_ERROR_DISPLAY,
        APPLY_ERROR_DEBUG,
        APPLIER,
        APPLY_RESULT,
        PICKLE_DISPLAY_20,
        READER_DISPLAY_20,
        READER_FORMAT_20,
        PICKLE_DATA_20,
        IMPORT_ERROR_DISPLAY_20,
        IMPORT_CANDLE_DISPLAY_20,
        SERDE_ERROR_DISPLAY_20,
        SERDE_DE_20,
        BURNPACK_DISPLAY_20,
        IMPORT_ERROR_DISPLAY_12,
    )
    singles = [RECORD_FILE_TO_EXIST, MPK_EXTENSION_12, FAILED_TO_LOAD_BURNPACK, BPK_EXTENSION_20]
    return [text for group in groups for text in group.values()] + singles


def all_variants() -> list[Variant]:
    groups = (
        PICKLE_VARIANTS,
        READER_VARIANTS,
        PYTORCH_STORE_VARIANTS,
        SAFETENSORS_STORE_VARIANTS,
        RECORDER_VARIANTS_20,
        RECORDER_VARIANTS_12,
        BURNPACK_VARIANTS_20,
    )
    return [variant for group in groups for variant in group.values()]
