"""The embedded broker: kombu's filesystem transport, each message written whole before a worker
can see it.

kombu's filesystem channel creates a message's file under the name workers look for and then
writes into it, so a worker polling the folder can take the file while it is still empty: the
message is lost and the worker stops on the JSON error (celery/kombu#1551; a producer and a
consumer in two threads lost 129 of 3,000 messages so). This channel writes the message to a
hidden file of the same folder, which no worker takes (they take the names that end in
`.<queue>.msg`), and renames it into place: a rename within a folder is atomic, so a worker reads
a message whole or not at all.

A fanout exchange (Celery's remote control and events) keeps its table of bound queues in a file of
the control folder. kombu's channel creates that file empty and then locks and writes it, so two
processes binding at once (the web, a worker and beat starting together) can each create it, or
read it empty, and leave a table that misses a queue or no longer parses (6 processes binding at
once on a new folder: 10 of 40 tables broken so). This channel creates the file whole, written
aside and linked into place (a link fails when the name exists, so one creator wins); kombu's own
locked update then adds to the table it finds. Everything else is kombu's
(`CELERY_BROKER_TRANSPORT` names this transport when the broker URL is `filesystem://`)."""

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

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        """Bind `queue` to a fanout exchange (the virtual channel's hook): the exchange's first
        binding creates its table whole; later ones are kombu's locked update of that table."""
        table = self._exchange_file(exchange)
        if not table.exists():
            self.control_folder.mkdir(exist_ok=True)
            binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
            aside = table.with_name(f".{table.name}.{uuid.uuid4().hex}.partial")
            try:
                aside.write_bytes(str_to_bytes(dumps([binding])))
                os.link(aside, table)
                return
            except FileExistsError:
                pass  # another process created it first: add to its table below
            except OSError as exc:
                raise ChannelError(f"Cannot open {table}") from exc
            finally:
                aside.unlink(missing_ok=True)
        super()._queue_bind(exchange, routing_key, pattern, queue)


class Transport(filesystem.Transport):
    Channel = Channel
