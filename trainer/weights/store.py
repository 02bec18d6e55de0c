"""burn-store's ``PytorchStore`` and ``SafetensorsStore``, loading into a module, mirrored
(crates/burn-store/src/{pytorch,safetensors}/store.rs, applier.rs, adapter.rs,
keyremapper.rs and apply_result.rs at main).

``model.load_from(&mut store)`` is ``store.apply_to(module)``: the file's tensors are read
(a reader error ends it there), renamed by the store's key remappings, renumbered
contiguously (PyTorch files only), then applied to the module by burn's ``Applier``, with
``PyTorchToBurnAdapter`` for PyTorch files: a ``Linear`` weight is transposed, a norm
layer's ``gamma``/``beta`` are looked up as ``weight``/``bias``.  Then the store checks,
in this order: errors (a shape that differs, a tensor that does not load), unless
``validate(false)``; tensors the module asks for that the file lacks, unless
``allow_partial(true)``.  Tensors in the file the module does not use are never an error.

burn checks no dtype when it applies a tensor (applier.rs:217-243): an F64 tensor loads
into an F32 parameter.  A tensor of another kind (an integer tensor into a float
parameter) goes to the backend, which the mirror does not follow (``Unmirrored``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainer.burn import weights as texts
from trainer.burn.weights import rust_unescape
from trainer.errors import IoError
from trainer.weights.module import Visit, walk
from trainer.weights.pickle import TensorSnapshot, Unmirrored
from trainer.weights.pytorch import PytorchError, load_pytorch_file
from trainer.weights.rust import debug_list, debug_str


@dataclass
class Tensor:
    """A store's tensor: its dotted path (as a list of parts) and its snapshot."""

    path: list[str]
    snapshot: TensorSnapshot

    @property
    def full_path(self) -> str:
        return ".".join(self.path)


# -- errors ------------------------------------------------------------------------------


class StoreError(Exception):
    """``PytorchStoreError`` / ``SafetensorsStoreError``: Display and Debug."""

    display: dict = {}
    variants: dict = {}

    def __init__(self, variant: str, payload: Any):
        self.variant = variant
        self.payload = payload  # PytorchError, IoError, or a message
        self.errno = getattr(payload, "errno", None)
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.variant == "Other":
            return self.payload
        return self.display[self.variant].render(self.payload)

    def debug(self) -> str:
        variant = self.variants[self.variant]
        if isinstance(self.payload, str):
            return variant.debug(debug_str(self.payload))
        return variant.debug(self.payload.debug())


class PytorchStoreError(StoreError):
    display = texts.PYTORCH_STORE_DISPLAY
    variants = texts.PYTORCH_STORE_VARIANTS


class SafetensorsStoreError(StoreError):
    display = texts.SAFETENSORS_STORE_DISPLAY
    variants = texts.SAFETENSORS_STORE_VARIANTS


class SafetensorsCrateError:
    """The safetensors crate's error inside ``Safetensors(...)``: its Display is the crate's
    own text (the Python package, built from the same crate, reports it); its Debug, the
    crate enum's variant, the package does not show."""

    def __init__(self, display: str):
        self.display = display

    def __str__(self) -> str:
        return self.display

    def debug(self) -> str:
        raise Unmirrored("the Debug form of the safetensors crate's SafeTensorError")


# -- ApplyResult and its errors (apply_result.rs) ---------------------------------------


def shape_debug(shape: tuple[int, ...]) -> str:
    """``Shape``'s Debug.  ``Shape`` is cubecl's (cubecl-zspace, a derived Debug of its
    ``dims``), not burn's: the mirror writes it so, and claims nothing of it."""
    return f"Shape {{ dims: {debug_list([str(d) for d in shape])} }}"


@dataclass(frozen=True)
class ApplyError:
    variant: str  # ShapeMismatch | LoadError
    path: str
    expected: tuple[int, ...] = ()
    found: tuple[int, ...] = ()
    message: str = ""

    def __str__(self) -> str:
        display = texts.APPLY_ERROR_DISPLAY[self.variant]
        if self.variant == "ShapeMismatch":
            return display.render(self.path, shape_debug(self.expected), shape_debug(self.found))
        return display.render(self.path, self.message)

    def debug(self) -> str:
        names = {key: text.render() for key, text in texts.APPLY_ERROR_DEBUG.items()}
        fields = [f"{names['path']}: {debug_str(self.path)}"]
        if self.variant == "ShapeMismatch":
            fields += [
                f"{names['expected']}: {shape_debug(self.expected)}",
                f"{names['found']}: {shape_debug(self.found)}",
            ]
        else:
            fields.append(f"{names['message']}: {debug_str(self.message)}")
        return f"{names[self.variant]} {{ {', '.join(fields)} }}"


@dataclass
class ApplyResult:
    applied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)  # (path, container stack)
    unused: list[str] = field(default_factory=list)
    errors: list[ApplyError] = field(default_factory=list)

    def __str__(self) -> str:
        """``ApplyResult``'s Display (apply_result.rs:179-299); its Debug is the same."""
        line = {key: text for key, text in texts.APPLY_RESULT.items()}
        out = [
            line["title"].render(),
            line["bar"].render(),
            line["applied"].render(len(self.applied)),
            line["skipped"].render(len(self.skipped)),
            line["missing"].render(len(self.missing)),
            line["unused"].render(len(self.unused)),
            line["errors"].render(len(self.errors)),
        ]
        if self.missing:
            out += [line["bar"].render(), line["missing_title"].render(), line["bar"].render()]
            enum_missing = [path for path, stack in self.missing if "Enum:" in stack]
            if enum_missing:
                out += self._enum_advice(len(enum_missing))
            out.append(line["first_missing"].render())
            for path, _ in self.missing[:10]:
                out.append(line["item"].render(path))
                suggestions = self.similar_paths(path, 1)
                if suggestions:
                    out.append(line["did_you_mean"].render(suggestions[0]))
            if len(self.missing) > 10:
                out.append(line["more"].render(len(self.missing) - 10))
        if self.unused:
            out += [line["bar"].render(), line["unused_title"].render(), line["bar"].render()]
            out.append(line["first_unused"].render())
            out += [line["item"].render(path) for path in self.unused[:10]]
            if len(self.unused) > 10:
                out.append(line["more"].render(len(self.unused) - 10))
        if self.errors:
            out += [line["bar"].render(), line["errors_title"].render(), line["bar"].render()]
            out += [line["error_item"].render(error) for error in self.errors[:10]]
            if len(self.errors) > 10:
                out.append(line["more"].render(len(self.errors) - 10))
        out += [line["bar"].render(), line["end"].render()]
        return "\n".join(out)

    @staticmethod
    def _enum_advice(count: int) -> list[str]:
        line = texts.APPLY_RESULT
        bar = line["bar"].render()
        return [
            line["enum_count"].render(count),
            line["enum_why"].render(),
            line["enum_example"].render(),
            bar,
            line["enum_solution_1"].render(),
            bar,
            rust_unescape(line["enum_solution_1_code"].render()),
            line["enum_solution_1_call"].render(),
            bar,
            line["enum_solution_2"].render(),
            bar,
            rust_unescape(line["enum_solution_2_code"].render()),
            rust_unescape(line["enum_solution_2_call"].render()),
            bar,
        ]

    def similar_paths(self, missing: str, limit: int) -> list[str]:
        """The "Did you mean?" suggestions: the path less its enum variant, if unused; else
        the unused paths at least 70% Jaro-similar, most similar first (apply_result.rs:130-161).
        """
        stripped = strip_enum_variant(missing)
        if stripped is not None and stripped in self.unused:
            return [stripped]
        ranked = sorted(self.unused, key=lambda path: -jaro(missing, path))
        return [path for path in ranked if jaro(missing, path) >= 0.7][:limit]


def strip_enum_variant(path: str) -> str | None:
    segments = path.split(".")
    for i, segment in enumerate(segments):
        if (
            0 < i < len(segments) - 1
            and len(segment) > 1
            and segment[0].isupper()
            and any(c.islower() for c in segment[1:])
        ):
            return ".".join(segments[:i] + segments[i + 1 :])
    return None


def jaro(a: str, b: str) -> float:
    """Jaro similarity, as the textdistance crate's ``nstr::jaro`` computes it over chars."""
    if not a or not b:
        return 0.0
    window = max(max(len(a), len(b)) // 2 - 1, 0)
    taken = [False] * len(b)
    matches_a = []
    for i, char in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not taken[j] and b[j] == char:
                taken[j] = True
                matches_a.append(char)
                break
    if not matches_a:
        return 0.0
    matches_b = [char for j, char in enumerate(b) if taken[j]]
    transpositions = sum(x != y for x, y in zip(matches_a, matches_b, strict=True)) // 2
    m = len(matches_a)
    return (m / len(a) + m / len(b) + (m - transpositions) / m) / 3


# -- the applier (applier.rs) -------------------------------------------------------------

LINEAR = "Struct:Linear"
NORMS = {"Struct:BatchNorm", "Struct:LayerNorm", "Struct:GroupNorm", "Struct:RmsNorm"}
BURN_NORM_TO_PYTORCH = {"gamma": "weight", "beta": "bias"}


def _module_type(containers: tuple[str, ...]) -> str | None:
    return next((c for c in reversed(containers) if c.startswith(("Struct:", "Enum:"))), None)


def apply(
    module: object,
    tensors: list[Tensor],
    *,
    pytorch_adapter: bool,
    skip_enum_variants: bool,
    loaded: dict[str, Any] | None = None,
) -> ApplyResult:
    """``ModuleSnapshot::apply``: each parameter takes the file's tensor at its path.

    ``loaded`` (if given) receives each applied tensor's data by path: what the module's
    parameter holds afterwards.
    """
    by_path = {tensor.full_path: tensor for tensor in tensors}
    result = ApplyResult()
    visited: dict[str, str] = {}
    for visit in walk(module):
        names = _path(visit, skip_enum_variants)
        path = ".".join(names)
        visited[path] = ".".join(visit.containers)
        error = _apply_one(visit, names, by_path, pytorch_adapter, result, loaded)
        if error is not None:
            result.errors.append(error)
    errored = {error.path for error in result.errors}
    applied = set(result.applied)
    result.unused = sorted(p for p in by_path if p not in visited)
    result.missing = sorted(
        (p, stack) for p, stack in visited.items() if p not in applied and p not in errored
    )
    return result


def _path(visit: Visit, skip_enum_variants: bool) -> list[str]:
    """The path the applier builds: enum variants left out when skipping them."""
    return [
        name
        for name, container in zip(visit.names, visit.containers, strict=True)
        if not (skip_enum_variants and container.startswith("Enum:"))
    ]


def _apply_one(visit, names, by_path, pytorch_adapter, result, loaded) -> ApplyError | None:
    path = ".".join(names)
    tensor = by_path.get(path)
    module_type = _module_type(visit.containers)
    if tensor is None and pytorch_adapter and module_type in NORMS and names:
        alternative = BURN_NORM_TO_PYTORCH.get(names[-1])
        if alternative is not None:
            tensor = by_path.get(".".join([*names[:-1], alternative]))
    if tensor is None:
        return None
    snapshot = tensor.snapshot
    load, shape = snapshot.load, snapshot.shape
    if pytorch_adapter and module_type == LINEAR and names[-1:] == ["weight"] and len(shape) == 2:
        load, shape = _transposed(load), (shape[1], shape[0])
    try:
        data = load()
    except Unmirrored:
        raise
    except Exception as err:  # burn's TensorSnapshotError
        debug = err.debug() if hasattr(err, "debug") else str(err)
        return ApplyError("LoadError", path, message=texts.APPLIER["load_failed"].render(debug))
    if tuple(data.shape) != visit.param.shape:
        return ApplyError("ShapeMismatch", path, visit.param.shape, tuple(data.shape))
    _check_kind(path, snapshot.dtype, visit.param.kind)
    result.applied.append(path)
    if loaded is not None:
        loaded[path] = data
    return None


def _transposed(load):
    def transposed():
        return load().t().contiguous()

    return transposed


_KINDS = {"F32": "float", "F64": "float", "F16": "float", "BF16": "float", "Bool": "bool"}


def _check_kind(path: str, dtype: str, kind: str) -> None:
    if _KINDS.get(dtype, "int") != kind:
        raise Unmirrored(f"{path}: {dtype} data into a {kind} parameter goes to the backend")


# -- key remapping and contiguous indices (keyremapper.rs) -----------------------------------


def rust_replace(pattern: str, replacement: str, text: str) -> str:
    """``Regex::replace_all`` with Rust's replacement syntax: ``$1``, ``$name``, ``${1}``
    (the longest run of name characters after ``$``; an unknown group is empty), ``$$``."""
    regex = re.compile(pattern)

    def expand(match: re.Match) -> str:
        out, i = [], 0
        while i < len(replacement):
            char = replacement[i]
            if char != "$" or i + 1 == len(replacement):
                out.append(char)
                i += 1
                continue
            if replacement[i + 1] == "$":
                out.append("$")
                i += 2
                continue
            if replacement[i + 1] == "{":
                end = replacement.find("}", i + 2)
                if end == -1:
                    out.append(char)
                    i += 1
                    continue
                name, i = replacement[i + 2 : end], end + 1
            else:
                run = re.match(r"[A-Za-z0-9_]*", replacement[i + 1 :]).group()
                if not run:
                    out.append(char)
                    i += 1
                    continue
                name, i = run, i + 1 + len(run)
            out.append(_group(match, name))
        return "".join(out)

    return regex.sub(expand, text)


def _group(match: re.Match, name: str) -> str:
    try:
        value = match.group(int(name) if name.isdigit() else name)
    except IndexError:  # no such group: Rust's replacement leaves it empty
        return ""
    return value or ""


def remap(tensors: list[Tensor], patterns: list[tuple[str, str]]) -> list[Tensor]:
    """``KeyRemapper::remap``: every pattern in turn, on the path the previous ones left."""
    if not patterns:
        return tensors
    for tensor in tensors:
        new_path = tensor.full_path
        for pattern, replacement in patterns:
            if re.search(pattern, new_path):
                new_path = rust_replace(pattern, replacement, new_path)
        if new_path != tensor.full_path:
            tensor.path = new_path.split(".")
    return tensors


def map_indices_contiguous(tensors: list[Tensor]) -> list[Tensor]:
    """Renumber each position's numeric indices 0, 1, 2, ... in their order (an
    ``nn.Sequential`` with gaps), keyed by the original path before the index."""
    positions: dict[str, set[int]] = {}
    for tensor in tensors:
        for i, part in enumerate(tensor.path):
            if part.isdigit():
                positions.setdefault(_prefix(tensor.path, i), set()).add(int(part))
    renumbered = {prefix: {old: new for new, old in enumerate(sorted(indices))}
                  for prefix, indices in positions.items()}  # fmt: skip
    for tensor in tensors:
        parts = [
            str(renumbered[_prefix(tensor.path, i)][int(part)]) if part.isdigit() else part
            for i, part in enumerate(tensor.path)
        ]
        if parts != tensor.path:
            tensor.path = parts
    return tensors


def _prefix(parts: list[str], index: int) -> str:
    return ".".join(parts[:index]) + "." if index else ""


# -- the stores ------------------------------------------------------------------------------


@dataclass
class PytorchStore:
    """``PytorchStore::from_file(path)`` and its builder methods' settings."""

    path: Path | str
    top_level_key: str | None = None
    remappings: list[tuple[str, str]] = field(default_factory=list)
    validate: bool = True
    allow_partial: bool = False
    skip_enum_variants: bool = True  # PyTorch paths never name enum variants
    map_indices_contiguous: bool = True

    def tensors(self) -> list[Tensor]:
        """``ensure_snapshots_cache``: read, remap, renumber; sorted by path, as a BTreeMap."""
        try:
            file = load_pytorch_file(self.path, self.top_level_key)
        except PytorchError as err:
            raise PytorchStoreError("Reader", err) from err
        return _arranged(file.tensors.items(), self)

    def apply_to(self, module: object, loaded: dict | None = None) -> ApplyResult:
        """``model.load_from(&mut store)``."""
        return _applied(self, module, loaded, True, PytorchStoreError, texts.PYTORCH_STORE)


@dataclass
class SafetensorsStore:
    """``SafetensorsStore::from_file(path)``: no adapter (``IdentityAdapter``), no
    renumbering, enum variants kept in paths, by default (safetensors/store.rs:114-131)."""

    path: Path | str
    remappings: list[tuple[str, str]] = field(default_factory=list)
    validate: bool = True
    allow_partial: bool = False
    skip_enum_variants: bool = False
    map_indices_contiguous: bool = False
    from_pytorch: bool = False  # `.with_from_adapter(PyTorchToBurnAdapter)`

    def tensors(self) -> list[Tensor]:
        return _arranged(read_safetensors(self.path), self)

    def apply_to(self, module: object, loaded: dict | None = None) -> ApplyResult:
        error, store_texts = SafetensorsStoreError, texts.SAFETENSORS_STORE
        return _applied(self, module, loaded, self.from_pytorch, error, store_texts)


def _arranged(named, store) -> list[Tensor]:
    """A store's snapshots, as ``ensure_snapshots_cache`` arranges them: remapped,
    renumbered where the store does, sorted by path."""
    tensors = remap([Tensor(name.split("."), snap) for name, snap in named], store.remappings)
    if store.map_indices_contiguous:
        tensors = map_indices_contiguous(tensors)
    return _sorted(tensors)


def _applied(store, module, loaded, pytorch_adapter, error, store_texts) -> ApplyResult:
    """``apply_to``: the snapshots applied to the module, then the store's own checks."""
    result = apply(
        module,
        store.tensors(),
        pytorch_adapter=pytorch_adapter,
        skip_enum_variants=store.skip_enum_variants,
        loaded=loaded,
    )
    return _check(result, store, error, store_texts)


def _sorted(tensors: list[Tensor]) -> list[Tensor]:
    by_path = {tensor.full_path: tensor for tensor in tensors}  # a later duplicate wins
    return [by_path[path] for path in sorted(by_path)]


def _check(result: ApplyResult, store, error_type, store_texts) -> ApplyResult:
    if store.validate and result.errors:
        if error_type is PytorchStoreError:
            message = store_texts["import_errors"].render(result)
        else:
            message = store_texts["import_errors"].render(
                debug_list([error.debug() for error in result.errors])
            )
        raise error_type("ValidationFailed", message)
    if not store.allow_partial and result.missing:
        raise error_type("TensorNotFound", store_texts["missing_hint"].render(result))
    return result


# safetensor_dtype_to_burn (safetensors/store.rs:1046-1067)
SAFETENSORS_DTYPES = {
    "F64": "F64", "F32": "F32", "F16": "F16", "BF16": "BF16", "I64": "I64", "I32": "I32",
    "I16": "I16", "I8": "I8", "U64": "U64", "U32": "U32", "U8": "U8", "BOOL": "Bool",
}  # fmt: skip


def read_safetensors(path: Path | str) -> list[tuple[str, TensorSnapshot]]:
    """``safetensors_to_snapshots_lazy_file``: open (an I/O error), parse the header with
    the safetensors crate (its error), then each tensor's dtype burn must know."""
    import safetensors

    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as err:
        raise SafetensorsStoreError("Io", IoError(err)) from err
    try:
        parsed = safetensors.deserialize(data)
    except safetensors.SafetensorError as err:
        message = str(err).removeprefix("Error while deserializing: ")
        raise SafetensorsStoreError("Safetensors", SafetensorsCrateError(message)) from err
    out = []
    for name, view in parsed:
        dtype = view["dtype"]
        if dtype not in SAFETENSORS_DTYPES:
            message = texts.SAFETENSORS_STORE["unsupported_dtype"].render(dtype)
            raise SafetensorsStoreError("Other", message)
        burn_dtype = SAFETENSORS_DTYPES[dtype]
        out.append((name, TensorSnapshot(burn_dtype, tuple(view["shape"]), _view_loader(view))))
    return out


def _view_loader(view: dict):
    def load():
        import torch

        from trainer.weights.pickle import TORCH_DTYPES

        dtype = TORCH_DTYPES[SAFETENSORS_DTYPES[view["dtype"]]]
        raw = bytearray(view["data"])
        values = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        return values.reshape(view["shape"])

    return load
