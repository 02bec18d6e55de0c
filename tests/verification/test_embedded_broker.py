"""The embedded broker (files in a folder) hands a worker only whole messages."""

import threading

from django.conf import settings
from kombu import Connection

from errorkb.broker import Transport

MESSAGES = 200
PAYLOAD = "x" * 200_000  # long enough that a write is caught half done, were it visible


def test_the_default_broker_writes_through_errorkbs_transport():
    assert settings.CELERY_BROKER_URL == "filesystem://"
    assert settings.CELERY_BROKER_TRANSPORT == "errorkb.broker:Transport"


def test_a_consumer_never_takes_a_message_still_being_written(tmp_path):
    # kombu's own channel creates the file under its queue's name before writing it: a
    # consumer listing the folder in between read an empty message and died on it.
    options = {
        "data_folder_in": str(tmp_path / "messages"),
        "data_folder_out": str(tmp_path / "messages"),
        "control_folder": str(tmp_path / "control"),
        "polling_interval": 0,
    }
    for folder in ("messages", "control"):
        (tmp_path / folder).mkdir()
    with Connection(transport=Transport, transport_options=options) as producer_side:
        with Connection(transport=Transport, transport_options=options) as consumer_side:
            outbox = producer_side.SimpleQueue("cpu")
            inbox = consumer_side.SimpleQueue("cpu")

            def produce():
                for number in range(MESSAGES):
                    outbox.put({"number": number, "payload": PAYLOAD})

            producer = threading.Thread(target=produce)
            producer.start()
            received = []
            for _ in range(MESSAGES):
                message = inbox.get(timeout=30)
                received.append(message.payload)
                message.ack()
            producer.join()

    assert sorted(m["number"] for m in received) == list(range(MESSAGES))
    assert all(m["payload"] == PAYLOAD for m in received)
    assert not list((tmp_path / "messages").iterdir())  # nothing half written is left
