"""A bounded probe of the configured database, for ``/healthcheck``.

The probe has an engine of its own (``probe_engine``): a new connection
for each probe, so that it proves the server accepts connections (and,
behind a proxy, says which node a new connection reaches now) rather
than reusing a pooled one, and driver timeouts of about the bound. Its
statements (``run_probe``): ``SELECT 1``; on MySQL/MariaDB the node's
``hostname``, ``port`` and ``wsrep_on``, and when Galera replicates
(``wsrep_on`` ON) its ``wsrep_local_state_comment`` and
``wsrep_cluster_status``.

``BoundedProbe.check`` waits at most the bound for an answer. The probe
runs in a thread of its own; at most one runs per BoundedProbe, and a
check arriving while one runs waits for that one, so a database that
hangs costs one thread, not one per health check request.

No HTTP and no oslo.middleware here (``placement.healthcheck``).
"""
import dataclasses
import math
import threading
import time
import typing

import sqlalchemy as sa
from sqlalchemy import pool as sa_pool

from placement.db import driver
from placement.db import retry

WSREP_SYNCED = 'Synced'
WSREP_PRIMARY = 'Primary'
# A MariaDB server without Galera has wsrep_on OFF, and status values
# of a provider that is not loaded (wsrep_cluster_status Disconnected).
_VARIABLES = ("SHOW GLOBAL VARIABLES WHERE Variable_name IN "
              "('hostname', 'port', 'wsrep_on')")
_WSREP_STATUS = ("SHOW GLOBAL STATUS WHERE Variable_name IN "
                 "('wsrep_local_state_comment', 'wsrep_cluster_status')")


@dataclasses.dataclass(frozen=True)
class Answer:
    """What the database said to one probe.

    ``node`` is ``host:port`` of the MySQL/MariaDB server that answered
    (None elsewhere); ``wsrep_state`` and ``cluster_status`` are the
    Galera status values, None on a server without Galera.
    """
    node: typing.Optional[str] = None
    wsrep_state: typing.Optional[str] = None
    cluster_status: typing.Optional[str] = None
    seconds: float = 0.0

    @property
    def is_galera(self) -> bool:
        return self.wsrep_state is not None or (
            self.cluster_status is not None)

    @property
    def is_ready(self) -> bool:
        """True unless a Galera node is not Synced or not Primary."""
        return not self.is_galera or (
            self.wsrep_state == WSREP_SYNCED
            and self.cluster_status == WSREP_PRIMARY)


class NoAnswer(Exception):
    """The database did not answer the probe; ``reason`` says why."""

    def __init__(self, reason: str, detail: str = ''):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def probe_engine(url: str, bound: float,
                 connection_parameters: str = '') -> sa.engine.Engine:
    """An engine for the probe: no pool, driver timeouts near ``bound``.

    Creating it opens no connection.
    """
    url = sa.engine.make_url(url)
    if connection_parameters:
        url = url.update_query_string(connection_parameters, append=True)
    # libpq counts whole seconds, 2 at least; the thread bounds the rest.
    seconds = max(int(math.ceil(bound)) + 1, 2)
    timeouts = driver.Timeouts(connect=seconds, read=seconds,
                               write=seconds)
    return sa.create_engine(url, poolclass=sa_pool.NullPool,
                            connect_args=driver.connect_args(url, timeouts))


def run_probe(engine: sa.engine.Engine) -> Answer:
    """Connect and run the probe's statements; the driver's errors pass."""
    started = time.monotonic()
    with engine.connect() as conn:
        conn.execute(sa.text('SELECT 1')).scalar()
        if engine.dialect.name != 'mysql':
            return Answer(seconds=time.monotonic() - started)
        variables = _values(conn, _VARIABLES)
        status = {}
        if variables.get('wsrep_on', '').upper() == 'ON':
            status = _values(conn, _WSREP_STATUS)
    return Answer(node='%s:%s' % (variables.get('hostname'),
                                  variables.get('port')),
                  wsrep_state=status.get('wsrep_local_state_comment'),
                  cluster_status=status.get('wsrep_cluster_status'),
                  seconds=time.monotonic() - started)


def _values(conn, statement):
    """{lower-case name: value} of a SHOW ... VARIABLES/STATUS."""
    return {name.lower(): value
            for name, value in conn.execute(sa.text(statement))}


class _Run:
    """One probe in its thread, and its outcome once done."""

    def __init__(self, probe):
        self.done = threading.Event()
        self.answer = None
        self.error = None
        self._probe = probe

    def start(self):
        threading.Thread(target=self._run, name='placement-db-probe',
                         daemon=True).start()

    def _run(self):
        try:
            self.answer = self._probe()
        except Exception as exc:
            self.error = exc
        finally:
            self.done.set()


class BoundedProbe:
    """``probe()`` (by default ``run_probe(engine)``) with a time bound."""

    def __init__(self, probe: typing.Callable[[], Answer], bound: float):
        self._probe = probe
        self.bound = bound
        self._lock = threading.Lock()
        self._run = None

    def check(self) -> Answer:
        """The Answer, or NoAnswer when none came within the bound or
        the probe failed."""
        with self._lock:
            run = self._run
            if run is None or run.done.is_set():
                run = self._run = _Run(self._probe)
                run.start()
        if not run.done.wait(self.bound):
            raise NoAnswer('no answer within %g s' % self.bound)
        if isinstance(run.error, NoAnswer):
            raise run.error
        if run.error is not None:
            raise NoAnswer(_reason(run.error), detail=_one_line(run.error))
        return run.answer


def _reason(exc):
    """'database unavailable: lost connection' and the like: the kind of
    failure (retry.Failure), not the driver's words, which name hosts."""
    failure = retry.classify(exc)
    kind = failure.value if failure is not None else type(exc).__name__
    return 'database unavailable: %s' % kind


def _one_line(exc):
    """The driver's message of ``exc``, without SQLAlchemy's trailer."""
    inner = getattr(exc, 'orig', None) or exc
    text = str(inner).strip().splitlines()
    return text[0] if text else type(inner).__name__
