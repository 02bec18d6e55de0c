"""The weights file a run initialises its model from is not what it should be."""

from __future__ import annotations

from trainer.faults.base import Fault


class _InitFileFault(Fault):
    """Produces the weights file a run initialises its model from."""

    errno = None

    @staticmethod
    def _state(hidden_dim: int | None = None) -> dict:
        # Imported here: the faults stay free of torch for the runner.
        from trainer.config import TrainConfig
        from trainer.model import build_model
        from trainer.record import module_record

        config = TrainConfig(seed=1)
        if hidden_dim is not None:
            config = config.with_overrides(hidden_dim=hidden_dim)
        return module_record(build_model(config))  # laid out as burn's modules hold it

    def remedy(self, ws, epoch):
        from trainer.record import write_record

        write_record(ws.init_file, self._state())  # weights in the record format


class ForeignFile(_InitFileFault):
    """The weights file is a ``torch.save`` zip archive, not a record."""

    kind = "foreign-file"
    description = "the weights file is written by torch.save (a zip archive)"

    def strike(self, ws, epoch):
        import torch

        torch.save(self._state(), ws.init_file)


class ShortFile(_InitFileFault):
    """The weights file stops inside the header (a failed download)."""

    kind = "short-file"
    description = "the weights file holds only the first 6 bytes of a record"

    def strike(self, ws, epoch):
        from trainer.record import encode

        ws.init_file.write_bytes(encode(self._state())[:6])


class OtherArchitecture(_InitFileFault):
    """The weights file is a valid record of a wider model."""

    kind = "other-architecture"
    description = "the weights file is a record of the MLP with hidden_dim 64"

    def strike(self, ws, epoch):
        from trainer.record import write_record

        write_record(ws.init_file, self._state(hidden_dim=64))


class NewerVersion(_InitFileFault):
    """The weights file is a record whose header names a newer format version."""

    kind = "newer-version"
    description = "the weights file is a record whose header carries format version VERSION + 1"

    def strike(self, ws, epoch):
        from trainer.record import HEADER, MAGIC, VERSION, encode

        data = encode(self._state())
        _, _, metadata_size = HEADER.unpack_from(data)
        newer = HEADER.pack(MAGIC, VERSION + 1, metadata_size)
        ws.init_file.write_bytes(newer + data[HEADER.size :])


class BadMetadata(_InitFileFault):
    """A valid header followed by metadata bytes that do not decode."""

    kind = "bad-metadata"
    description = "the weights file has a valid header, then metadata that does not decode"

    def strike(self, ws, epoch):
        from trainer.record import HEADER, MAGIC, VERSION

        garbage = b"not metadata"
        ws.init_file.write_bytes(HEADER.pack(MAGIC, VERSION, len(garbage)) + garbage)


# -- weights imported from PyTorch files (trainer.weights) --------------------------------


class _ImportFault(Fault):
    """Writes the PyTorch file a user imports into burn, with the real ``torch.save``.

    ``strike`` writes the faulty file; ``remedy`` the documented fix when it is a file (a
    ``state_dict``); ``loader_options(fixed)`` the user's loader settings, with the fix
    when it is one (a key remapping, a top-level key); ``burn_module(config)`` the burn
    model the user loads into.
    """

    errno = None
    file_name = "weights.pt"

    @staticmethod
    def _model(hidden_dim: int | None = None):
        from trainer.config import TrainConfig
        from trainer.model import build_model

        config = TrainConfig(seed=1)
        if hidden_dim is not None:
            config = config.with_overrides(hidden_dim=hidden_dim)
        return build_model(config)

    def path_in(self, root):
        return root / self.file_name

    def path(self, ws):
        return self.path_in(ws.root)

    def remedy(self, ws, epoch):
        from trainer.weights.files import save_state_dict

        save_state_dict(self._model(), self.path(ws))

    def loader_options(self, *, fixed: bool) -> dict:
        return {}

    def burn_module(self, config):
        from trainer.weights.module import mlp

        return mlp(config.input_dim, config.hidden_dim, config.num_classes)

    def torch_name(self, burn_path: str) -> str:
        """The trainer's parameter a burn path loads into."""
        return burn_path


class WholeModule(_ImportFault):
    kind = "whole-module"
    description = "the PyTorch file holds the whole module: torch.save(model)"

    def strike(self, ws, epoch):
        from trainer.weights.files import save_module

        save_module(self._model(), self.path(ws))


class TruncatedDownload(_ImportFault):
    kind = "truncated-download"
    description = "the PyTorch file (a state_dict) stops halfway, as a download that failed"

    def strike(self, ws, epoch):
        from trainer.weights.files import save_state_dict

        save_state_dict(self._model(), self.path(ws))
        data = self.path(ws).read_bytes()
        self.path(ws).write_bytes(data[: len(data) // 2])


class TensorList(_ImportFault):
    kind = "tensor-list"
    description = "the PyTorch file holds a list of the tensors, not a dict of named ones"

    def strike(self, ws, epoch):
        import torch

        torch.save(list(self._model().state_dict().values()), self.path(ws))


class PrefixedKeys(_ImportFault):
    kind = "prefixed-keys"
    description = "every key of the state_dict is under 'model.' (a wrapper module's name)"
    remap = [(r"^model\.(.*)", "$1")]

    def strike(self, ws, epoch):
        from trainer.weights.files import save_renamed

        save_renamed(self._model(), self.path(ws), "model.")

    def remedy(self, ws, epoch):
        pass  # the same file, read with the remapping

    def loader_options(self, *, fixed: bool) -> dict:
        return {"remap": self.remap} if fixed else {}


class NestedCheckpoint(_ImportFault):
    kind = "nested-checkpoint"
    description = "the state_dict is under 'model_state_dict' in a training checkpoint"

    def strike(self, ws, epoch):
        from trainer.weights.files import save_checkpoint

        save_checkpoint(self._model(), self.path(ws), "model_state_dict")

    def remedy(self, ws, epoch):
        pass  # the same file, read from its key

    def loader_options(self, *, fixed: bool) -> dict:
        return {"top_level_key": "model_state_dict"} if fixed else {}


class WiderModel(_ImportFault):
    kind = "wider-model"
    description = "the state_dict is of the MLP with hidden_dim 64; burn's model has 32"

    def strike(self, ws, epoch):
        from trainer.weights.files import save_state_dict

        save_state_dict(self._model(hidden_dim=64), self.path(ws))

    def remedy(self, ws, epoch):
        pass  # the same file, into the model it was saved from (the fixed run's config)


class RenamedLayer(_ImportFault):
    kind = "renamed-layer"
    description = "the PyTorch model calls its last layer 'head'; burn's model, 'output'"
    remap = [(r"^head\.(.*)", "output.$1")]

    def strike(self, ws, epoch):
        import torch

        state = {
            key.replace("output.", "head.", 1): value
            for key, value in self._model().state_dict().items()
        }
        torch.save(state, self.path(ws))

    def remedy(self, ws, epoch):
        pass

    def loader_options(self, *, fixed: bool) -> dict:
        return {"remap": self.remap} if fixed else {}


class EnumBlock(_ImportFault):
    """burn's model holds its hidden layer in an enum of blocks (each a struct around a
    ``Linear``); PyTorch's is a plain ``nn.Linear``, whose keys no variant has."""

    kind = "enum-block"
    description = "burn's hidden layer is an enum of blocks; the file's is a plain Linear"
    remap = [(r"^hidden\.(weight|bias)$", "hidden.linear.$1")]

    def strike(self, ws, epoch):
        from trainer.weights.files import save_state_dict

        save_state_dict(self._model(), self.path(ws))

    def remedy(self, ws, epoch):
        pass

    def loader_options(self, *, fixed: bool) -> dict:
        return {"remap": self.remap} if fixed else {}

    def burn_module(self, config):
        from trainer.weights.module import Enum, linear, struct

        d_in, d_hidden = config.input_dim, config.hidden_dim
        plain = struct("PlainBlock", linear=linear(d_in, d_hidden))
        gated = struct("GatedBlock", linear=linear(d_in, d_hidden), gate=linear(d_in, d_hidden))
        hidden = Enum("Block", (("Plain", plain), ("Gated", gated)), "Plain")
        return struct("Model", hidden=hidden, output=linear(d_hidden, config.num_classes))

    def torch_name(self, burn_path: str) -> str:
        return burn_path.replace("hidden.linear.", "hidden.", 1)


class LegacyPickle(_ImportFault):
    kind = "legacy-pickle"
    description = "the state_dict is saved in PyTorch's legacy format (not a zip archive)"

    def strike(self, ws, epoch):
        from trainer.weights.files import save_legacy_state_dict

        save_legacy_state_dict(self._model(), self.path(ws))


class RecordFileGone(_ImportFault):
    """The ONNX model's weights, written next to its generated code in the build's
    ``OUT_DIR``, are gone when the program runs (another machine, a cleaned target)."""

    kind = "record-file-gone"
    description = "the generated model's record file under OUT_DIR is gone at run time"
    file_name = "target/debug/build/app/out/model/mlp.mpk"

    def strike(self, ws, epoch):
        self.path(ws).parent.mkdir(parents=True, exist_ok=True)
        self.path(ws).unlink(missing_ok=True)

    def remedy(self, ws, epoch):
        from trainer.record import module_record
        from trainer.recorder import write_recorded

        # burn-import writes the generated model's record: burn's layout.
        write_recorded(self.path(ws), module_record(self._model()))


class PytorchFileAsSafetensors(_ImportFault):
    """A PyTorch file handed to the safetensors recorder (a ``pytorch_model.bin`` downloaded
    beside the ``model.safetensors`` the program expects)."""

    kind = "pytorch-file-as-safetensors"
    description = "the file read as safetensors is a PyTorch state_dict (torch.save)"
    file_name = "weights.safetensors"

    def strike(self, ws, epoch):
        from trainer.weights.files import save_state_dict

        save_state_dict(self._model(), self.path(ws))

    def remedy(self, ws, epoch):
        from trainer.weights.files import save_safetensors

        save_safetensors(self._model(), self.path(ws))


class BurnpackFileGone(RecordFileGone):
    """As ``RecordFileGone``, for a model generated with a burnpack weights file (0.20)."""

    kind = "burnpack-file-gone"
    description = "the generated model's burnpack file under OUT_DIR is gone at run time"
    file_name = "target/debug/build/app/out/model/mlp.bpk"

    def remedy(self, ws, epoch):
        from trainer.record import module_record, write_record

        write_record(self.path(ws), module_record(self._model()))
