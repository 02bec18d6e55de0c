"""File checkpointers: burn's file names, directory creation and delete semantics."""

import pytest

from trainer.checkpoint import FileCheckpointer
from trainer.errors import CheckpointerError


def test_it_names_files_by_checkpointer_and_epoch(tmp_path):
    checkpointer = FileCheckpointer(tmp_path / "checkpoint", "optim")
    checkpointer.save(3, {"x": 1})
    assert (tmp_path / "checkpoint" / "optim-3.bpk").is_file()
    assert checkpointer.restore(3) == {"x": 1}


def test_it_creates_the_directory_and_ignores_errors(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    checkpointer = FileCheckpointer(tmp_path / "file" / "checkpoint", "model")  # no raise
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.save(1, {"x": 1})
    assert "cannot create" in caught.value.debug()
    assert "Not a directory (os error 20)" in caught.value.debug()


def test_it_deletes_a_missing_file_silently(tmp_path):
    checkpointer = FileCheckpointer(tmp_path, "model")
    checkpointer.delete(7)
    checkpointer.save(7, {"x": 1})
    checkpointer.delete(7)
    assert not checkpointer.path_for(7).exists()


def test_it_reports_a_missing_epoch_on_restore(tmp_path):
    with pytest.raises(CheckpointerError) as caught:
        FileCheckpointer(tmp_path, "model").restore(1)
    assert caught.value.debug() == 'Record(Io("I/O error: No such file or directory (os error 2)"))'
