"""The embedded broker: kombu's filesystem transport, each message written whole before a worker
can see it.

kombu's filesystem channel creates a message's file under the name workers look for and then
writes into it, so a worker polling the folder can take the file while it is still empty: the
message is lost and the worker stops on the JSON error (celery/kombu#1551; a producer and a
consumer in two threads lost 129 of 3,000 messages so). This channel writes the message to a
hidden file of the same folder, which no worker takes (they take the names that end in
`.<queue>.msg`), and renames it into place: a rename within a folder is atomic, so a worker reads
a message whole or not at all. Everything else is kombu's (`CELERY_BROKER_TRANSPORT` names this
transport when the broker URL is `filesystem://`)."""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put `payload` onto `queue` (the virtual channel's hook): written under a hidden name,
        then renamed to the one kombu's channel gives a message (its time in milliseconds first,
        so that messages are taken in order)."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        partial = os.path.join(self.data_folder_out, f".{name}.partial")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add a message to {self.data_folder_out!r}.") from exc


class Transport(filesystem.Transport):
    Channel = Channel
