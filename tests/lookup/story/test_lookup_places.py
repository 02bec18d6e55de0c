"""Whose code a panic's location is, for each shape of path Rust prints: burn's (from the
registry, a git dependency, a local checkout, burn's older layouts, Windows), another
crate's, the reader's own, Rust's standard library."""

import pytest

from errorkb.lookup.story.locations import Location, find_locations
from errorkb.lookup.story.places import DEPENDENCY, RUST, UPSTREAM, USER, place_of
from errorkb.lookup.story.upstream_lines import UpstreamFile, UpstreamFiles

BURN = "tracel-ai/burn"
REGISTRY = "/home/ana/.cargo/registry/src/index.crates.io-6f17d22bba15001f"
GIT = "/home/ana/.cargo/git/checkouts/burn-178c6829f420dae1/a1b2c3d"
CUBECL_GIT = "/home/ana/.cargo/git/checkouts/cubecl-aa2c5bc1fbf4de15/4c42d0b"
WINDOWS = r"C:\Users\ana\.cargo\registry\src\index.crates.io-6f17d22bba15001f"


def files() -> UpstreamFiles:
    """burn's files as the release scans give them: crates under crates/, and at the top
    of older trees."""
    paths = [
        "crates/burn-train/src/learner/base.rs",
        "crates/burn-cubecl/src/kernel/binary.rs",
        "crates/burn-cubecl-fusion/src/shared/builder.rs",
        "crates/burn-import/model-checks/yolo/src/main.rs",
        "burn-train/src/checkpoint/async_checkpoint.rs",
        "burn-core/src/record/file.rs",
    ]
    return UpstreamFiles(
        [UpstreamFile(BURN, path, frozenset({"0.19.1"}), {}) for path in paths], {}
    )


def place(path: str):
    upstream = files()
    location = Location(path, 10, 5, 1, "rust-panic")
    known = upstream.file_at(location)
    return place_of(location, upstream.repo_of, known.repo if known else None)


@pytest.mark.parametrize(
    ("path", "crate", "version", "installed"),
    [
        (f"{REGISTRY}/burn-train-0.19.1/src/learner/base.rs", "burn-train", "0.19.1", "registry"),
        (f"{GIT}/crates/burn-train/src/learner/base.rs", "burn-train", None, "git"),
        (
            "/home/ana/src/burn/crates/burn-cubecl-fusion/src/shared/trace/base.rs",
            "burn-cubecl-fusion",
            None,
            "checkout",
        ),
        ("crates/burn-train/src/renderer/tui/progress.rs", "burn-train", None, "checkout"),
        ("/home/ana/burn/burn-train/src/checkpoint/file.rs", "burn-train", None, "checkout"),
        ("/home/ana/burn/burn/src/train/checkpoint/file.rs", "burn", None, "checkout"),
        ("burn/src/train/checkpoint/file.rs", "burn", None, "checkout"),
    ],
)
def test_it_tells_burns_code_in_every_layout(path, crate, version, installed):
    found = place(path)

    assert (found.whose, found.repo, found.crate, found.version, found.installed) == (
        UPSTREAM,
        BURN,
        crate,
        version,
        installed,
    )


def test_it_tells_burns_code_on_a_windows_path():
    (location,) = find_locations(
        f"thread 'main' panicked at {WINDOWS}\\burn-core-0.13.2\\src\\record\\file.rs:12:5:"
    )
    upstream = files()

    found = place_of(location, upstream.repo_of)

    assert (found.whose, found.crate, found.version) == (UPSTREAM, "burn-core", "0.13.2")
    assert found.describe() == "burn's code (burn-core 0.13.2, from crates.io)"


@pytest.mark.parametrize(
    ("path", "crate", "version"),
    [
        (f"{REGISTRY}/cubecl-runtime-0.8.1/src/client.rs", "cubecl-runtime", "0.8.1"),
        (f"{REGISTRY}/ndarray-0.16.1/src/dimension/mod.rs", "ndarray", "0.16.1"),
        (
            f"{CUBECL_GIT}/crates/cubecl-runtime/src/memory_management/mod.rs",
            "cubecl-runtime",
            None,
        ),
    ],
)
def test_it_tells_another_crates_code_by_name_and_version(path, crate, version):
    found = place(path)

    assert (found.whose, found.repo, found.crate, found.version) == (
        DEPENDENCY,
        None,
        crate,
        version,
    )
    assert found.describe().startswith(f"another crate's code ({crate}")


@pytest.mark.parametrize(
    "path",
    [
        "src/main.rs",
        "/home/ana/mnist/src/model.rs",
        "/home/ana/work/crates/my-trainer/src/main.rs",
        "examples/mnist/src/training.rs",
        "/home/ana/burn-demo/src/main.rs",
        "/home/ana/yolo/src/main.rs",  # a crate name burn keeps nested, not as its own crate
    ],
)
def test_it_tells_the_readers_own_code(path):
    assert place(path).whose == USER


@pytest.mark.parametrize(
    "path",
    [
        "library/core/src/panicking.rs",
        "/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/ops/function.rs",
        "/home/ana/.rustup/toolchains/stable-x86_64/lib/rustlib/src/rust/library/std/src/rt.rs",
    ],
)
def test_it_tells_rusts_standard_library(path):
    found = place(path)

    assert found.whose == RUST and found.describe() == "Rust's standard library"


def test_a_crate_the_scans_hold_no_file_of_is_not_called_burns():
    # burn-onnx-0.21.0 is tracel-ai/burn-onnx's, another repository; burn-cuda's files
    # hold no error site, so the scans cannot say it is burn's either.
    found = place(f"{REGISTRY}/burn-onnx-0.21.0/src/model_gen.rs")

    assert (found.whose, found.crate, found.version) == (DEPENDENCY, "burn-onnx", "0.21.0")


def test_a_path_cut_to_its_crate_is_that_crates_code_not_the_readers():
    found = place("cubecl-runtime/src/memory_management/memory_manage.rs")

    assert (found.whose, found.crate, found.installed) == (DEPENDENCY, "cubecl-runtime", "")
    assert found.describe() == "the crate cubecl-runtime's code (a dependency, or your workspace's)"
