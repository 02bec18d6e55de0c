"""Uploaded files, bounded as they arrive.

Django's own handlers keep the whole of a file before a view reads a byte of it: in
memory up to 2.5 MB, on disk past that, however large. Behind nginx its
client_max_body_size bounds a body; without it (runserver, gunicorn alone) a body of
any size would be written to the temporary folder. The only file errorkb takes is a
dataset upload, refused past MAX_UPLOAD_BYTES (kb.dataset.uploads): this handler keeps one byte
more than that, in memory, and drops the rest as it is read, so the view refuses the
file by its size, as it would a smaller one too large.
"""

from io import BytesIO

from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler

from errorkb.kb.dataset.uploads import MAX_UPLOAD_BYTES

KEPT_BYTES = MAX_UPLOAD_BYTES + 1  # one past the bound: enough to refuse the file


class BoundedUploadHandler(FileUploadHandler):
    """Each uploaded file's first KEPT_BYTES, in memory; the rest is read and dropped."""

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.file = BytesIO()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        room = KEPT_BYTES - self.file.tell()
        if room > 0:
            self.file.write(raw_data[:room])

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        self.file.seek(0)
        return InMemoryUploadedFile(
            file=self.file,
            field_name=self.field_name,
            name=self.file_name,
            content_type=self.content_type,
            size=file_size,  # as sent: a form that checks sizes sees the truth
            charset=self.charset,
            content_type_extra=self.content_type_extra,
        )
