"""The burn sources the texts and set-ups cite: commits and paths in burn's repository."""

MAIN = "2c06be351006851d42fdb6df16b976f4a82d9747"  # main, 47 commits past v0.22.0-pre.2
V0_19_1 = "a6da424feacf6d82d6a0e81db197310796267c2b"  # tag v0.19.1
V0_21_0 = "546cacb55fe00168854d19bdf0a5d79bd8060e03"  # tag v0.21.0
V0_20_1 = "75b7881397df1f21e5c2bf51cd3aa6b9ae2bb6a4"  # tag v0.20.1 (burn-import's last)
V0_12_1 = "d6464176143df0738957473675ecca8f998751b0"  # tag v0.12.1 (pre-`crates/` layout)

# main on 2026-06-25, the last commit before tracel-ai/burn#5109: in no release
BEFORE_5109 = "2785abb3e5f8b8d2dfdf2d5537fbed70df71a244"

TRAIN = "crates/burn-train/src"

# main at 2c06be35 (and, where noted, v0.19.1)
LEARNER_RS = f"{TRAIN}/learner/base.rs"
ASYNC_RS = f"{TRAIN}/checkpoint/async_checkpoint.rs"
CHECKPOINT_RS = f"{TRAIN}/checkpoint/base.rs"
RL_RS = f"{TRAIN}/learner/rl/checkpointer.rs"
STORE_RS = "crates/burn-core/src/store/mod.rs"
MODULE_RS = "crates/burn-core/src/module/base.rs"
PACK_SRC = "crates/burn-pack/src"
APP_LOGGER_RS = f"{TRAIN}/learner/application_logger.rs"  # the same lines at v0.19.1
# v0.19.1
CHECKPOINT_RS_19 = f"{TRAIN}/checkpoint/base.rs"
RECORDER_RS_19 = "crates/burn-core/src/record/recorder.rs"
# v0.21.0: the Dispatch backend (crates/burn-dispatch, from v0.21.0-pre.2)
DISPATCH_SRC = "crates/burn-dispatch/src"
DISPATCH_MACROS_RS = f"{DISPATCH_SRC}/macros.rs"
DISPATCH_TENSOR_RS = f"{DISPATCH_SRC}/ops/tensor.rs"
DISPATCH_DEVICE_RS = f"{DISPATCH_SRC}/device.rs"
