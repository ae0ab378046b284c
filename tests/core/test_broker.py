"""The embedded broker (core.broker): a message is read whole or not at all, however a worker's
polling meets its writing. Stock kombu's filesystem transport loses some of these messages (a
worker takes a file before it is written; celery/kombu#1551). And processes that bind queues to a
new fanout exchange at once all find their queue in its table (stock kombu: 10 of 40 tables broken
with 6 processes)."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue

MESSAGES = 2000


def _options(tmp_path) -> dict:
    for folder in ("queue", "processed", "control"):
        (tmp_path / folder).mkdir()
    queue = str(tmp_path / "queue")
    return {
        "data_folder_in": queue,
        "data_folder_out": queue,
        "processed_folder": str(tmp_path / "processed"),
        "control_folder": str(tmp_path / "control"),
    }


def test_every_message_published_while_a_worker_polls_arrives_whole(tmp_path):
    options, received, broken = _options(tmp_path), [], []
    # One connection a thread; the queue declared (bound) before either starts.
    publisher, worker = (
        Connection(transport="core.broker:Transport", transport_options=options) for _ in "pw"
    )
    outbox, inbox = publisher.SimpleQueue("jobs"), worker.SimpleQueue("jobs")

    def publish():
        for n in range(MESSAGES):
            outbox.put({"n": n, "body": "x" * 10_000})

    def consume():
        deadline = time.monotonic() + 120
        while len(received) + len(broken) < MESSAGES and time.monotonic() < deadline:
            try:
                message = inbox.get(block=True, timeout=0.001)
            except inbox.Empty:
                continue
            except ValueError as error:  # a file read before it was written
                broken.append(error)
                continue
            received.append(message.payload["n"])
            message.ack()

    threads = [threading.Thread(target=consume), threading.Thread(target=publish)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    publisher.release()
    worker.release()

    assert broken == []
    assert sorted(received) == list(range(MESSAGES))  # once each (kombu orders by the millisecond)
    assert not any((tmp_path / "queue").iterdir())  # no partial file left behind


def _bind_at(options: dict, name: str, moment: float, failures) -> None:
    try:
        with Connection(transport="core.broker:Transport", transport_options=options) as connection:
            channel = connection.channel()
            exchange = Exchange("broadcast", type="fanout", channel=channel)
            while time.time() < moment:  # every process binds at the same moment
                pass
            Queue(name, exchange=exchange, channel=channel).declare()
    except Exception as error:  # reported to the test, which fails on it
        failures.put(f"{name}: {type(error).__name__}: {error}")


def test_processes_binding_to_a_new_fanout_exchange_at_once_all_find_their_queue(tmp_path):
    fork = multiprocessing.get_context("fork")
    for trial in range(15):  # stock kombu breaks about one table in four
        root = tmp_path / str(trial)
        root.mkdir()
        options, failures = _options(root), fork.Queue()
        moment, names = time.time() + 0.2, [f"worker-{n}" for n in range(6)]
        processes = [fork.Process(target=_bind_at, args=(options, name, moment, failures)) for name in names]
        for process in processes:
            process.start()
        for process in processes:
            process.join(30)
        with Connection(transport="core.broker:Transport", transport_options=options) as connection:
            table = connection.channel().get_table("broadcast")
        assert failures.empty()
        assert sorted(binding.queue for binding in table) == names
        assert [path.name for path in (root / "control").iterdir()] == ["broadcast.exchange"]


@pytest.mark.skipif(not settings.CELERY_BROKER_URL.startswith("filesystem://"), reason="the embedded default")
def test_the_embedded_default_uses_it():
    from config.celery import app

    with app.connection_for_write() as connection:
        assert connection.transport_cls == "core.broker:Transport"
        assert type(connection.transport).__module__ == "core.broker"
