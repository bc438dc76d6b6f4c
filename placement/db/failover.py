"""Noticing a Galera fail-over: the server a new connection reaches.

A fail-over, as counted here: an operation attempt failed on a lost
connection or a node that was not ready (db.retry's DISCONNECT or
NOT_READY), and the next new connection of the process reached another
server (``@@hostname:@@port``, which db.driver reads when a MySQL
connection opens) than the new connection before it. Connections to
the same node again, and new connections opened without such a
failure (pool growth, recycling, a proxy balancing new connections
over several nodes), are not fail-overs. MySQL/MariaDB only: the server
of a PostgreSQL connection is not read.

No metrics library here: ``on_failover`` is the caller's callback.
"""
import threading
import typing

import sqlalchemy as sa

from placement.db import driver
from placement.db import retry

# The failures after which a new connection may land on another node.
ARMING = frozenset((retry.Failure.DISCONNECT, retry.Failure.NOT_READY))


class FailoverWatch:
    """Call ``on_failover()`` for each fail-over (module docstring)."""

    def __init__(self, on_failover: typing.Callable[[], None]):
        self.on_failover = on_failover
        self._lock = threading.Lock()
        self._armed = False
        self._last = None

    def failed(self, failure: retry.Failure) -> None:
        """An attempt failed with ``failure`` and is run again."""
        if failure in ARMING:
            self._armed = True

    def connected(self, node: typing.Optional[tuple]) -> None:
        """A new connection reached ``node`` ((host, port), or None)."""
        if node is None:
            return
        with self._lock:
            moved = self._armed and self._last not in (None, node)
            if self._armed:
                self._armed = False
            self._last = node
        if moved:
            self.on_failover()

    def watch(self, engine: sa.engine.Engine) -> None:
        """Follow the new connections of ``engine``."""
        def on_connect(dbapi_con, con_record):
            server = con_record.info.get(driver.SERVER_KEY)
            self.connected(tuple(server[1:]) if server else None)
        sa.event.listen(engine, 'connect', on_connect)
