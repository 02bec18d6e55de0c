"""burn's ``FileCheckpointer``: one record file per epoch, ``{dir}/{name}-{epoch}.bpk``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trainer.errors import CheckpointerError, RecordError
from trainer.record import EXTENSION, read_record, write_record


class FileCheckpointer:
    """Saves, restores and deletes one component's records in a directory."""

    def __init__(self, directory: Path | str, name: str):
        self.directory = Path(directory)
        self.name = name
        # burn: `std::fs::create_dir_all(&directory).ok();` -- errors are ignored
        # here and surface later, as the save's "cannot create '<path>'".
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass

    def path_for(self, epoch: int) -> Path:
        return self.directory / f"{self.name}-{epoch}.{EXTENSION}"

    def save(self, epoch: int, record: Any) -> None:
        try:
            write_record(self.path_for(epoch), record)
        except RecordError as err:
            raise CheckpointerError.record(err) from err

    def restore(self, epoch: int) -> Any:
        try:
            return read_record(self.path_for(epoch))
        except RecordError as err:
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
