"""The mirror of burn's weight readers on files written by the real torch and safetensors.

Each file is written as a user writes it (``trainer.weights.files``); the mirror reads it
as burn does and prints burn's texts (Display with ``str()``, Debug with ``debug()``).
"""

import io
import zipfile

import pytest
import torch

from trainer.config import TrainConfig
from trainer.model import build_model
from trainer.weights import files
from trainer.weights.module import Enum, linear, mlp, struct
from trainer.weights.pickle import PickleError, Unmirrored, read_pickle
from trainer.weights.pytorch import PytorchError, load_pytorch_file
from trainer.weights.recorder import (
    RecorderError,
    load_candle_pytorch_record,
    load_pytorch_record,
    open_record_file,
)
from trainer.weights.rust import debug_f64, debug_str
from trainer.weights.store import (
    PytorchStore,
    SafetensorsStore,
    StoreError,
    jaro,
    map_indices_contiguous,
    rust_replace,
)

BURN_MLP = mlp(16, 32, 4)
UNWRAP = "called `Result::unwrap()` on an `Err` value: "


@pytest.fixture(scope="module")
def model():
    return build_model(TrainConfig(seed=1))


def written(tmp_path, writer, model, name="weights.pt", *args):
    path = tmp_path / name
    writer(model, path, *args)
    return path


# -- the files are real torch and safetensors files --------------------------------------


def test_it_writes_files_torch_itself_reads_back(tmp_path, model):
    state = model.state_dict()
    for writer in (files.save_state_dict, files.save_legacy_state_dict):
        loaded = torch.load(written(tmp_path, writer, model), weights_only=True)
        assert loaded.keys() == state.keys()
        assert all(torch.equal(loaded[k], state[k]) for k in state)
    whole = torch.load(written(tmp_path, files.save_module, model), weights_only=False)
    assert isinstance(whole, type(model))
    from safetensors.torch import load_file

    safetensors = load_file(written(tmp_path, files.save_safetensors, model, "w.safetensors"))
    assert all(torch.equal(safetensors[k], state[k]) for k in state)


def test_it_writes_the_zip_format_or_the_legacy_one(tmp_path, model):
    assert zipfile.is_zipfile(written(tmp_path, files.save_state_dict, model))
    legacy = written(tmp_path, files.save_legacy_state_dict, model)
    assert not zipfile.is_zipfile(legacy)
    assert legacy.read_bytes()[:4] == bytes([0x80, 0x02, 0x8A, 0x0A])  # PROTO 2, LONG1


# -- burn-store at main: what loads --------------------------------------------------------


def test_it_loads_a_state_dict_into_burns_model_with_linear_weights_transposed(tmp_path, model):
    loaded: dict = {}
    result = PytorchStore(written(tmp_path, files.save_state_dict, model)).apply_to(
        BURN_MLP, loaded
    )
    assert sorted(result.applied) == sorted(loaded) == sorted(model.state_dict())
    assert not (result.missing or result.unused or result.errors)
    assert torch.equal(loaded["hidden.weight"], model.hidden.weight.detach().t())
    assert torch.equal(loaded["output.bias"], model.output.bias.detach())


def test_it_reads_the_legacy_format_at_main(tmp_path, model):
    path = written(tmp_path, files.save_legacy_state_dict, model)
    file = load_pytorch_file(path)
    assert file.format_type == "Legacy"
    assert torch.equal(file.tensors["hidden.weight"].load(), model.hidden.weight.detach())
    with pytest.raises(Unmirrored):  # burn-import 0.20.1's legacy reader is another
        load_pytorch_file(path, release="v0.20.1")


def test_it_loads_float64_weights_into_float_parameters_unchecked(tmp_path, model):
    """burn's applier checks shapes, not dtypes (applier.rs:217-243)."""
    path = written(tmp_path, files.save_as_dtype, model, "w.pt", torch.float64)
    loaded: dict = {}
    PytorchStore(path).apply_to(BURN_MLP, loaded)
    assert loaded["hidden.weight"].dtype == torch.float64


def test_it_does_not_claim_what_the_backend_does_with_integer_weights(tmp_path, model):
    path = written(tmp_path, files.save_as_dtype, model, "w.pt", torch.int64)
    with pytest.raises(Unmirrored):
        PytorchStore(path).apply_to(BURN_MLP)


# -- burn-store at main: what fails, with burn's Display and Debug -------------------------------


def test_it_refuses_a_whole_module_on_its_first_set(tmp_path, model):
    for writer in (files.save_module, files.save_legacy_module):
        with pytest.raises(StoreError) as raised:
            PytorchStore(written(tmp_path, writer, model)).apply_to(BURN_MLP)
        assert raised.value.debug() == 'Reader(Pickle(UnsupportedType("__builtin__.set")))'
        assert str(raised.value) == (
            "PyTorch reader error: Pickle parsing error: Unsupported Python type "
            "'__builtin__.set'. This may indicate a full model save rather than a state_dict.. "
            "This may indicate an unsupported PyTorch file format or corrupted file."
        )


def test_it_reads_a_cut_file_as_a_plain_pickle_and_stops_at_its_first_byte(tmp_path, model):
    path = written(tmp_path, files.save_state_dict, model)
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(PytorchError) as raised:
        load_pytorch_file(path)
    assert raised.value.debug() == "Pickle(InvalidOpCode(80))"
    assert str(raised.value).startswith("Pickle parsing error: Invalid pickle opcode: 0x50. ")


def test_it_refuses_a_root_that_is_no_dictionary(tmp_path, model):
    path = tmp_path / "list.pt"
    torch.save(list(model.state_dict().values()), path)
    with pytest.raises(PytorchError) as raised:
        load_pytorch_file(path)
    assert raised.value.debug().startswith('InvalidFormat("Expected a dictionary at the root')


def test_it_lists_the_top_level_keys_it_found(tmp_path, model):
    path = written(tmp_path, files.save_checkpoint, model)
    with pytest.raises(PytorchError) as raised:
        load_pytorch_file(path, "state_dict")
    message = raised.value.payload
    assert message.startswith("Top-level key 'state_dict' not found or is not a dictionary.")
    assert '"model_state_dict"' in message and '"epoch"' in message
    assert str(raised.value).startswith("Key 'Top-level key 'state_dict' not found")


def test_it_summarises_missing_tensors_and_suggests_similar_names(tmp_path, model):
    path = written(tmp_path, files.save_renamed, model)
    with pytest.raises(StoreError) as raised:
        PytorchStore(path).apply_to(BURN_MLP)
    text = str(raised.value)
    assert text.startswith("Tensor not found: \n┌─ Tensor Loading Summary ─")
    assert "│ ✗ Missing in source:    4 tensors" in text
    assert "│    • hidden.weight\n│        Did you mean: 'model.hidden.weight'?" in text
    assert text.endswith("instead of a hard failure.")
    remapped = PytorchStore(path, remappings=[(r"^model\.(.*)", "$1")]).apply_to(BURN_MLP)
    assert len(remapped.applied) == 4


def test_it_fails_validation_on_shapes_before_missing_tensors(tmp_path):
    wide = build_model(TrainConfig(seed=1, hidden_dim=64))
    with pytest.raises(StoreError) as raised:
        PytorchStore(written(tmp_path, files.save_state_dict, wide)).apply_to(BURN_MLP)
    assert raised.value.variant == "ValidationFailed"
    assert "│ ! Errors:               3 errors" in str(raised.value)
    assert "│  ⚠️  Shape mismatch for 'hidden.weight': expected " in str(raised.value)
    assert "⚠\\u{fe0f}  Shape mismatch" in raised.value.debug()  # Rust's Debug escape


def test_it_reads_safetensors_without_the_pytorch_layout_unless_asked(tmp_path, model):
    path = written(tmp_path, files.save_safetensors, model, "w.safetensors")
    with pytest.raises(StoreError) as raised:
        SafetensorsStore(path).apply_to(BURN_MLP)
    assert raised.value.debug().startswith(
        'ValidationFailed("Import errors: [ShapeMismatch { path: \\"hidden.weight\\"'
    )
    assert len(SafetensorsStore(path, from_pytorch=True).apply_to(BURN_MLP).applied) == 4


def test_it_wraps_the_safetensors_crates_error(tmp_path, model):
    path = written(tmp_path, files.save_truncated_safetensors, model, "w.safetensors")
    with pytest.raises(StoreError) as raised:
        SafetensorsStore(path).apply_to(BURN_MLP)
    assert str(raised.value).startswith("SafeTensors error: ")
    with pytest.raises(Unmirrored):  # the crate's Debug is not the Python package's
        raised.value.debug()


# -- burn-import 0.20.1 and 0.12.1 ----------------------------------------------------------


def test_it_wraps_the_reader_error_in_deserialize_error_at_0_20(tmp_path, model):
    with pytest.raises(RecorderError) as raised:
        load_pytorch_record(written(tmp_path, files.save_module, model), BURN_MLP)
    assert raised.value.debug().startswith(
        'DeserializeError("Store error: Pickle parsing error: Unsupported Python type '
        "'__builtin__.set'. This may indicate a full model save rather than a state_dict.. "
    )


def test_it_names_the_missing_field_and_its_record_type(tmp_path, model):
    path = tmp_path / "w.pt"
    state = model.state_dict()
    torch.save({k.replace("output.", "head.", 1): v for k, v in state.items()}, path)
    with pytest.raises(RecorderError) as raised:
        load_pytorch_record(path, BURN_MLP)
    assert raised.value.debug() == (
        "DeserializeError(\"Serde error: other error: Missing source values for the 'output' "
        "field of type 'LinearRecordItem'. Please verify the source data and ensure the field "
        'name is correct")'
    )
    loaded = load_pytorch_record(path, BURN_MLP, key_remap=[(r"^head\.(.*)", "output.$1")])
    assert torch.equal(loaded["output.weight"], model.output.weight.detach().t())


def test_it_tries_each_enum_variant_and_finds_none(tmp_path, model):
    block = Enum(
        "Block",
        (
            ("Plain", struct("PlainBlock", linear=linear(16, 32))),
            ("Gated", struct("GatedBlock", linear=linear(16, 32), gate=linear(16, 32))),
        ),
        "Plain",
    )
    burn_model = struct("Model", hidden=block, output=linear(32, 4))
    path = written(tmp_path, files.save_state_dict, model)
    with pytest.raises(RecorderError) as raised:
        load_pytorch_record(path, burn_model)
    assert raised.value.debug() == (
        'DeserializeError("Serde error: failed to deserialize: No variant match")'
    )
    loaded = load_pytorch_record(
        path, burn_model, key_remap=[(r"^hidden\.(weight|bias)$", "hidden.linear.$1")]
    )
    assert set(loaded) == {
        "hidden.linear.weight", "hidden.linear.bias", "output.weight", "output.bias",
    }  # fmt: skip


def test_it_leaves_a_missing_bias_to_its_option(tmp_path, model):
    path = tmp_path / "w.pt"
    torch.save({k: v for k, v in model.state_dict().items() if k != "hidden.bias"}, path)
    assert "hidden.bias" not in load_pytorch_record(path, BURN_MLP)


def test_it_shows_candles_error_inside_burns_wrapper_at_0_12(tmp_path, model):
    with pytest.raises(RecorderError) as raised:
        load_candle_pytorch_record(written(tmp_path, files.save_legacy_state_dict, model))
    assert raised.value.debug().startswith('DeserializeError("Candle pickle error: ')
    assert set(load_candle_pytorch_record(written(tmp_path, files.save_state_dict, model))) == set(
        model.state_dict()
    )


def test_it_opens_the_generated_models_record_with_its_extension(tmp_path):
    with pytest.raises(RecorderError) as raised:
        open_record_file(tmp_path / "out/model/mlp")
    assert raised.value.debug() == 'FileNotFound("No such file or directory (os error 2)")'
    assert raised.value.errno == 2
    (tmp_path / "mlp.mpk").write_bytes(b"")
    assert open_record_file(tmp_path / "mlp") == tmp_path / "mlp.mpk"


# -- the pieces: pickle, remapping, renumbering, Rust's Debug ------------------------------------


def test_it_stops_a_pickle_memo_bomb_as_burn_does():
    """pickle_reader.rs test_memo_bomb_mitigation: 20 doublings of a memoised tuple."""
    bomb = bytes([0x89, ord("q"), 0x00])
    bomb += bytes([ord("h"), 0x00, ord("h"), 0x00, 0x86, ord("q"), 0x00]) * 20 + b"."
    with pytest.raises(PickleError) as raised:
        read_pickle(io.BytesIO(bomb))
    assert raised.value.variant == "InvalidData" and "exceeded 1M nodes" in raised.value.payload


def test_it_replaces_as_rusts_regex_does():
    assert rust_replace(r"conv\.(.*)", "$1", "conv.conv1.weight") == "conv1.weight"
    assert rust_replace(r"(?P<a>x)", "${a}y$$", "x") == "xy$"
    assert rust_replace(r"(x)", "$1a", "x") == ""  # `$1a` names a group `1a`: empty
    assert rust_replace(r"(.+)\.block\.0\.(.+)", "$1.conv.$2", "layer.0.block.0.w") == (
        "layer.0.conv.w"
    )


def test_it_renumbers_indices_per_position():
    from trainer.weights.store import Tensor

    tensors = [Tensor(p.split("."), None) for p in ("fc.0.w", "fc.2.w", "fc.4.w", "x.7.w")]
    assert [t.full_path for t in map_indices_contiguous(tensors)] == [
        "fc.0.w", "fc.1.w", "fc.2.w", "x.0.w",
    ]  # fmt: skip


def test_it_prints_rusts_debug_forms():
    assert debug_str('a "b"\n⚠️') == '"a \\"b\\"\\n⚠\\u{fe0f}"'
    assert debug_str("it's") == '"it\'s"'
    assert [debug_f64(x) for x in (1.0, 0.1, 1e16, 1e-5, float("nan"))] == [
        "1.0", "0.1", "1e16", "1e-5", "NaN",
    ]  # fmt: skip


def test_it_measures_jaro_similarity():
    assert jaro("hidden.bias", "hidden.bias") == 1.0
    assert jaro("", "x") == 0.0
    assert round(jaro("MARTHA", "MARHTA"), 4) == 0.9444
