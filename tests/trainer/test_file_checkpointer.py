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


def test_it_reports_an_undeletable_file_as_an_io_error(tmp_path):
    checkpointer = FileCheckpointer(tmp_path, "model")
    checkpointer.path_for(2).mkdir()  # unlink on a directory: EISDIR on Linux
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.delete(2)
    assert caught.value.debug() == (
        'IOError(Os { code: 21, kind: IsADirectory, message: "Is a directory" })'
    )
    assert str(caught.value) == "I/O Error: `Is a directory (os error 21)`"


def test_it_names_0_19_files_by_the_recorders_extension(tmp_path):
    checkpointer = FileCheckpointer(tmp_path / "checkpoint", "model", release="v0.19.1")
    checkpointer.save(1, {"x": 1})
    assert checkpointer.restore(1) == {"x": 1}
    assert (tmp_path / "checkpoint" / "model-1.mpk").is_file()


def test_it_recreates_parent_directories_and_maps_open_errors_in_0_19(tmp_path):
    checkpointer = FileCheckpointer(tmp_path / "checkpoint", "model", release="v0.19.1")
    (tmp_path / "checkpoint").rmdir()
    checkpointer.save(1, {"x": 1})  # the v0.19.1 recorder makes the parent again
    with pytest.raises(CheckpointerError) as caught:
        checkpointer.restore(2)
    assert caught.value.debug() == (
        'RecorderError(FileNotFound("No such file or directory (os error 2)"))'
    )
