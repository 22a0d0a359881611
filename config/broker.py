"""The Redis transport the workers use: kombu's, with one fault removed (a worker dying when Redis drops mid-task).

With kombu 5.7.0, a worker that lost Redis while it ran a task could exit with
``CRITICAL Unrecoverable error: AttributeError("'NoneType' object has no attribute
'hostname'")`` right after ``Restoring 1 unacknowledged message(s)``. The chain: on a
connection error the consumer closes its connection, which sets the transport's
``client`` to ``None`` (``kombu.Connection._do_close_transport``) and drops each
channel's connection pool (``Channel._disconnect_pools``); a channel of that
connection still used afterwards (closed during the consumer's restart, which restores
the messages delivered but not acknowledged, or acknowledging a task that finished
meanwhile) must build a new pool, and ``Channel._connparams`` reads
``self.connection.client.hostname``. The AttributeError is not one of the transport's
connection errors, so nothing on the way catches it and the worker's blueprint stops.
The same family is reported upstream (kombu #582, #970: ``'NoneType' object has no
attribute 'hostname'`` when a channel is closed after its connection); no release has
changed the path.

This transport changes these things, and nothing else:

* a channel whose connection is closed raises the transport's own connection error
  (``redis.exceptions.ConnectionError``) where kombu would raise the AttributeError, so the
  consumer's usual handling applies (a lost acknowledgement is logged; the message comes
  back after the visibility timeout, and its second delivery is a no-op);
* a closing consumer does not restore its unacknowledged messages itself (``do_restore``):
  they stay in Redis's unacked set and Redis's visibility timeout hands them back, as
  for a worker that was killed. The runs themselves are re-queued from the database by
  the recovery sweep anyway (:mod:`evaluation.pipeline.recovery`);
* an acknowledgement lost with the connection is logged as the handled case it is, one
  WARNING line, where kombu writes ``CRITICAL Couldn't ack`` with a traceback on every
  reconnect (it would page anyone who alerts on CRITICAL); other errors keep kombu's CRITICAL;
* its Redis connections report the broker's outages, one line when it becomes unreachable and
  one when it is back (:mod:`config.outages`).

Selected by ``CELERY_BROKER_TRANSPORT`` (config/settings.py) for ``redis://`` brokers.
"""
from __future__ import annotations

import logging

from kombu.transport import redis as kombu_redis
from kombu.transport import virtual
from redis import exceptions as redis_exceptions

from config.outages import BrokerConnection

# What losing the broker's connection raises on the way: redis-py's errors, or the socket's own.
CONNECTION_LOST = (redis_exceptions.ConnectionError, redis_exceptions.TimeoutError, OSError)


class Message(virtual.Message):
    def ack_log_error(self, logger: logging.Logger, errors, multiple=False):
        try:
            self.ack(multiple=multiple)
        except CONNECTION_LOST as exc:
            logger.warning("message %s not acknowledged, the broker connection was lost (%s: %s): Redis hands it "
                           "back after the visibility timeout and its second delivery is a no-op",
                           self.delivery_tag, type(exc).__name__, exc)
            if isinstance(exc, BrokenPipeError):
                raise  # as kombu does: the consumer's connection is gone
        except errors as exc:  # anything else: kombu's own handling
            logger.critical("Couldn't ack %r, reason:%r", self.delivery_tag, exc, exc_info=True)


class Channel(kombu_redis.Channel):
    do_restore = False
    Message = Message
    connection_class = BrokerConnection

    def _connparams(self, asynchronous=False):
        if self.connection is None or self.connection.client is None:
            raise redis_exceptions.ConnectionError("this channel's broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
