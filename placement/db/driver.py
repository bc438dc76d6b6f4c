"""What makes a database connection fail fast and be discarded when bad.

Events added to an engine, per backend, through SQLAlchemy's public
event API: driver timeouts given at connect time (fixed values, checked
against the retry budget once, when the configuration loads:
``db.engine.fitted_timeouts``), Galera's ``wsrep_sync_wait`` session
value, the server session a MySQL connection is on, and the error hook
that throws away a connection that cannot serve again (a node that is
not ready, a PostgreSQL session that lost its prepared statements). No
transactions here (``api``).
"""
import contextlib
import dataclasses
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import retry

LOG = logging.getLogger(__name__)

# Connection record info: (session id, host, port) of a MySQL session.
SERVER_KEY = 'placement.server'
# Connection record info: the wsrep_sync_wait a Galera session runs with.
SYNC_WAIT_KEY = 'placement.wsrep_sync_wait'
# CR_SSL_CONNECTION_ERROR: TLS asked for, and the server has none.
SSL_REFUSED = 2026


# psycopg 3 prepares a statement on a connection once it ran there this
# many times before (its default, 5, left a freshly started server
# planning the statements of GET /allocation_candidates, 1.5 ms each
# time, for its first few hundred requests: the pool hands out each of
# its connections in turn). A statement run only once is never prepared.
PREPARE_THRESHOLD = 1


@dataclasses.dataclass(frozen=True)
class Timeouts:
    """Driver timeouts in seconds, and the wsrep_sync_wait value."""
    connect: int = 5
    read: int = 15
    write: int = 15
    wsrep_sync_wait: int = 0


def connect_args(url, timeouts: Timeouts) -> dict:
    """Driver connect arguments for ``url`` not already in its query."""
    backend = url.get_backend_name()
    driver = url.get_driver_name()
    wanted = {}
    if backend == 'mysql' and driver == 'pymysql':
        wanted = {'connect_timeout': timeouts.connect,
                  'read_timeout': timeouts.read,
                  'write_timeout': timeouts.write}
    elif backend == 'mysql':
        wanted = {'connect_timeout': timeouts.connect}
    elif backend == 'postgresql' and driver in ('psycopg2', 'psycopg'):
        # No read timeout in libpq: keepalives notice a dead server
        # after about read seconds.
        idle = max(timeouts.read - 3, 1)
        wanted = {'connect_timeout': timeouts.connect, 'keepalives': 1,
                  'keepalives_idle': idle, 'keepalives_interval': 1,
                  'keepalives_count': 3}
        if driver == 'psycopg':
            wanted['prepare_threshold'] = PREPARE_THRESHOLD
    return {key: value for key, value in wanted.items()
            if key not in url.query}


def add_events(engine, timeouts: Timeouts) -> None:
    """Hook the driver timeouts, wsrep_sync_wait and the discarding of
    connections that cannot serve again into ``engine``."""
    backend = engine.dialect.name
    if backend not in ('mysql', 'postgresql'):
        return
    sa.event.listen(engine, 'do_connect',
                    _given(connect_args(engine.url, timeouts)))
    if backend == 'mysql':
        _add_mysql_events(engine, timeouts)
        if engine.dialect.driver == 'pymysql':
            _PreferredTLS().add_events(engine)
    else:
        sa.event.listen(engine, 'handle_error', _discard_unprepared)


def _given(wanted):
    """The do_connect hook: the driver arguments of ``wanted``, given to
    the driver at connect time (its public way), unless the URL gave
    them already."""
    def give(dialect, conn_rec, cargs, cparams):
        for key, value in wanted.items():
            cparams.setdefault(key, value)
    return give


class _PreferredTLS:
    """PyMySQL's default TLS, decided once per engine, not per connection.

    With no TLS option given, PyMySQL is "preferred": it encrypts when
    the server offers TLS, without checking its certificate, and makes a
    new SSLContext for that in every connection, loading the system's
    certificate store into it, server offering TLS or not: 40 ms of CPU
    per connection here, the pool's overflow connections included (the
    listing of 1,000 providers at concurrency 10 ran at 0.60x of the
    requests per second it does with this). The first connection is made
    as PyMySQL makes it; whether its server offered TLS then decides the
    next ones, through PyMySQL's public arguments: ``ssl`` set to that
    first connection's context (``ctx``), shared, or ``ssl_disabled``.
    A server that stops offering TLS fails the next connection
    (CR_SSL_CONNECTION_ERROR): the choice is then made anew. Connections
    given TLS options of their own are left to PyMySQL.
    """

    def __init__(self):
        self.context = None
        self.offered = None

    def add_events(self, engine):
        sa.event.listen(engine, 'do_connect', self.choose)
        sa.event.listen(engine, 'connect', self.learn)
        sa.event.listen(engine, 'handle_error', self.forget)

    def choose(self, dialect, conn_rec, cargs, cparams):
        if any(key.startswith(('ssl', 'read_default')) for key in cparams):
            return
        if self.offered:
            cparams['ssl'] = self.context
        elif self.offered is False:
            cparams['ssl_disabled'] = True

    def learn(self, dbapi_con, con_record):
        if self.offered is None:
            # Imported here: a PostgreSQL server never loads PyMySQL.
            from pymysql.constants import CLIENT
            offered = bool(dbapi_con.server_capabilities & CLIENT.SSL)
            self.context = dbapi_con.ctx if offered else None
            self.offered = offered

    def forget(self, context):
        """A server that no longer offers TLS: choose anew."""
        if retry.mysql_code(context.original_exception) == SSL_REFUSED:
            self.offered = None


def _add_mysql_events(engine, timeouts: Timeouts) -> None:
    """The server a connection is on, not-ready nodes dropped,
    wsrep_sync_wait."""

    @sa.event.listens_for(engine, 'connect')
    def remember_server(dbapi_con, con_record):
        # Who ran a COMMIT whose answer was lost (wait_for_old_session).
        cursor = dbapi_con.cursor()
        try:
            cursor.execute('SELECT CONNECTION_ID(), @@hostname, @@port')
            con_record.info[SERVER_KEY] = tuple(cursor.fetchone())
        finally:
            cursor.close()

    @sa.event.listens_for(engine, 'handle_error')
    def discard_not_ready(context):
        # A node that is joining, not primary or shutting down keeps
        # failing on this connection: drop it (and the pool's older
        # ones) so that the retry connects again, maybe to another node.
        code = retry.mysql_code(context.original_exception)
        if code in retry.NOT_READY_MYSQL_CODES:
            context.is_disconnect = True

    if timeouts.wsrep_sync_wait:
        sa.event.listen(engine, 'connect',
                        _sync_wait_setter(timeouts.wsrep_sync_wait))


def reads_wait_for_cluster(conn) -> bool:
    """Whether ``conn``'s reads wait for every write the cluster committed
    (a Galera session with wsrep_sync_wait set); its UPDATEs do not wait
    unless the value's bit 2 is set too."""
    return bool(conn.connection.info.get(SYNC_WAIT_KEY))


def _discard_unprepared(context):
    """A PostgreSQL session whose prepared statements are gone or stale
    (retry.UNPREPARED_SQLSTATES: a pooler gave another server session, a
    schema change altered a statement's columns) keeps failing: drop the
    connection, so that the retry runs on a new session, where psycopg
    prepares afresh."""
    if retry.is_unprepared(context.original_exception):
        context.is_disconnect = True


# MySQL's "Unknown system variable": a server without Galera.
UNKNOWN_VARIABLE = 1193


def _sync_wait_setter(value):
    """A connect hook setting wsrep_sync_wait. A server without the
    variable (no Galera) gets a warning, once; any other refusal (a node
    not ready yet) fails the connection, which is retried: a connection
    kept without causal reads could miss a write made through another
    node a moment before."""
    state = {'warned': False}

    def set_sync_wait(dbapi_con, con_record):
        cursor = dbapi_con.cursor()
        try:
            cursor.execute('SET SESSION wsrep_sync_wait = %s', [value])
            if con_record is not None:
                con_record.info[SYNC_WAIT_KEY] = value
        except Exception as exc:
            if retry.mysql_code(exc) != UNKNOWN_VARIABLE:
                raise
            if not state['warned']:
                state['warned'] = True
                LOG.warning('[placement_database] mysql_wsrep_sync_wait is '
                            'set but the server refused it: %s', exc)
        finally:
            cursor.close()
    return set_sync_wait


def server_of(conn):
    """The server session (MySQL: id, host, port) of ``conn``, or None."""
    return conn.info.get(SERVER_KEY)


_SESSION_ALIVE = sa.text(
    'SELECT @@hostname, @@port, (SELECT COUNT(*) FROM '
    'information_schema.PROCESSLIST WHERE ID = :id)')
_SET_SYNC_WAIT = sa.text('SET SESSION wsrep_sync_wait = :value')


def wait_for_old_session(conn, server, limit: float) -> None:
    """Wait (up to ``limit`` seconds) until the server session that ran
    a lost COMMIT is gone, when ``conn`` reached the same server.

    A session whose client vanished still finishes (or rolls back) the
    COMMIT it was running; only then does reading show its outcome.
    """
    if server is None or conn.dialect.name != 'mysql':
        return
    session_id, host, port = server
    deadline = time.monotonic() + limit
    while True:
        row = conn.execute(_SESSION_ALIVE, {'id': session_id}).first()
        conn.rollback()
        if (row[0], row[1]) != (host, port) or not row[2]:
            return
        if time.monotonic() >= deadline:
            LOG.warning('Session %s still runs its lost COMMIT after '
                        '%.0f s; looking for its write anyway',
                        session_id, limit)
            return
        time.sleep(0.05)


@contextlib.contextmanager
def causal_reads(conn):
    """On Galera, make this connection's reads wait for every write the
    cluster committed (wsrep_sync_wait = 1), whatever the option says:
    a post-condition read on another node must not miss the write it
    looks for. Elsewhere (no such variable, not MySQL) a no-op.
    """
    previous = None
    if conn.dialect.name == 'mysql':
        try:
            previous = conn.exec_driver_sql(
                'SELECT @@SESSION.wsrep_sync_wait').scalar()
            conn.exec_driver_sql('SET SESSION wsrep_sync_wait = 1')
            conn.rollback()
        except (db_exc.DBError, sa.exc.DBAPIError):
            previous = None
            conn.rollback()
    yield
    if previous is not None and not conn.invalidated:
        conn.rollback()
        conn.execute(_SET_SYNC_WAIT, {'value': previous})
        conn.rollback()


# Drivers that forget the statements they prepared at every ROLLBACK:
# psycopg 3 clears its prepared-statement cache then (and deallocates
# them on the server), so that a statement read in transactions ended by
# ROLLBACK is never prepared (its count starts over at each request).
FORGET_PREPARED_ON_ROLLBACK = frozenset(['psycopg'])


def end_read(trans) -> None:
    """End ``trans``, a read transaction that wrote nothing, that went
    well: COMMIT where a ROLLBACK would cost the driver its prepared
    statements (the pool sends no ROLLBACK after it), else nothing (the
    pool's ROLLBACK ends it, one round trip as well).

    Figure (PostgreSQL, 1,000 flat providers, GET /allocation_candidates
    in process, tools/profile candidates): ended by ROLLBACK, no
    statement was ever prepared and the server planned each one anew.
    """
    if trans.connection.dialect.driver in FORGET_PREPARED_ON_ROLLBACK:
        trans.commit()


# Drivers whose autocommit is a client flag: switching it sends nothing.
# (PyMySQL's is a server variable: a round trip each way, more than the
# ROLLBACK it would spare.)
CLIENT_SIDE_AUTOCOMMIT = frozenset(['psycopg2', 'psycopg'])


def _idle(dbapi_con) -> bool:
    """True when ``dbapi_con`` (psycopg 3 or psycopg2) is open and in
    no transaction, as a connection the pool hands out is."""
    if dbapi_con.closed:
        return False
    info = getattr(dbapi_con, 'info', None)
    status = getattr(info, 'transaction_status', None)
    if status is None:  # psycopg2
        status = dbapi_con.get_transaction_status()
    return status == 0  # IDLE in both


@contextlib.contextmanager
def statements_alone(conn, wanted: bool):
    """Each statement its own transaction while in the block, when
    ``wanted`` and the driver's autocommit is a client flag (psycopg): no
    BEGIN before a statement nor ROLLBACK after. Elsewhere nothing (a
    transaction, as usual: PyMySQL's autocommit is a server variable,
    and the stacked ``<statement>;ROLLBACK`` that once spared its
    ROLLBACK is gone with multi-statement connections).

    psycopg's public ``autocommit`` attribute may only change on an idle
    connection, as a pooled one is (a closed one then fails in its first
    statement, as the retry policy expects).
    """
    if not wanted:
        yield
        return
    if conn.dialect.driver not in CLIENT_SIDE_AUTOCOMMIT:
        yield
        return
    dbapi_con = conn.connection.dbapi_connection
    if not _idle(dbapi_con):
        yield
        return
    dbapi_con.autocommit = True
    try:
        yield
    finally:
        # A connection that broke is discarded, whatever its flag.
        if not conn.invalidated and not dbapi_con.closed:
            dbapi_con.autocommit = False
