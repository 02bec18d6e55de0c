"""The user's programs that import weights into burn, run with the mirror: the ``import`` phase.

Each set-up (a key of ``burn.SETUPS``) is a small Rust program through burn's public API:
``PytorchStore`` and ``load_from`` (burn-store, main), ``PyTorchFileRecorder::load``
(burn-import 0.20.1, and its candle-based 0.12.1), the generated ONNX model's
``Model::default()`` (0.12.1).  The program is written into the run's workspace, and a
panic is reported at its ``unwrap``/``expect``, as Rust reports the caller's location.

The phase: the fault writes the file with real torch (``strike``; the fixed variant also
applies its ``remedy``), the program reads it with the mirror, and a failure panics with
burn's text.  Without one, the imported weights become the initial weights of a training
run of the trainer's default set-up (the supervised launcher, main): the fix is shown to
give weights that load and train.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainer import burn
from trainer.burn import weights as texts
from trainer.errors import Panic
from trainer.weights import recorder, store

TRAINING_SETUP = "supervised"  # how the fixed run trains the imported weights


@dataclass(frozen=True)
class UserCall:
    """Where the user's program panics: ``path:line:column`` of its unwrap/expect."""

    location: str


@dataclass(frozen=True)
class Program:
    """A program's file in the workspace, and the call in it that panics."""

    path: str  # relative to the workspace
    text: str
    call: str  # the method Rust reports: `unwrap` or `expect`

    def site(self, root: Path) -> UserCall:
        for number, line in enumerate(self.text.splitlines(), start=1):
            column = line.find(f".{self.call}(")
            if column >= 0:
                return UserCall(f"{root / self.path}:{number}:{column + 2}")
        raise ValueError(f"no .{self.call}( in {self.path}")

    def write(self, root: Path) -> None:
        file = root / self.path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(self.text)


def unwrap_panic(program: Program, root: Path, err: Any) -> Panic:
    """``Result::unwrap`` on ``Err(err)``: std's message and the error's Debug."""
    message = burn.expect(burn.STD["unwrap"], err.debug())
    return Panic(message, site=program.site(root), errno=getattr(err, "errno", None))


def expect_panic(program: Program, root: Path, text: burn.Text, err: Any) -> Panic:
    message = burn.expect(text.format, err.debug())
    return Panic(message, site=program.site(root), errno=getattr(err, "errno", None))


# -- the programs -------------------------------------------------------------------------


def _store_program(file: str, options: dict) -> Program:
    calls = "".join(
        f'\n        .with_key_remapping(r"{pattern}", "{replacement}")'
        for pattern, replacement in options.get("remap", [])
    )
    if options.get("top_level_key"):
        calls += f'\n        .with_top_level_key("{options["top_level_key"]}")'
    text = f"""use burn_store::{{ModuleSnapshot, PytorchStore}};

use crate::model::Model;

mod model;

fn main() {{
    let device = Default::default();
    let mut model = Model::new(&device);
    let mut store = PytorchStore::from_file("{file}"){calls};
    model.load_from(&mut store).unwrap();
}}
"""
    return Program("src/main.rs", text, "unwrap")


def _recorder_program(file: str, options: dict) -> Program:
    args = f'LoadArgs::new("{file}".into())'
    for pattern, replacement in options.get("remap", []):
        args += f'\n        .with_key_remap(r"{pattern}", "{replacement}")'
    if options.get("top_level_key"):
        args += f'\n        .with_top_level_key("{options["top_level_key"]}")'
    text = f"""use burn::backend::NdArray;
use burn::module::Module;
use burn::record::{{FullPrecisionSettings, Recorder}};
use burn_import::pytorch::{{LoadArgs, PyTorchFileRecorder}};

use crate::model::{{Model, ModelRecord}};

mod model;

type B = NdArray;

fn main() {{
    let device = Default::default();
    let args = {args};
    let record: ModelRecord<B> = PyTorchFileRecorder::<FullPrecisionSettings>::default()
        .load(args, &device)
        .unwrap();
    let model = Model::<B>::new(&device).load_record(record);
}}
"""
    return Program("src/main.rs", text, "unwrap")


def _safetensors_recorder_program(file: str, options: dict) -> Program:
    program = _recorder_program(file, options)
    text = program.text.replace(
        "burn_import::pytorch::{LoadArgs, PyTorchFileRecorder}",
        "burn_import::safetensors::{LoadArgs, SafetensorsFileRecorder}",
    )
    text = text.replace("PyTorchFileRecorder::<", "SafetensorsFileRecorder::<")
    return Program(program.path, text, program.call)


def _generated_program(record_file: str) -> Program:
    """The generated model's loading code: graph.rs:367-374 at 0.12.1 with the default
    recorder (``RecordType::NamedMpk``, graph.rs:30-32) and full precision."""
    stem = str(Path(record_file).with_suffix(""))
    text = f"""// Generated from ONNX by burn-import (ModelGen), loading its weights at run time.
impl<B: Backend> Default for Model<B> {{
    fn default() -> Self {{
        Self::from_file("{stem}", &Default::default())
    }}
}}

impl<B: Backend> Model<B> {{
    pub fn from_file(file: &str, device: &B::Device) -> Self {{
        let record = burn::record::NamedMpkFileRecorder::<FullPrecisionSettings>::new()
            .load(file.into(), device)
            .expect("Record file to exist.");
        Self::new_with(record)
    }}
}}
"""
    return Program(str(Path(record_file).with_name("mlp.rs")), text, "expect")


def _generated_burnpack_program(burnpack_file: str) -> Program:
    """The generated model's loading code: graph.rs:273-288 at 0.20.1."""
    text = f"""// Generated from ONNX by burn-import (ModelGen), loading its weights at run time.
impl<B: Backend> Default for Model<B> {{
    fn default() -> Self {{
        Self::from_file("{burnpack_file}", &Default::default())
    }}
}}

impl<B: Backend> Model<B> {{
    /// Load model weights from a burnpack file.
    pub fn from_file(file: &str, device: &B::Device) -> Self {{
        let mut model = Self::new(device);
        let mut store = BurnpackStore::from_file(file);
        model.load_from(&mut store).expect("Failed to load burnpack file");
        model
    }}
}}
"""
    return Program(str(Path(burnpack_file).with_name("mlp.rs")), text, "expect")


# -- the set-ups ------------------------------------------------------------------------------


def import_with_store(root: Path, fault, module, options: dict) -> dict[str, Any]:
    """burn-store (main): ``model.load_from(&mut store).unwrap()``."""
    program = _store_program(fault.file_name, options)
    program.write(root)
    pytorch_store = store.PytorchStore(
        fault.path_in(root),
        top_level_key=options.get("top_level_key"),
        remappings=list(options.get("remap", [])),
    )
    loaded: dict[str, Any] = {}
    try:
        pytorch_store.apply_to(module, loaded)
    except store.StoreError as err:
        raise unwrap_panic(program, root, err) from err
    return loaded


def import_with_recorder(root: Path, fault, module, options: dict) -> dict[str, Any]:
    """burn-import 0.20.1: ``PyTorchFileRecorder::load(args, &device).unwrap()``."""
    program = _recorder_program(fault.file_name, options)
    program.write(root)
    try:
        return recorder.load_pytorch_record(
            fault.path_in(root),
            module,
            key_remap=list(options.get("remap", [])),
            top_level_key=options.get("top_level_key"),
        )
    except recorder.RecorderError as err:
        raise unwrap_panic(program, root, err) from err


def import_with_safetensors_recorder(root: Path, fault, module, options: dict) -> dict[str, Any]:
    """burn-import 0.20.1: ``SafetensorsFileRecorder::load(args, &device).unwrap()``."""
    program = _safetensors_recorder_program(fault.file_name, options)
    program.write(root)
    try:
        return recorder.load_safetensors_record(
            fault.path_in(root), module, key_remap=list(options.get("remap", []))
        )
    except recorder.RecorderError as err:
        raise unwrap_panic(program, root, err) from err


def import_with_candle_recorder(root: Path, fault, module, options: dict) -> dict[str, Any]:
    """burn-import 0.12.1: the same call, candle reading the file."""
    program = _recorder_program(fault.file_name, options)
    program.write(root)
    try:
        tensors = recorder.load_candle_pytorch_record(fault.path_in(root))
    except recorder.RecorderError as err:
        raise unwrap_panic(program, root, err) from err
    return _burn_layout(tensors)


def import_generated_model(root: Path, fault, module, options: dict) -> dict[str, Any]:
    """0.12.1's generated model: ``Model::default()`` loads the record written at build
    time (the fixed run reads it with the trainer's v0.19.1 CompactRecorder reader, standing
    in for 0.12.1's recorder)."""
    from trainer.recorder import read_recorded

    program = _generated_program(fault.file_name)
    program.write(root)
    try:
        path = recorder.open_record_file(fault.path_in(root))
    except recorder.RecorderError as err:
        raise expect_panic(program, root, texts.RECORD_FILE_TO_EXIST, err) from err
    return read_recorded(path)  # written in burn's layout (``module_record``)


def import_generated_burnpack_model(root: Path, fault, module, options: dict) -> dict[str, Any]:
    """0.20.1's generated model: ``Model::default()`` loads the burnpack file written at
    build time (the fixed run reads it with the trainer's burnpack reader, main's burn-pack)."""
    from trainer.record import read_record

    program = _generated_burnpack_program(str(fault.path_in(root)))
    program.write(root)
    try:
        path = recorder.open_burnpack_file(fault.path_in(root))
    except recorder.RecorderError as err:
        raise expect_panic(program, root, texts.FAILED_TO_LOAD_BURNPACK, err) from err
    return read_record(path)  # written in burn's layout (``module_record``)


def _burn_layout(tensors: dict) -> dict[str, Any]:
    return {name: _to_burn(name, snapshot.load()) for name, snapshot in tensors.items()}


def _to_burn(name: str, tensor):
    """A PyTorch tensor in burn's layout: a ``Linear`` weight transposed."""
    return tensor.t().contiguous() if tensor.dim() == 2 else tensor


IMPORTS: dict[str, Callable[..., dict[str, Any]]] = {
    "pytorch-store": import_with_store,
    "pytorch-recorder": import_with_recorder,
    "safetensors-recorder": import_with_safetensors_recorder,
    "candle-recorder": import_with_candle_recorder,
    "onnx-record-file": import_generated_model,
    "onnx-burnpack-file": import_generated_burnpack_model,
}


# -- the phase ------------------------------------------------------------------------------


def run_import_phase(attempt) -> None:
    """The fault writes the file; the user's program imports it; the fix trains it."""
    from trainer.errors import Printed
    from trainer.learner import print_panic

    attempt.strike(0)
    fault, root = attempt.fault, attempt.ws.root
    module = fault.burn_module(attempt.config)
    options = fault.loader_options(fixed=attempt.fixed)
    try:
        weights = IMPORTS[attempt.scenario.setup](root, fault, module, options)
    except Panic as panic:  # before any launch: Rust's default hook alone reports it
        printed = Printed.panic(panic)
        attempt.printed.append(printed)
        print_panic(printed)
        attempt.announce(printed)
        return
    attempt.config = attempt.config.with_overrides(setup=TRAINING_SETUP)
    learner = attempt.start(attempt.config)
    if learner is not None:
        load_into(learner.model, weights, fault.torch_name)
        learner.fit()


def load_into(model, weights: dict[str, Any], torch_name: Callable[[str], str]) -> None:
    """Set the trainer's model to the imported weights (burn's Linear weight transposed
    back to PyTorch's layout); every parameter must be imported."""
    import torch

    state = {}
    for burn_path, tensor in weights.items():
        state[torch_name(burn_path)] = tensor.t() if tensor.dim() == 2 else tensor
    with torch.no_grad():
        model.load_state_dict({k: v.to(torch.float32) for k, v in state.items()}, strict=True)
