"""burn's ``FileCheckpointer``: one record file per epoch, ``{dir}/{name}-{epoch}.<ext>``.

On main the file is a burnpack record (``.bpk``, checkpoint/file.rs:30-32); in
v0.19.1 a recorder writes it (``CompactRecorder``: ``.mpk``, checkpoint/file.rs:35-37).
v0.21.0's ``with_file_checkpointer(recorder)`` is still recorder-based (checkpoint/file.rs:46-70
at v0.21.0) and its recorder reads and writes as v0.19.1's (record/file.rs, recorder.rs: the
same code but for tests and a derive), its metadata naming burn-core 0.21.0.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trainer import burn
from trainer.errors import CheckpointerError, RecorderError, RecordError
from trainer.record import read_record, write_record
from trainer.recorder import read_recorded, write_recorded


class FileCheckpointer:
    """Saves, restores and deletes one component's records in a directory."""

    def __init__(self, directory: Path | str, name: str, *, release: str = "main"):
        self.directory = Path(directory)
        self.name = name
        self.release = burn.RELEASES[release]
        # burn: `std::fs::create_dir_all(&directory).ok();` -- errors are ignored
        # here and surface later, when a save opens its file.
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass

    @property
    def recorder(self) -> bool:
        return self.release.name != "main"

    def path_for(self, epoch: int) -> Path:
        return self.directory / f"{self.name}-{epoch}.{self.release.extension}"

    @property
    def recorder_version(self) -> str:
        """The burn-core release whose recorder writes the files (v0.19.1 -> 0.19.1)."""
        return self.release.name.removeprefix("v")

    def save(self, epoch: int, record: Any) -> None:
        path = self.path_for(epoch)
        try:
            if self.recorder:
                write_recorded(path, record, self.recorder_version)
            else:
                write_record(path, record)
        except (RecordError, RecorderError) as err:
            raise CheckpointerError.record(err) from err

    def restore(self, epoch: int, like: dict[str, Any] | None = None) -> Any:
        """Read checkpoint ``epoch``; ``like`` is the loading module's record (v0.19.1's
        recorder decodes the item into its type: see ``read_recorded``)."""
        path = self.path_for(epoch)
        try:
            if self.recorder:
                return read_recorded(path, like, self.recorder_version)
            return read_record(path)
        except (RecordError, RecorderError) as err:
            raise CheckpointerError.record(err) from err

    def delete(self, epoch: int) -> None:
        path = self.path_for(epoch)
        # burn removes the file only if it exists: a missing file is silently fine.
        if not path.exists():
            return
        try:
            os.remove(path)
        except OSError as err:
            raise CheckpointerError.io(err) from err
