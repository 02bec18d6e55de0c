"""The trainer's AdamW and cosine-schedule state in the layout of burn's records.

The trainer trains with PyTorch's ``AdamW`` (``step``, ``exp_avg``, ``exp_avg_sq`` per
parameter) and :class:`~trainer.schedule.CosineAnnealingLr`; burn's AdamW keeps the same
numbers as ``AdaptiveMomentumState {time, moment_1, moment_2, max_moment_2}`` under
``AdamWState.momentum`` (optim/adam.rs:126-138 and adamw.rs:59-64 in burn-optim at main), and
its cosine scheduler keeps ``current_iter``. Each moment tensor has its parameter's shape, so
a Linear weight's moments are laid out as the weight is (``trainer.record.module_record``).
A parameter's id is the one its module record carries: burn's optimizer finds a parameter's
state by that id.

At main (burnpack, ``OptimizerRecord``: burn-optim optim/module/record/mod.rs:11-26 and
module_optimizer.rs:198-241 at 2c06be35): per parameter with state, the tensors
``"{param_id}.momentum.moment_1"`` and ``"{param_id}.momentum.moment_2"`` carrying the
parameter id, the scalars ``"{param_id}.momentum.time"`` and ``"{param_id}.__rank"`` (both
``UInt``: ``Scalar::from(usize)``, burn-pack base.rs:226-229), and the metadata entry
``"{param_id}"`` naming the parameter's path. A scheduler record holds scalars alone: the
cosine scheduler's ``current_iter`` (lr_scheduler/cosine.rs:101-117, base.rs:111-114, 167-186
and 216-222).

At v0.19.1 and v0.21.0 (``CompactRecorder``): the optimizer's record is a map from each
parameter's id to ``AdaptorRecordItem::V1(AdaptorRecordItemV1::Rank{D}(AdamWState item))``,
enums written by rmp-serde as one-entry maps keyed by the variant's name (at v0.19.1:
burn-optim optim/simple/adaptor.rs:78, record/base.rs:22-31, record/v1.rs:59-88,
adamw.rs:55-60, adam.rs:110-119; burn-core record/primitive.rs:120-131; at v0.21.0
adaptor.rs:100 and primitive.rs:126; rmp-serde/src/encode.rs:692-697 at rmp-serde/v1.3.0).
``time`` is a plain integer (``usize`` is its own record item, primitive.rs:219-247 at
v0.19.1) and each moment a ``TensorData`` at the recorder's precision. The cosine
scheduler's record is ``current_iter`` itself, a ``usize`` (lr_scheduler/cosine.rs:74 and
89-96 at both tags). v0.21.0's momentum state adds ``max_moment_2`` (see
:func:`optimizer_item`).
"""

from __future__ import annotations

from typing import Any

import torch

from trainer import record as pack_record
from trainer import recorder
from trainer.record import Pack, PackTensor, to_burn_layout
from trainer.schedule import CosineAnnealingLr

RANK_KEY = "__rank"  # module_optimizer.rs:24 at main
_MOMENTS = {"moment_1": "exp_avg", "moment_2": "exp_avg_sq", "max_moment_2": "max_exp_avg_sq"}


def _states(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, dict]:
    """The optimizer's state by parameter name, each moment laid out as burn's parameter is."""
    names = [name for name, _ in model.named_parameters()]
    states = {}
    for index, state in optimizer.state_dict()["state"].items():
        name = names[index]
        moments = {key: state[key] for key in _MOMENTS.values() if key in state}
        laid_out = {key: to_burn_layout(model, {name: t})[name] for key, t in moments.items()}
        states[name] = {"time": int(state["step"]), **laid_out}
    return states


def _load_states(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, states: dict[str, dict]
) -> None:
    """Give the optimizer ``states`` (by parameter name, burn's layout); every other setting
    stays the running optimizer's, as burn's record holds no setting."""
    index = {name: i for i, (name, _) in enumerate(model.named_parameters())}
    state_dict = optimizer.state_dict()
    state_dict["state"] = {
        index[name]: {
            "step": torch.tensor(float(state["time"])),
            **{
                key: to_burn_layout(model, {name: state[key]})[name]
                for key in _MOMENTS.values()
                if key in state
            },
        }
        for name, state in states.items()
        if name in index
    }
    optimizer.load_state_dict(state_dict)


# -- main: burnpack ------------------------------------------------------------


def optimizer_record(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> Pack:
    """burn's ``ModuleOptimizer::to_record`` of the trainer's AdamW state."""
    tensors, scalars, paths = [], {}, {}
    for name, state in _states(model, optimizer).items():
        pid = pack_record.param_id(name)
        for field, key in _MOMENTS.items():
            if key in state:
                tensor_name = f"{pid}.momentum.{field}"
                tensors.append(PackTensor.from_torch(tensor_name, state[key], pid))
        scalars[f"{pid}.momentum.time"] = ("UInt", state["time"])
        scalars[f"{pid}.{RANK_KEY}"] = ("UInt", state["exp_avg"].dim())
        paths[str(pid)] = name
    return Pack(tensors, paths, scalars)


def load_optimizer_record(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, record: Pack | dict
) -> None:
    """burn's ``ModuleOptimizer::load_record`` (module_optimizer.rs:249-307 at main): the
    tensors must carry a parameter id (burn's ``expect``, 274-276); a parameter whose state
    lacks a moment or its time is left without state (291-301). A record with neither
    scalars nor metadata reads as an empty module record (``decode``): no state."""
    if isinstance(record, dict):
        record = Pack([], {}, {})
    ids = {pack_record.param_id(name): name for name, _ in model.named_parameters()}
    tensors = {}
    for tensor in record.tensors:
        if tensor.param_id is None:
            raise ValueError("Optimizer record tensors should carry a parameter id.")
        tensors[tensor.name] = tensor.to_torch()
    states = {}
    for pid, name in ids.items():
        time = _usize(record.scalars.get(f"{pid}.momentum.time"))
        state = {
            key: tensors[f"{pid}.momentum.{field}"]
            for field, key in _MOMENTS.items()
            if f"{pid}.momentum.{field}" in tensors
        }
        if time is not None and {"exp_avg", "exp_avg_sq"} <= set(state):
            states[name] = {"time": time, **state}
    _load_states(model, optimizer, states)


def _usize(scalar: tuple[str, Any] | None) -> int | None:
    """``usize::try_from(Scalar)``: an Int or UInt that fits (burn-pack base.rs:203-229)."""
    if scalar is None or scalar[0] not in ("Int", "UInt"):
        return None
    return scalar[1] if 0 <= scalar[1] < 1 << 64 else None


def scheduler_record(scheduler: CosineAnnealingLr) -> Pack:
    """The cosine scheduler's ``to_record``: ``current_iter`` as a ``UInt`` scalar."""
    return Pack([], {}, {"current_iter": ("UInt", scheduler.current_iter)})


def load_scheduler_record(scheduler: CosineAnnealingLr, record: Pack | dict) -> None:
    """The cosine scheduler's ``load_record``: a record without ``current_iter`` changes
    nothing (cosine.rs:107-111 at main)."""
    scalars = record.scalars if isinstance(record, Pack) else {}
    current_iter = _usize(scalars.get("current_iter"))
    if current_iter is not None:
        scheduler.restore(current_iter)


# -- v0.19.1 and v0.21.0: the recorder's items ------------------------------------


def optimizer_item(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, version: str = "0.19.1"
) -> dict:
    """The optimizer adaptor's record as burn-core ``version``'s recorder writes its item:
    ``{param id: {"V1": {"Rank{D}": {"momentum": …}}}}``. From 0.20 the momentum state has
    a fourth field, ``max_moment_2: Option<Tensor>``, written as nil when AMSGrad is off
    (burn-optim optim/adam.rs:121-133 at v0.21.0; burn-core record/primitive.rs:46-51)."""
    item = {}
    for name, state in _states(model, optimizer).items():
        momentum = {"time": state["time"], "moment_1": state["exp_avg"]}
        momentum["moment_2"] = state["exp_avg_sq"]
        if version != "0.19.1":
            momentum["max_moment_2"] = state.get("max_exp_avg_sq")
        elif "max_exp_avg_sq" in state:
            raise ValueError("burn 0.19.1's AdamW has no AMSGrad state")
        rank = f"Rank{state['exp_avg'].dim()}"
        item[recorder.param_id(name)] = {"V1": {rank: {"momentum": momentum}}}
    return item


def load_optimizer_item(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, item: dict
) -> None:
    """The adaptor's ``load_record``: its states by parameter id, as the item holds them."""
    ids = {recorder.param_id(name): name for name, _ in model.named_parameters()}
    states = {}
    for pid, record in item.items():
        ((_, ranked),) = record["V1"].items()
        momentum = ranked["momentum"]
        if pid in ids:
            states[ids[pid]] = {
                "time": momentum["time"],
                "exp_avg": momentum["moment_1"],
                "exp_avg_sq": momentum["moment_2"],
            }
            if momentum.get("max_moment_2") is not None:
                states[ids[pid]]["max_exp_avg_sq"] = momentum["max_moment_2"]
    _load_states(model, optimizer, states)


def load_scheduler_item(scheduler: CosineAnnealingLr, item: int) -> None:
    """The cosine scheduler's ``load_record`` at v0.19.1 and v0.21.0: the item is
    ``current_iter``."""
    scheduler.restore(item)
