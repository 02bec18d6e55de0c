"""The embedded broker: kombu's filesystem transport, with each message written atomically.

kombu's filesystem channel creates a message's file under its final name and only then
writes it; a worker that lists the folder in between takes the empty file and dies on
it (`JSONDecodeError`, an unrecoverable error that stops the worker). Here a message is
written under a name no queue reads and renamed into place, which POSIX makes atomic.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        final = os.path.join(self.data_folder_out, self._message_name(queue))
        # A queue reads only names ending in ".<queue>.msg": this one it never takes.
        partial = f"{final}.{uuid.uuid4().hex}.partial"
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    @staticmethod
    def _message_name(queue: str) -> str:
        # kombu's own naming: messages are taken in the order their names sort.
        return f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"


class Transport(filesystem.Transport):
    Channel = Channel
