"""The Redis transport of config/broker.py: a channel used after its connection closed fails as a lost connection.

kombu's own transport raises AttributeError("'NoneType' object has no attribute 'hostname'") there (the error
that ended a worker when Redis dropped while it ran a task); ours raises the transport's connection error, which
the consumer handles by reconnecting.
"""
from __future__ import annotations

import pytest
from kombu import Connection

from config.broker import Transport
from tests.integration.test_worker_scoring import BROKER_URL, require_services

pytestmark = [pytest.mark.integration]


def closed_channel(transport):
    conn = Connection(BROKER_URL, transport=transport)
    channel = conn.channel()
    channel.client.ping()
    # What the consumer's restart does on a connection error: the connection is closed (the transport loses
    # its client) and the channel's pools are dropped; the channel object lives on in the consumer's requests.
    conn._do_close_transport()
    channel._disconnect_pools()
    return conn, channel


@pytest.mark.django_db
def test_kombus_transport_fails_with_the_attribute_error_ours_with_a_connection_error():
    require_services()
    _, channel = closed_channel(None)  # kombu's Redis transport, from the URL
    with pytest.raises(AttributeError, match="hostname"), channel.conn_or_acquire():
        pass

    conn, channel = closed_channel(Transport)
    with pytest.raises(conn.connection_errors) as caught, channel.conn_or_acquire():
        pass
    assert "connection is closed" in str(caught.value)
    # acknowledging a message of that channel: the same connection error, which Celery logs and survives
    with pytest.raises(conn.connection_errors):
        channel.qos.ack("some-delivery-tag")
    assert channel.do_restore is False  # unacked messages come back by the visibility timeout, not at close
