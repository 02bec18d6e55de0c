"""The weight-import scenarios: what each proves, and that each prints its texts for real.

The fast tests run each scenario's user program in this process, on a file written by the
real torch (the fault's strike), and match what it prints against the scenario; the slow
ones run the scenario as the verification worker does (``python -m trainer reproduce``),
in its own process, failure and fix.
"""

import json
import re
import subprocess
import sys
import zipfile

import pytest

from trainer import burn
from trainer.burn import weights as wt
from trainer.config import TrainConfig
from trainer.errors import Panic
from trainer.faults import Workspace, make_fault
from trainer.scenarios import SCENARIOS, get
from trainer.weights.imports import IMPORTS

IMPORT_SCENARIOS = [s for s in SCENARIOS if s.phase == "import"]
NAMES = [s.name for s in IMPORT_SCENARIOS]

# The weight-loading entries' messages (the demo dataset's), as burn writes them, and a
# scenario that proves each.
CONTRACT = {
    "Candle pickle error: {0}": "candle-recorder-legacy-pickle",
    "Candle Tensor error: {0}": "safetensors-recorder-pytorch-file",
    "Serde error: {0}": "pytorch-recorder-renamed-layer",
    "Missing source values for the '{}' field of type '{}'. Please verify the source data "
    "and ensure the field name is correct": "pytorch-recorder-renamed-layer",
    "No variant match": "pytorch-recorder-enum-block",
    "Pickle parsing error: {}. This may indicate an unsupported PyTorch file format or "
    "corrupted file.": "pytorch-store-truncated-download",
    "Expected a dictionary at the root of the PyTorch file, but found a different type. The "
    "file may be a full model save rather than a state_dict.": "pytorch-store-tensor-list",
    "Unsupported Python type '{}'. This may indicate a full model save rather than a "
    "state_dict.": "pytorch-store-whole-module",
    "Record file to exist.": "onnx-generated-record-file-gone",
    "Failed to load burnpack file": "onnx-generated-burnpack-file-gone",
    "Tensor not found: {}": "pytorch-store-prefixed-keys",
    "Shape mismatch for '{}': expected {:?}, found {:?}": "pytorch-store-wider-model",
    "I/O error: {}": "onnx-generated-burnpack-file-gone",
}


def run_program(scenario, tmp_path, *, fixed=False):
    """The scenario's import in this process: (texts printed, errno, weights imported)."""
    ws = Workspace(tmp_path)
    fault = make_fault(scenario.fault, scenario.target)
    config = TrainConfig(artifact_dir=str(ws.artifact_dir)).with_overrides(**scenario.overrides)
    if fixed:
        config = config.with_overrides(**scenario.fixed_overrides)
        fault.strike_fixed(ws, 0)
    else:
        fault.strike(ws, 0)
    module = fault.burn_module(config)
    try:
        options = fault.loader_options(fixed=fixed)
        weights = IMPORTS[scenario.setup](tmp_path, fault, module, options)
    except Panic as panic:
        return [panic.message], panic.errno, None, panic.location
    return [], None, weights, None


def test_it_proves_each_message_of_the_weights_contract():
    for message, name in CONTRACT.items():
        assert message in get(name).proves, (name, message)


def test_it_proves_that_a_whole_module_is_no_dictionary_error():
    """torch.save(model) fails on the module's set before the root's check (entry 7)."""
    not_a_dict = wt.READER_FORMAT["not_a_dict"].format
    assert not_a_dict in get("pytorch-store-whole-module").disproves
    assert not_a_dict in get("pytorch-recorder-whole-module").disproves


def test_it_runs_each_import_before_any_launch_at_the_users_call():
    for scenario in IMPORT_SCENARIOS:
        assert scenario.setup in IMPORTS and scenario.epoch == 0
        assert len(scenario.expected) == 1  # no logger yet: the panic alone
        assert scenario.expected[0].location_pattern is not None


@pytest.mark.parametrize("name", NAMES)
def test_it_prints_the_scenarios_text_on_a_file_torch_wrote(name, tmp_path):
    scenario = get(name)
    texts, errno, weights, location = run_program(scenario, tmp_path)
    assert weights is None
    assert scenario.matches(texts, errno), texts
    assert re.fullmatch(scenario.expected[0].location_pattern, location)


@pytest.mark.parametrize("name", NAMES)
def test_it_imports_every_weight_with_the_fix(name, tmp_path):
    scenario = get(name)
    texts, _, weights, _ = run_program(scenario, tmp_path, fixed=True)
    assert texts == []
    assert len(weights) == 4  # the MLP's two Linear layers


def test_it_writes_the_files_with_torch():
    """The faulty files are torch's own formats, or torch's cut short."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as root:
        ws = Workspace(Path(root))
        for kind in ("whole-module", "tensor-list", "prefixed-keys", "renamed-layer"):
            fault = make_fault(kind)
            fault.strike(ws, 0)
            assert zipfile.is_zipfile(fault.path(ws)), kind
        legacy = make_fault("legacy-pickle")
        legacy.strike(ws, 0)
        assert not zipfile.is_zipfile(legacy.path(ws))


def test_it_points_the_panic_at_the_unwrap_of_the_users_program(tmp_path):
    scenario = get("pytorch-store-whole-module")
    *_, location = run_program(scenario, tmp_path)
    path, line, column = location.rsplit(":", 2)
    source = (tmp_path / "src/main.rs").read_text().splitlines()[int(line) - 1]
    assert path == str(tmp_path / "src/main.rs")
    assert source[int(column) - 1 :].startswith("unwrap()")


def test_it_cites_each_weights_text_at_its_release():
    for scenario in IMPORT_SCENARIOS:
        commits = {c.rsplit("@", 1)[1] for c in scenario.citations}
        assert commits == {burn.RELEASES[scenario.release].commit}, scenario.name


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_it_reproduces_and_fixes_each_scenario_in_its_own_process(name):
    for variant, status in (("failure", "reproduced"), ("fixed", "fixed")):
        args = [sys.executable, "-m", "trainer", "reproduce", name]
        args += ["--fixed"] if variant == "fixed" else []
        result = subprocess.run(args, capture_output=True, text=True, timeout=300)
        outcome = json.loads(result.stdout)
        assert (outcome["variant"], outcome["status"]) == (variant, status), outcome
        assert result.returncode == 0
        if variant == "failure":
            [panic] = outcome["console"]
            assert re.match(r"thread 'main' \(\d+\) panicked at /", panic)
            assert panic.endswith(outcome["texts"][0])
        else:
            assert outcome["epochs_run"] == 4 and outcome["texts"] == []
