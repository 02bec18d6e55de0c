"""burn's own test files, read by the mirror as burn's own tests read them.

The files are burn-store's at main (2c06be35), kept byte for byte under
tests/upstream/burn/<main>/crates/burn-store/: the reader's test data
(src/pytorch/tests/reader/test_data/, made by burn's test_data.py and friends), the store
tests' file (src/pytorch/tests/store/test_data/) and the integration tests' files
(pytorch-tests/tests/, safetensors-tests/tests/).  Each test below names the test of
burn's it follows and asserts what that test asserts: which files load, their tensors'
names, dtypes, shapes and values (burn's tolerances: 1e-2 for F16/BF16, 1e-6 for F32,
1e-10 for F64), which fail, and what the error says.  The integration tests load a file
into a burn model and compare its forward pass with values the test holds; where the
model is made of layers the trainer can run in PyTorch (Linear, Conv2d), so does this file,
with the inputs and expected outputs read from burn's test source.
"""

import ast
import math
import re

import pytest
import torch
import torch.nn.functional as F

from tests.upstream.sources import KEPT, source_lines
from trainer.weights.module import (
    Enum,
    Param,
    Vec,
    batch_norm,
    conv,
    conv2d,
    embedding,
    group_norm,
    layer_norm,
    linear,
    struct,
)
from trainer.weights.pytorch import PytorchError, load_pytorch_file
from trainer.weights.store import PytorchStore, SafetensorsStore, StoreError

MAIN = "2c06be351006851d42fdb6df16b976f4a82d9747"
STORE = KEPT / MAIN / "crates/burn-store"
READER_DATA = STORE / "src/pytorch/tests/reader/test_data"
STORE_DATA = STORE / "src/pytorch/tests/store/test_data"
PYTORCH_TESTS = STORE / "pytorch-tests/tests"
SAFETENSORS_TESTS = STORE / "safetensors-tests/tests"
TOLERANCE = {"F16": 1e-2, "BF16": 1e-2, "F32": 1e-6, "F64": 1e-10}


def values(snapshot) -> list:
    return snapshot.load().flatten().tolist()


def assert_close(actual: list, expected: list, dtype: str) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        assert abs(a - e) < TOLERANCE.get(dtype, 0) or a == e, (actual, expected)


# -- the reader (src/pytorch/tests/reader/mod.rs) ----------------------------------------

# (burn's test, file, key, dtype, shape, values or None where the test checks no values)
TENSORS = [
    ("test_float32_tensor", "float32.pt", "tensor", "F32", (4,), [1.0, 2.5, -3.7, 0.0]),
    ("test_float64_tensor", "float64.pt", "tensor", "F64", (3,), [1.1, 2.2, 3.3]),
    ("test_int64_tensor", "int64.pt", "tensor", "I64", (4,), [100, -200, 300, 0]),
    ("test_int32_tensor", "int32.pt", "tensor", "I32", (3,), [10, 20, -30]),
    ("test_int16_tensor", "int16.pt", "tensor", "I16", (3,), [1000, -2000, 3000]),
    ("test_int8_tensor", "int8.pt", "tensor", "I8", (4,), [127, -128, 0, 50]),
    ("test_bool_tensor", "bool.pt", "tensor", "Bool", (5,), [True, False, True, True, False]),
    ("test_uint8_tensor", "uint8.pt", "tensor", "U8", (4,), [0, 128, 255, 42]),
    ("test_float16_tensor", "float16.pt", "tensor", "F16", (3,), [1.5, -2.25, 3.125]),
    ("test_bfloat16_tensor", "bfloat16.pt", "tensor", "BF16", (3,), [1.5, -2.5, 3.5]),
    ("test_2d_tensor", "tensor_2d.pt", "tensor", "F32", (3, 2), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
    ("test_3d_tensor", "tensor_3d.pt", "tensor", "F32", (2, 3, 4), None),
    ("test_4d_tensor", "tensor_4d.pt", "tensor", "F32", (2, 3, 2, 2), None),
    ("test_scalar_tensor", "scalar.pt", "tensor", "F32", (), [42.0]),
    ("test_parameter", "parameter.pt", "param", "F32", (3, 3), None),
    ("test_tar_float32_tensor", "tar_float32.tar", "tensor", "F32", (4,), [1.0, 2.5, -3.7, 0.0]),
    ("test_tar_float64_tensor", "tar_float64.tar", "tensor", "F64", (3,), [1.1, 2.2, 3.3]),
    ("test_tar_int64_tensor", "tar_int64.tar", "tensor", "I64", (4,), [100, -200, 300, 0]),
    (
        "test_tar_2d_tensor_shape",
        "tar_2d_tensor.tar",
        "matrix",
        "F32",
        (3, 4),
        [float(i + 1) for i in range(12)],
    ),
]


@pytest.mark.parametrize(("test", "file", "key", "dtype", "shape", "expected"), TENSORS)
def test_it_reads_each_tensor_file_as_burns_reader_tests_do(
    test, file, key, dtype, shape, expected
):
    tensor = load_pytorch_file(READER_DATA / file).tensors[key]
    assert (tensor.dtype, tensor.shape) == (dtype, shape)
    data = values(tensor)
    assert len(data) == math.prod(shape)
    if expected is not None:
        assert_close(data, expected, dtype)


def test_it_reads_the_large_the_special_and_the_extreme_values():
    large = values(load_pytorch_file(READER_DATA / "large_shape.pt").tensors["tensor"])
    assert len(large) == 10000 and (large[0], large[5050], large[9999]) == (1.0, 2.0, 3.0)
    special = values(load_pytorch_file(READER_DATA / "special_values.pt").tensors["tensor"])
    assert math.isnan(special[0]) and special[1] == math.inf and special[2] == -math.inf
    assert special[3:] == [0.0, 1.0]
    extreme = values(load_pytorch_file(READER_DATA / "extreme_values.pt").tensors["tensor"])
    assert 0 < extreme[0] < 1e-20 and extreme[1] > 1e20
    assert -1e-20 < extreme[2] < 0 and extreme[3] < -1e20


def test_it_reads_an_empty_tensors_shape_as_burn_does():
    """test_empty_tensor: shape [0], F32; burn does not load its data (TensorData refuses)."""
    tensor = load_pytorch_file(READER_DATA / "empty.pt").tensors["tensor"]
    assert (tensor.dtype, tensor.shape) == ("F32", (0,))


def test_it_reads_the_state_dict_with_its_four_tensors():
    """test_state_dict, test_read_pytorch_tensors_convenience."""
    tensors = load_pytorch_file(READER_DATA / "state_dict.pt").tensors
    assert set(tensors) == {"weight", "bias", "running_mean", "running_var"}
    assert tensors["weight"].shape == (3, 4) and tensors["bias"].shape == (3,)
    assert all(abs(v) < 1e-6 for v in values(tensors["running_mean"]))
    assert all(abs(v - 1) < 1e-6 for v in values(tensors["running_var"]))


def test_it_names_nested_tensors_by_their_dotted_path():
    """test_nested_dict, test_complex_structure, test_checkpoint."""
    nested = load_pytorch_file(READER_DATA / "nested_dict.pt").tensors
    assert set(nested) == {"layer1.weight", "layer1.bias", "layer2.weight", "layer2.bias"}
    assert nested["layer1.weight"].shape == (2, 3) and nested["layer2.weight"].shape == (4, 2)
    assert len(values(nested["layer2.weight"])) == 8
    complex_ = load_pytorch_file(READER_DATA / "complex_structure.pt").tensors
    for name in ("encoder.layer_0.weight", "encoder.layer_1.bias", "decoder.weight"):
        assert "state." + name in complex_
    assert complex_["state.encoder.layer_0.weight"].shape == (4, 3)
    assert complex_["state.decoder.weight"].shape == (3, 2)
    checkpoint = load_pytorch_file(READER_DATA / "checkpoint.pt").tensors
    assert checkpoint["model_state_dict.fc1.weight"].shape == (10, 5)
    assert len(values(checkpoint["model_state_dict.fc2.weight"])) == 30


def test_it_reads_under_a_top_level_key():
    """test_with_top_level_key."""
    keys = load_pytorch_file(READER_DATA / "checkpoint.pt", "model_state_dict").keys()
    assert {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"} <= set(keys)
    assert "model_state_dict.fc1.weight" not in keys


def test_it_reads_mixed_dtypes_and_buffers():
    """test_mixed_types, test_buffers."""
    mixed = load_pytorch_file(READER_DATA / "mixed_types.pt").tensors
    assert {k: t.dtype for k, t in mixed.items()} == {
        "float32": "F32", "int64": "I64", "bool": "Bool", "float64": "F64",
    }  # fmt: skip
    assert values(mixed["int64"]) == [100, 200] and values(mixed["bool"]) == [True, False]
    assert_close(values(mixed["float64"]), [1.1, 2.2], "F64")
    buffers = load_pytorch_file(READER_DATA / "buffers.pt").tensors
    assert values(buffers["buffer1"]) == [1, 2, 3] and buffers["buffer1"].dtype == "I32"
    assert values(buffers["buffer2"]) == [True, False]


def test_it_reads_the_legacy_format():
    """test_legacy_format, test_metadata_legacy_format, test_legacy_uncloned_views,
    test_legacy_with_offsets, test_legacy_shared_storage."""
    legacy = load_pytorch_file(READER_DATA / "simple_legacy.pt")
    assert legacy.format_type == "Legacy" and len(legacy.tensors) == 3
    assert legacy.tensors["weight"].shape == (2, 3)
    assert values(legacy.tensors["bias"]) == [1.0, 1.0]
    assert values(legacy.tensors["running_mean"]) == [0.0, 0.0]
    views = load_pytorch_file(READER_DATA / "legacy_uncloned_views.pt").tensors
    assert values(views["tensor1"]) == [float(v) for v in range(10, 20)]
    assert values(views["tensor2"]) == [float(v) for v in range(50, 60)]
    offsets = load_pytorch_file(READER_DATA / "legacy_with_offsets.pt").tensors
    assert len(offsets) == 3
    assert_close(values(offsets["tensor1"]), [1 + i / 100 for i in range(10)], "F32")
    assert_close(values(offsets["tensor2"]), [2.0, 2.1, 2.2, 2.3, 2.4], "F32")
    assert_close(values(offsets["tensor3"]), [3.0, 3.1, 3.2, 3.3, 3.4], "F32")
    shared = load_pytorch_file(READER_DATA / "legacy_shared_storage.pt").tensors
    assert len(shared) >= 2 and all(values(t) for t in shared.values())


def test_it_tells_the_formats_apart():
    """test_metadata_zip_format, test_tar_format_detection, test_tar_metadata."""
    assert load_pytorch_file(READER_DATA / "float32.pt").format_type == "Zip"
    assert load_pytorch_file(READER_DATA / "tar_float32.tar").format_type == "Tar"


def test_it_reads_several_tensors_from_a_tar_file():
    """test_tar_multiple_tensors, test_tar_multi_dtype."""
    pair = load_pytorch_file(READER_DATA / "tar_weight_bias.tar").tensors
    assert pair["weight"].shape == (2, 3) and pair["bias"].shape == (2,)
    assert_close(values(pair["weight"])[:2], [0.1, 0.2], "F32")
    assert_close(values(pair["bias"]), [0.01, 0.02], "F32")
    multi = load_pytorch_file(READER_DATA / "tar_multi_dtype.tar").tensors
    assert (multi["float_tensor"].dtype, values(multi["float_tensor"])[0]) == ("F32", 1.5)
    assert multi["double_tensor"].dtype == "F64"
    assert abs(values(multi["double_tensor"])[0] - 1.111) < 1e-10
    assert values(multi["int_tensor"]) == [10, 20, 30, 40]


def test_it_fails_on_the_broken_file_with_a_pickle_error():
    """test_small_invalid_file: the error mentions "Pickle" or "Invalid"."""
    with pytest.raises(PytorchError) as raised:
        load_pytorch_file(READER_DATA / "broken.pt")
    assert "Pickle" in str(raised.value) or "Invalid" in str(raised.value)


# -- the integration tests (pytorch-tests/tests/*/mod.rs): burn models loaded by a store -------


def pt(test: str, file: str | None = None):
    return PYTORCH_TESTS / test / (file or f"{test}.pt")


def conv1d(c_in, c_out, kernel, *, bias=True):
    return conv("Conv1d", (c_out, c_in, kernel), c_out, bias=bias)


def conv_transpose(name, channels, kernel, *, bias=True):
    c_in, c_out = channels
    return conv(name, (c_in, c_out, *kernel), c_out, bias=bias)


def conv_block(c_in, c_out):
    return struct("ConvBlock", conv=conv2d((c_in, c_out), (3, 2)), norm=batch_norm(c_out))


def chained_block():
    return struct("ConvBlock", conv=conv2d((6, 6), (1, 1), bias=False), bn=batch_norm(6))


CHAINED = struct(
    "Model",
    conv=conv2d((3, 6), (3, 3), bias=False),
    bn=batch_norm(6),
    layer=struct("ModuleBlock", blocks=Vec((chained_block(), chained_block()))),
)
ENUM_CONV = (
    ("DwsConv", struct("DwsConv", dconv=conv2d((2, 2), (3, 3), groups=2),
                       pconv=conv2d((2, 2), (1, 1)))),
    ("Conv", conv2d((2, 2), (3, 3))),
)  # fmt: skip

# (burn's test, file, the Net it loads into, the store's options)
LOADS = [
    ("batch_norm2d", pt("batch_norm", "batch_norm2d.pt"), struct("Net", norm1=batch_norm(5)), {}),
    ("boolean", pt("boolean"), struct("Net", buffer=Param((3,), "bool")), {}),
    ("buffer", pt("buffer"), struct("Net", buffer=Param((3, 3))), {}),
    (
        "complex_nested full_record",
        pt("complex_nested"),
        struct(
            "Net",
            conv_blocks=Vec((conv_block(2, 4), conv_block(4, 6))),
            norm1=batch_norm(6),
            fc1=linear(120, 12),
            fc2=linear(12, 10),
        ),
        {},
    ),
    (
        "complex_nested partial_model_loading",
        pt("complex_nested"),
        struct("PartialNet", conv1=conv_block(2, 4)),
        {"remappings": [(r"conv_blocks\.0\.(.*)", "conv1.$1")], "allow_partial": True},
    ),
    (
        "conv1d",
        pt("conv1d"),
        struct("Net", conv1=conv1d(2, 2, 2), conv2=conv1d(2, 2, 2, bias=False)),
        {},
    ),
    (
        "conv2d",
        pt("conv2d"),
        struct("Net", conv1=conv2d((2, 2), (2, 2)), conv2=conv2d((2, 2), (2, 2), bias=False)),
        {},
    ),
    (
        "conv_transpose1d",
        pt("conv_transpose1d"),
        struct(
            "Net",
            conv1=conv_transpose("ConvTranspose1d", (2, 2), (2,)),
            conv2=conv_transpose("ConvTranspose1d", (2, 2), (2,), bias=False),
        ),
        {},
    ),
    (
        "conv_transpose2d",
        pt("conv_transpose2d"),
        struct(
            "Net",
            conv1=conv_transpose("ConvTranspose2d", (2, 2), (2, 2)),
            conv2=conv_transpose("ConvTranspose2d", (2, 2), (2, 2), bias=False),
        ),
        {},
    ),
    ("embedding", pt("embedding"), struct("Net", embed=embedding(10, 3)), {}),
    (
        "enum_module depthwise_false",
        pt("enum_module", "enum_depthwise_false.pt"),
        struct("Net", conv=Enum("Conv", ENUM_CONV, "Conv")),
        {},
    ),
    (
        "enum_module depthwise_true",
        pt("enum_module", "enum_depthwise_true.pt"),
        struct("Net", conv=Enum("Conv", ENUM_CONV, "DwsConv")),
        {},
    ),
    ("group_norm", pt("group_norm"), struct("Net", norm1=group_norm(6)), {}),
    ("integer", pt("integer"), struct("Net", buffer=Param((3,), "int")), {}),
    (
        "key_remap",
        pt("key_remap"),
        struct("Net", conv1=conv2d((2, 2), (2, 2)), conv2=conv2d((2, 2), (2, 2), bias=False)),
        {"remappings": [(r"conv\.(.*)", "$1")]},
    ),
    (
        "key_remap_chained",
        pt("key_remap_chained", "key_remap.pt"),
        CHAINED,
        {
            "remappings": [
                (r"(.+)\.block\.0\.(.+)", "$1.conv.$2"),
                (r"(.+)\.block\.1\.(.+)", "$1.bn.$2"),
                (r"layer\.([0-9])\.(.+)", "layer.blocks.$1.$2"),
            ]
        },
    ),
    ("layer_norm", pt("layer_norm"), struct("Net", norm1=layer_norm(2)), {}),
    ("linear", pt("linear"), struct("Net", fc1=linear(2, 3), fc2=linear(3, 4, bias=False)), {}),
    ("linear_with_bias", pt("linear", "linear_with_bias.pt"), struct("Net", fc1=linear(2, 3)), {}),
    (
        "non_contiguous_indexes",
        pt("non_contiguous_indexes"),
        struct("Net", fc=Vec(tuple(conv2d((2, 2), (3, 3)) for _ in range(5)))),
        {},
    ),
    (
        "top_level_key should_load",
        pt("top_level_key"),
        struct("Net", conv1=conv2d((2, 2), (2, 2))),
        {"top_level_key": "my_state_dict"},
    ),
]


@pytest.mark.parametrize(("test", "file", "net", "options"), LOADS, ids=[t[0] for t in LOADS])
def test_it_loads_each_file_burns_integration_tests_load(test, file, net, options):
    loaded: dict = {}
    result = PytorchStore(file, **options).apply_to(net, loaded)
    assert not result.errors
    if not options.get("allow_partial"):
        assert not result.missing and result.applied
    assert set(result.applied) == set(loaded)


def test_it_loads_the_values_burns_tests_compute_with():
    """boolean, buffer, integer: the forward pass returns the parameter (plus ones)."""
    loaded: dict = {}
    PytorchStore(pt("boolean")).apply_to(struct("Net", buffer=Param((3,), "bool")), loaded)
    assert loaded["buffer"].tolist() == [True, False, True]
    PytorchStore(pt("buffer")).apply_to(struct("Net", buffer=Param((3, 3))), loaded)
    assert (loaded["buffer"] + 1).tolist() == [[2.0] * 3] * 3
    PytorchStore(pt("integer")).apply_to(struct("Net", buffer=Param((3,), "int")), loaded)
    assert loaded["buffer"].dtype == torch.int64 and loaded["buffer"].tolist() == [1, 2, 3]


# (burn's test, file, the Net, the store's options, what the panic message holds)
FAILS = [
    (
        "missing_module_field should_fail_if_struct_field_is_missing",
        pt("missing_module_field"),
        struct("Net", do_not_exist_in_pt=conv2d((2, 2), (2, 2))),
        {},
        "do_not_exist_in_pt",
    ),
    (
        "top_level_key should_fail_if_not_found",
        pt("top_level_key"),
        struct("Net", conv1=conv2d((2, 2), (2, 2))),
        {},
        "",
    ),
    (
        "key_remap_chained_missing_pattern",
        pt("key_remap_chained", "key_remap.pt"),
        CHAINED,
        {
            "remappings": [
                (r"(.+)\.block\.0\.(.+)", "$1.conv.$2"),
                (r"(.+)\.block\.1\.(.+)", "$1.bn.$2"),
            ]
        },
        "",
    ),
    (
        "test_invalid_top_level_key",
        pt("linear"),
        struct("SimpleLinearModel", fc1=linear(2, 3), fc2=linear(3, 4, bias=False)),
        {"top_level_key": "nonexistent_key"},
        "",
    ),
]


@pytest.mark.parametrize(
    ("test", "file", "net", "options", "holds"), FAILS, ids=[t[0] for t in FAILS]
)
def test_it_fails_where_burns_tests_expect_a_panic(test, file, net, options, holds):
    """`#[should_panic]` tests: `load_from(..).expect(..)` panics; its message is
    `<expect's text>: <the error's Debug>`."""
    with pytest.raises(StoreError) as raised:
        PytorchStore(file, **options).apply_to(net)
    assert holds in raised.value.debug()


def test_it_fails_with_a_reader_error_for_a_missing_file():
    """store/mod.rs test_missing_file: `Err(PytorchStoreError::Reader(_))`."""
    with pytest.raises(StoreError) as raised:
        PytorchStore("nonexistent.pth").apply_to(struct("Model", fc=linear(2, 3)))
    assert raised.value.variant == "Reader"
    assert raised.value.debug().startswith("Reader(Io(Os { code: 2, kind: NotFound")


def test_it_reports_paths_with_enum_variants_when_not_skipping_them():
    """store/mod.rs test_enum_variant_path_mismatch: with skip_enum_variants(false),
    allow_partial(true), validate(false), the result lists missing paths with 'BaseConv'
    under an Enum container, and its Display mentions enum variants."""
    model = struct(
        "ModelWithEnum",
        feature=Enum("ConvBlock", (("BaseConv", linear(3, 64)), ("DwsConv", linear(3, 64))),
                     "BaseConv"),
        classifier=linear(64, 10),
    )  # fmt: skip
    store = PytorchStore(
        STORE_DATA / "model_without_enum_variants.pt",
        skip_enum_variants=False,
        allow_partial=True,
        validate=False,
    )
    result = store.apply_to(model)
    assert any("Enum:" in stack for _, stack in result.missing)
    assert any("BaseConv" in path for path, _ in result.missing)
    assert "enum variant" in str(result)
    assert "Did you mean: 'feature.weight'?" in str(result)  # the variant stripped, unused


def test_it_loads_the_safetensors_file_with_the_pytorch_adapter():
    """safetensors-tests multi_layer: SafetensorsStore::from_file(..)
    .with_from_adapter(PyTorchToBurnAdapter), then load_from(..).expect(..)."""
    net = struct(
        "Net",
        conv1=conv2d((3, 4), (3, 3)),
        norm1=batch_norm(4),
        fc1=linear(4 * 8 * 8, 16),
    )
    file = SAFETENSORS_TESTS / "multi_layer/multi_layer.safetensors"
    result = SafetensorsStore(file, from_pytorch=True).apply_to(net)
    assert not result.missing and not result.errors and len(result.applied) == 8


# -- forward passes of burn's tests, run in PyTorch on the weights the mirror loaded ------------


def rust_tensor_literals(test_file: str, function: str) -> list[list]:
    """The array literals of ``Tensor::<N>::from_data([...], &device)`` in a burn test
    function, in order (Rust's `1_000.5` digit separators read as Python's)."""
    lines = source_lines(MAIN, f"crates/burn-store/pytorch-tests/tests/{test_file}/mod.rs")
    text = "\n".join(lines)
    body = text[text.index(f"fn {function}(") :]
    body = body[: body.index("\n    }\n")]
    literals = re.findall(r"from_data\(\s*(\[.*?\]),\s*&device", body, re.S)
    return [ast.literal_eval(literal) for literal in literals]


def linear_forward(x, loaded, prefix):
    out = x @ loaded[f"{prefix}.weight"]  # burn's Linear: x · W, W of [d_input, d_output]
    return out + loaded[f"{prefix}.bias"] if f"{prefix}.bias" in loaded else out


def conv2d_forward(x, loaded, prefix, groups=1):
    return F.conv2d(x, loaded[f"{prefix}.weight"], loaded.get(f"{prefix}.bias"), groups=groups)


def load(file, net, **options) -> dict:
    loaded: dict = {}
    PytorchStore(file, **options).apply_to(net, loaded)
    return loaded


def test_it_computes_burns_expected_linear_outputs():
    """linear_full_precision, linear_with_bias: fc2(relu(fc1(x))) and fc1(x)."""
    x, expected = map(torch.tensor, rust_tensor_literals("linear", "linear_test"))
    w = load(pt("linear"), struct("Net", fc1=linear(2, 3), fc2=linear(3, 4, bias=False)))
    out = linear_forward(torch.relu(linear_forward(x, w, "fc1")), w, "fc2")
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)
    x, expected = map(torch.tensor, rust_tensor_literals("linear", "linear_with_bias"))
    w = load(pt("linear", "linear_with_bias.pt"), struct("Net", fc1=linear(2, 3)))
    torch.testing.assert_close(linear_forward(x, w, "fc1"), expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize(("test", "function", "options"), [
    ("conv2d", "conv2d", {}),
    ("key_remap", "key_remap", {"remappings": [(r"conv\.(.*)", "$1")]}),
])  # fmt: skip
def test_it_computes_burns_expected_conv2d_outputs(test, function, options):
    x, expected = map(torch.tensor, rust_tensor_literals(test, function))
    net = struct("Net", conv1=conv2d((2, 2), (2, 2)), conv2=conv2d((2, 2), (2, 2), bias=False))
    w = load(pt(test), net, **options)
    out = conv2d_forward(conv2d_forward(x, w, "conv1"), w, "conv2")
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize(("function", "file", "variant"), [
    ("depthwise_false", "enum_depthwise_false.pt", "Conv"),
    ("depthwise_true", "enum_depthwise_true.pt", "DwsConv"),
])  # fmt: skip
def test_it_computes_burns_expected_outputs_through_an_enum_module(function, file, variant):
    x, expected = map(torch.tensor, rust_tensor_literals("enum_module", function))
    w = load(pt("enum_module", file), struct("Net", conv=Enum("Conv", ENUM_CONV, variant)))
    if variant == "Conv":
        out = conv2d_forward(x, w, "conv")
    else:
        out = conv2d_forward(conv2d_forward(x, w, "conv.dconv", groups=2), w, "conv.pconv")
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)


def test_it_reads_the_two_files_no_burn_test_reads():
    """debug_test.pt and test_int.pt sit beside the integration tests, read by none."""
    assert load_pytorch_file(PYTORCH_TESTS / "test_int.pt").tensors["test"].dtype == "I64"
    assert load_pytorch_file(PYTORCH_TESTS / "debug_test.pt").keys() == ["test"]
