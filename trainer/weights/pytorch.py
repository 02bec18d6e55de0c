"""burn-store's ``PytorchReader`` (crates/burn-store/src/pytorch/reader.rs and lazy_data.rs
at main), mirrored: which format a file is taken for, in burn's order, and what fails.

``load_pytorch_file`` tries, as ``load_pytorch_file_with_metadata`` does: a ZIP archive
(PyTorch >= 1.6, its ``data.pkl``), a TAR archive (``ustar`` at offset 257), the legacy
format (a pickled magic number first), and last a plain pickle.  A file that fails to open
as a ZIP is not an error: burn goes on to the next format.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainer.burn import weights as texts
from trainer.errors import IoError
from trainer.weights.pickle import (
    STORAGE_DTYPES,
    DataSource,
    Object,
    PickleError,
    TensorSnapshot,
    Unmirrored,
    read_pickle,
    skip_pickle,
)
from trainer.weights.rust import debug_list, debug_str

# PROTO 2, LONG1 of 10 bytes: the magic number 0x1950a86a20f9469cfc6c, then STOP
LEGACY_HEADER = bytes([0x80, 0x02, 0x8A, 0x0A, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20])
LEGACY_HEADER += bytes([0x6A, 0xA8, 0x50, 0x19, 0x2E])


# The release lines mirrored: main, and the burn-store that burn-import 0.20.1 reads through
# (its texts on other lines; no TAR format yet, and a legacy reader the mirror does not follow).
RELEASES = ("main", "v0.20.1")
READER_DISPLAYS = {"main": texts.READER_DISPLAY, "v0.20.1": texts.READER_DISPLAY_20}


class PytorchError(Exception):
    """burn-store's ``PytorchError``: ``str()`` is its Display, ``debug()`` its Debug (main)."""

    release = "main"  # whose Display texts ``str()`` prints

    def __init__(self, variant: str, payload: Any):
        self.variant = variant
        self.payload = payload  # IoError, PickleError or str
        self.errno = getattr(payload, "errno", None)
        super().__init__(variant)

    @classmethod
    def invalid_format(cls, key: str, *values: object) -> PytorchError:
        return cls("InvalidFormat", texts.READER_FORMAT[key].render(*values))

    def at_release(self, release: str) -> PytorchError:
        """Print the texts of ``release`` (the same literals: see ``RELEASES``)."""
        self.release = release
        if isinstance(self.payload, PickleError):
            self.payload.release = release
        return self

    def __str__(self) -> str:
        display = READER_DISPLAYS[self.release].get(self.variant)
        if display is None:
            raise Unmirrored(f"PytorchError::{self.variant}'s Display at {self.release}")
        return display.render(self.payload)

    def debug(self) -> str:
        variant = texts.READER_VARIANTS[self.variant]
        if isinstance(self.payload, str):
            return variant.debug(debug_str(self.payload))
        return variant.debug(self.payload.debug())


@dataclass
class PytorchFile:
    """What ``PytorchReader::new`` returns: the tensors by dotted name, and the format."""

    tensors: dict[str, TensorSnapshot]
    format_type: str  # Zip, Tar, Legacy or Pickle
    metadata: dict[str, Any] = field(default_factory=dict)

    def keys(self) -> list[str]:
        return list(self.tensors)


def load_pytorch_file(
    path: Path | str, top_level_key: str | None = None, *, release: str = "main"
) -> PytorchFile:
    """``PytorchReader::new`` / ``with_top_level_key`` (reader.rs:397-626 at main)."""
    if release not in RELEASES:
        raise ValueError(f"release must be one of {RELEASES}, not {release!r}")
    try:
        return _load(Path(path), top_level_key, release)
    except PytorchError as err:
        raise err.at_release(release) from err.__cause__


def _load(path: Path, top_level_key: str | None, release: str) -> PytorchFile:
    archive = _open_zip(path)
    if archive is not None:
        with archive:
            return _load_zip(path, archive, top_level_key)
    if _is_tar_file(path):
        if release != "main":
            raise Unmirrored(f"a TAR file at {release}, which has no TAR reader")
        return _load_tar(path, top_level_key)
    with _open(path) as file:
        header = file.read(15)
    if header == LEGACY_HEADER:
        if release != "main":
            raise Unmirrored(f"the legacy reader of {release}")
        return _load_legacy(path, top_level_key)
    with _open(path) as file:
        try:
            obj = read_pickle(file)
        except PickleError as err:
            if texts.PICKLE_DATA["no_data_source"].render() in str(err):
                raise PytorchError.invalid_format("pickle_with_tensors") from err
            raise PytorchError("Pickle", err) from err
    return PytorchFile(_extract_tensors(obj, top_level_key), "Pickle")


def _open(path: Path):
    try:
        return open(path, "rb")
    except OSError as err:
        raise PytorchError("Io", IoError(err)) from err


def _open_zip(path: Path) -> zipfile.ZipFile | None:
    """``if let Ok(file) = File::open(path) && let Ok(archive) = ZipArchive::new(...)``."""
    try:
        return zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError):
        return None


def _pickle_error(err: PickleError) -> PytorchError:
    return PytorchError("Pickle", err)


# -- ZIP (PyTorch >= 1.6) ---------------------------------------------------------------


class ZipSource(DataSource):
    """``ZipSource``: the archive's entries, read again from the file for each tensor."""

    def __init__(self, path: Path):
        self.path = path
        with zipfile.ZipFile(path) as archive:
            self.names = archive.namelist()

    def contains(self, key: str) -> bool:
        return key in self.names

    def keys(self) -> list[str]:
        return [
            name
            for name in self.names
            if (name.startswith("data/") or "/data/" in name)
            and not name.endswith(".pkl")
            and not name.endswith("/")
        ]

    def read(self, key: str) -> bytes:
        try:
            with zipfile.ZipFile(self.path) as archive:
                return archive.read(key)
        except KeyError as err:
            raise OSError(f"no entry {key!r}") from err
        except zipfile.BadZipFile as err:
            raise OSError(str(err)) from err


def _load_zip(path: Path, archive: zipfile.ZipFile, top_level_key: str | None) -> PytorchFile:
    names = archive.namelist()
    pickle_name = next((n for n in ("data.pkl", "archive/data.pkl") if n in names), None)
    if pickle_name is None:
        pickle_name = next((n for n in names if n.endswith("data.pkl")), None)
    if pickle_name is None:
        raise PytorchError.invalid_format("no_data_pkl")
    pickle_data = _read_entry(archive, pickle_name)
    format_version = _entry_text(archive, ".format_version")
    if "byteorder" in names and _entry_text(archive, "byteorder") == "big":
        raise PytorchError.invalid_format("big_endian")
    source = ZipSource(path)
    try:
        obj = read_pickle(io.BytesIO(pickle_data), source)
    except PickleError as err:
        raise _pickle_error(err) from err
    version = _entry_text(archive, "version")
    metadata = {"format_version": format_version, "pytorch_version": version}
    return PytorchFile(_extract_tensors(obj, top_level_key), "Zip", metadata)


def _read_entry(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError) as err:
        # the zip crate's own texts, not burn's
        raise Unmirrored(f"reading {name!r} from the archive failed: {err}") from err


def _entry_text(archive: zipfile.ZipFile, name: str) -> str | None:
    if name not in archive.namelist():
        return None
    return _read_entry(archive, name).decode("utf-8", errors="replace").strip()


# -- TAR (torchvision's oldest files) -------------------------------------------------------


def _is_tar_file(path: Path) -> bool:
    try:
        with open(path, "rb") as file:
            header = file.read(263)
    except OSError:
        return False
    return len(header) == 263 and header[257:262] == b"ustar"


class TarSource(DataSource):
    """``TarSource``: the ``storages`` entry, parsed into each storage's extent."""

    def __init__(self, storages: bytes):
        self.storages = storages
        self.extents: dict[str, tuple[int, int]] = {}
        stream = io.BytesIO(storages)
        try:
            count = read_pickle(stream)
        except PickleError:
            count = None
        count = count.value if count is not None and count.kind == "Int" else 0
        position = stream.tell() if count else 0
        for _ in range(count):
            if position >= len(storages):
                break
            stream.seek(position)
            try:
                entry = read_pickle(stream)
            except PickleError:
                break
            position = stream.tell()
            if entry.kind != "Tuple" or len(entry.value) < 3:
                continue
            key, _, storage_class = entry.value[:3]
            if key.kind not in ("Int", "String"):
                continue
            if storage_class.kind != "Class":
                message = texts.LAZY_DATA["tar_storage_type"].render(storage_class.debug())
                raise PytorchError("Io", IoError(kind="InvalidData", message=message))
            if position + 8 > len(storages):
                break
            elements = int.from_bytes(storages[position : position + 8], "little")
            position += 8
            storage_type = storage_class.value[1]
            if storage_type not in STORAGE_DTYPES and storage_type not in _COMPLEX_SIZES:
                message = texts.PICKLE_DATA["unknown_storage_size"].render(storage_type)
                raise PytorchError("Io", IoError(kind="InvalidData", message=message))
            size = STORAGE_DTYPES.get(storage_type, (None, _COMPLEX_SIZES.get(storage_type)))[1]
            self.extents[str(key.value)] = (position, elements * size)
            position += elements * size

    def _extent(self, key: str) -> tuple[int, int] | None:
        extent = self.extents.get(key.rsplit("/", 1)[-1])
        if extent is None or extent[0] + extent[1] > len(self.storages):
            return None
        return extent

    def contains(self, key: str) -> bool:
        return key.rsplit("/", 1)[-1] in self.extents

    def keys(self) -> list[str]:
        return list(self.extents)

    def read(self, key: str) -> bytes:
        extent = self._extent(key)
        if extent is None:
            raise OSError(texts.LAZY_DATA["tar_key"].render(key.rsplit("/", 1)[-1]))
        return self.storages[extent[0] : extent[0] + extent[1]]


# storage_type_to_element_size knows these too (pickle_reader.rs:93-101)
_COMPLEX_SIZES = {"ComplexFloatStorage": 8, "ComplexHalfStorage": 4}


def _load_tar(path: Path, top_level_key: str | None) -> PytorchFile:
    entries: dict[str, bytes] = {}
    try:
        with tarfile.open(path) as archive:
            for member in archive:
                if "@PaxHeader" in member.name:
                    continue
                name = member.name
                while name.startswith("./"):
                    name = name[2:]
                if name in ("sys_info", "pickle", "storages"):
                    entries[name] = archive.extractfile(member).read()
    except tarfile.TarError as err:
        raise Unmirrored(f"the tar crate's error: {err}") from err
    if "pickle" not in entries:
        raise PytorchError.invalid_format("tar_no_pickle")
    if "storages" not in entries:
        raise PytorchError.invalid_format("tar_no_storages")
    if "sys_info" in entries and not _tar_little_endian(entries["sys_info"]):
        raise PytorchError.invalid_format("tar_big_endian")
    source = TarSource(entries["storages"])
    try:
        obj = read_pickle(io.BytesIO(entries["pickle"]), source)
    except PickleError as err:
        raise _pickle_error(err) from err
    return PytorchFile(_extract_tensors(obj, top_level_key), "Tar")


def _tar_little_endian(sys_info: bytes) -> bool:
    try:
        obj = read_pickle(io.BytesIO(sys_info))
    except PickleError as err:
        raise _pickle_error(err) from err
    if obj.kind == "Dict" and obj.value.get("little_endian", Object("None")).kind == "Bool":
        return obj.value["little_endian"].value
    return True


# -- legacy (PyTorch 0.1.10 - 1.5, and `_use_new_zipfile_serialization=False`) -------------


class LegacySource(DataSource):
    """``LegacyMultiStorageSource``: the storages follow each other after the pickles, each
    after an 8-byte element count; their extents are learnt while the main pickle is read."""

    legacy = True

    def __init__(self, path: Path, data_offset: int):
        self.path = path
        self.data_offset = data_offset
        self.storage_keys: list[str] | None = None
        self.usage: dict[str, int] = {}
        self.extents: dict[str, tuple[int, int]] | None = None

    def contains(self, key: str) -> bool:
        return True

    def keys(self) -> list[str]:
        return []

    def track_storage_usage(self, storage_key: str, offset: int, size: int) -> None:
        self.usage[storage_key] = max(self.usage.get(storage_key, 0), offset + size)
        keys = self.storage_keys
        if self.extents is None and keys is not None and all(k in self.usage for k in keys):
            self.extents, position = {}, 0
            for key in keys:
                self.extents[key] = (position + 8, self.usage[key])
                position += 8 + self.usage[key]

    def read(self, key: str) -> bytes:
        storage_key = key.rsplit("/", 1)[-1]
        if self.extents is None or storage_key not in self.extents:
            raise OSError(texts.LAZY_DATA["legacy_boundaries"].render(storage_key))
        offset, size = self.extents[storage_key]
        with open(self.path, "rb") as file:
            file.seek(self.data_offset + offset)
            data = file.read(size)
        if len(data) < size:
            raise OSError("failed to fill whole buffer")
        return data


def _load_legacy(path: Path, top_level_key: str | None) -> PytorchFile:
    with _open(path) as file:
        for key in ("legacy_magic", "legacy_protocol", "legacy_sys_info"):
            try:
                read_pickle(file)
            except PickleError as err:
                raise PytorchError.invalid_format(key, err) from err
        main_pickle = file.tell()
        try:
            skip_pickle(file)
        except PickleError as err:
            raise PytorchError.invalid_format("legacy_skip", err) from err
        try:
            keys = read_pickle(file)
        except PickleError:
            keys = None
        storage_keys = []
        if keys is not None and keys.kind == "List":
            storage_keys = [k.value for k in keys.value if k.kind == "String"]
        source = LegacySource(path, file.tell())
        if storage_keys:
            source.storage_keys = storage_keys
        file.seek(main_pickle)
        try:
            obj = read_pickle(file, source)
        except PickleError as err:
            raise _pickle_error(err) from err
    return PytorchFile(_extract_tensors(obj, top_level_key), "Legacy")


# -- the tensors (extract_tensors_with_data) ----------------------------------------------


def _extract_tensors(obj: Object, top_level_key: str | None) -> dict[str, TensorSnapshot]:
    if obj.kind != "Dict":
        raise PytorchError.invalid_format("not_a_dict")
    root = obj
    if top_level_key is not None:
        nested = obj.value.get(top_level_key)
        if nested is None or nested.kind != "Dict":
            # burn lists a HashMap's keys: their order differs from run to run
            available = debug_list([debug_str(key) for key in obj.value])
            raise PytorchError("KeyNotFound", _top_level_key_message(top_level_key, available))
        root = nested
    tensors: dict[str, TensorSnapshot] = {}
    _collect(root, [], tensors)
    return tensors


def _top_level_key_message(key: str, available: str) -> str:
    return texts.READER_FORMAT["top_level_key"].render(key, available)


def _collect(obj: Object, path: list[str], tensors: dict[str, TensorSnapshot]) -> None:
    if obj.kind == "Dict":
        for key, value in obj.value.items():
            _collect(value, [*path, key], tensors)
    elif obj.kind == "TorchParam":
        tensors[".".join(path)] = obj.value
