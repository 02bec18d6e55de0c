"""burn modules as the stores see them: a tree of structs, vectors, enums and parameters.

``ModuleSnapshot::apply`` walks a module with burn's ``ModuleMapper``: the derived
``Module`` enters each field under the *parent's* type (``enter_module("fc1",
"Struct:Net")``), a ``Vec`` enters each index under ``"Vec"``, an enum its variant under
``"Enum:<name>"``, and an ``Option`` nothing (burn-derive codegen_struct.rs,
codegen_enum.rs; burn-core param/primitive.rs).  A module here is that tree, declared with
burn-nn's layers and the shapes burn gives their parameters (``Linear``'s weight is
``[d_input, d_output]``, the transpose of PyTorch's).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """A ``Param<Tensor<D, K>>`` (or a ``RunningState``): its shape and kind."""

    shape: tuple[int, ...]
    kind: str = "float"  # float | int | bool


@dataclass(frozen=True)
class Struct:
    """A ``#[derive(Module)]`` struct; a field whose value is None is an ``Option`` at None."""

    name: str
    fields: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class Vec:
    items: tuple[object, ...]


@dataclass(frozen=True)
class Opt:
    """An ``Option`` at ``Some``: the mapper visits its value; its record may be absent."""

    value: object


@dataclass(frozen=True)
class Enum:
    """A ``#[derive(Module)]`` enum: every variant (a newtype of a module), in declaration
    order, and the one this module holds."""

    name: str
    variants: tuple[tuple[str, object], ...]
    variant: str

    @property
    def value(self) -> object:
        return dict(self.variants)[self.variant]


def struct(name: str, **fields: object) -> Struct:
    return Struct(name, tuple(fields.items()))


@dataclass(frozen=True)
class Visit:
    """One parameter as the mapper reaches it: the path and container types it was
    entered through, and the parameter."""

    names: tuple[str, ...]
    containers: tuple[str, ...]
    param: Param


def walk(node: object, names=(), containers=()) -> Iterator[Visit]:
    """The parameters in the order burn's mapper visits them."""
    if node is None:
        return
    if isinstance(node, Param):
        yield Visit(names, containers, node)
    elif isinstance(node, Struct):
        for field, value in node.fields:
            if value is not None:
                yield from walk(value, (*names, field), (*containers, f"Struct:{node.name}"))
    elif isinstance(node, Vec):
        for index, item in enumerate(node.items):
            yield from walk(item, (*names, str(index)), (*containers, "Vec"))
    elif isinstance(node, Opt):
        yield from walk(node.value, names, containers)
    elif isinstance(node, Enum):
        yield from walk(node.value, (*names, node.variant), (*containers, f"Enum:{node.name}"))
    else:
        raise TypeError(f"not a module node: {node!r}")


# -- burn-nn's layers (crates/burn-nn/src/modules at main) ----------------------------------


def linear(d_input: int, d_output: int, *, bias: bool = True) -> Struct:
    """``Linear``: weight ``[d_input, d_output]``, bias ``[d_output]`` (linear.rs)."""
    return struct(
        "Linear",
        weight=Param((d_input, d_output)),
        bias=Opt(Param((d_output,))) if bias else None,
    )


def conv(name: str, weight: tuple[int, ...], channels_out: int, *, bias: bool = True) -> Struct:
    """``Conv1d``/``Conv2d``: weight ``[out, in / groups, *kernel]``; ``ConvTranspose*``:
    ``[in, out / groups, *kernel]``; bias ``[out]`` (conv/*.rs)."""
    return struct(name, weight=Param(weight), bias=Opt(Param((channels_out,))) if bias else None)


def conv2d(channels: tuple[int, int], kernel: tuple[int, int], *, groups=1, bias=True) -> Struct:
    c_in, c_out = channels
    return conv("Conv2d", (c_out, c_in // groups, *kernel), c_out, bias=bias)


def batch_norm(features: int) -> Struct:
    """``BatchNorm``: gamma, beta, and the running mean and variance (norm/batch.rs)."""
    return struct(
        "BatchNorm",
        gamma=Param((features,)),
        beta=Param((features,)),
        running_mean=Param((features,)),
        running_var=Param((features,)),
    )


def layer_norm(d_model: int) -> Struct:
    return struct("LayerNorm", gamma=Param((d_model,)), beta=Opt(Param((d_model,))))


def group_norm(channels: int) -> Struct:
    return struct("GroupNorm", gamma=Opt(Param((channels,))), beta=Opt(Param((channels,))))


def embedding(n_embedding: int, d_model: int) -> Struct:
    return struct("Embedding", weight=Param((n_embedding, d_model)))


def mlp(input_dim: int, hidden_dim: int, num_classes: int, *, extra_layer=False) -> Struct:
    """The trainer's MLP (``trainer.model``) as a burn module: ``Model { hidden, extra,
    output }`` of ``Linear`` layers."""
    return struct(
        "Model",
        hidden=linear(input_dim, hidden_dim),
        extra=linear(hidden_dim, hidden_dim) if extra_layer else None,
        output=linear(hidden_dim, num_classes),
    )
