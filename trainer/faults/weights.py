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

        config = TrainConfig(seed=1)
        if hidden_dim is not None:
            config = config.with_overrides(hidden_dim=hidden_dim)
        return build_model(config).state_dict()

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
