"""What makes a database connection fail fast and be discarded when bad.

Engine arguments and events, per backend: driver timeouts (so that a
frozen server cannot hold a request past the retry budget), Galera's
``wsrep_sync_wait`` session value, and the error hook that throws away a
connection to a node that is not ready. No transactions here (``api``).
"""
import contextlib
import dataclasses
import sys
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import retry

LOG = logging.getLogger(__name__)

# Connection record info: (session id, host, port) of a MySQL session.
SERVER_KEY = 'placement.server'
# Imported by the first engine on PyMySQL (_pymysql_connection), so that
# a server on PostgreSQL never loads PyMySQL (0.7 MiB per process).
_PYMYSQL_CONN = 'placement.db.pymysql_conn'


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
    return {key: value for key, value in wanted.items()
            if key not in url.query}


def _clamp(value, left):
    """``value`` shortened to the operation's remaining budget."""
    if left is None:
        return value
    return max(min(value, left), 0.5)


def add_events(engine, timeouts: Timeouts) -> None:
    """Hook the budget, wsrep_sync_wait and not-ready handling in."""
    backend = engine.dialect.name
    if backend not in ('mysql', 'postgresql'):
        return

    @sa.event.listens_for(engine, 'do_connect')
    def short_connect(dialect, conn_rec, cargs, cparams):
        left = retry.remaining()
        for key in ('connect_timeout', 'read_timeout', 'write_timeout'):
            if cparams.get(key):
                cparams[key] = int(max(_clamp(float(cparams[key]), left),
                                       1))

    if backend == 'mysql':
        _add_mysql_events(engine, timeouts)


def _add_mysql_events(engine, timeouts: Timeouts) -> None:
    """The read/write timeouts cut to the budget, the server a connection
    is on, not-ready nodes dropped, wsrep_sync_wait; PyMySQL's connection
    of pymysql_conn."""
    if engine.dialect.driver == 'pymysql':
        # After short_connect (listeners run in order): its timeouts.
        sa.event.listen(engine, 'do_connect', _pymysql_connection)

    query = engine.url.query
    read = float(query.get('read_timeout', timeouts.read))
    write = float(query.get('write_timeout', timeouts.write))

    def short_reads(dbapi_con, *args):
        # PyMySQL applies these per socket operation: a retry late in
        # the budget waits no longer than what is left of it.
        dbapi_con.placement_timeouts = (read, write)
        left = retry.remaining()
        if getattr(dbapi_con, '_read_timeout', None):
            dbapi_con._read_timeout = _clamp(read, left)
        if getattr(dbapi_con, '_write_timeout', None):
            dbapi_con._write_timeout = _clamp(write, left)

    # The pool pings a connection before the checkout event: cut the
    # timeouts before the ping too.
    ping = engine.dialect.do_ping

    def do_ping(dbapi_con):
        short_reads(dbapi_con)
        return ping(dbapi_con)
    engine.dialect.do_ping = do_ping
    sa.event.listen(engine, 'checkout', short_reads)

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


def _pymysql_connection(dialect, conn_rec, cargs, cparams):
    from placement.db import pymysql_conn
    return pymysql_conn.Connection(*cargs, **cparams)


def _is_ours(dbapi_con) -> bool:
    """Whether ``dbapi_con`` is pymysql_conn's connection (none can be
    before that module was imported)."""
    module = sys.modules.get(_PYMYSQL_CONN)
    return module is not None and isinstance(dbapi_con, module.Connection)


def _sync_wait_setter(value):
    state = {'warned': False}

    def set_sync_wait(dbapi_con, con_record):
        cursor = dbapi_con.cursor()
        try:
            cursor.execute('SET SESSION wsrep_sync_wait = %s', [value])
        except Exception as exc:
            if not state['warned']:
                state['warned'] = True
                LOG.warning('[placement_database] mysql_wsrep_sync_wait is '
                            'set but the server refused it: %s', exc)
        finally:
            cursor.close()
    return set_sync_wait


def before_commit(conn):
    """Give the COMMIT about to be sent on ``conn`` what is left of the
    whole budget, the COMMIT reserve included (Galera holds commits while
    it evicts a dead node), up to the full driver timeouts; return the
    server session running it (MySQL) or None."""
    dbapi_con = conn.connection.dbapi_connection
    full = getattr(dbapi_con, 'placement_timeouts', None)
    if full is not None:
        left = retry.remaining_for_commit()
        dbapi_con._read_timeout = _clamp(full[0], left)
        dbapi_con._write_timeout = _clamp(full[1], left)
    return conn.info.get(SERVER_KEY)


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
        row = conn.exec_driver_sql(
            'SELECT @@hostname, @@port, (SELECT COUNT(*) FROM '
            'information_schema.PROCESSLIST WHERE ID = %d)'
            % int(session_id)).first()
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
        conn.exec_driver_sql('SET SESSION wsrep_sync_wait = %d'
                             % int(previous))
        conn.rollback()


# Drivers whose autocommit is a client flag: switching it sends nothing.
# (PyMySQL's is a server variable: a round trip each way, more than the
# ROLLBACK it would spare.)
CLIENT_SIDE_AUTOCOMMIT = frozenset(['psycopg2'])


# Isolation levels at which every statement reads a snapshot of its own,
# in a transaction or not (PostgreSQL's default).
PER_STATEMENT_SNAPSHOTS = frozenset(['READ COMMITTED', 'READ UNCOMMITTED'])


def snapshot_per_statement(conn) -> bool:
    """True where a transaction would give its reads no common snapshot:
    psycopg2 on a server whose default isolation (read by SQLAlchemy on
    the engine's first connection) is READ COMMITTED. A read there gains
    nothing from its BEGIN and ROLLBACK but two round trips.
    """
    return (conn.dialect.driver in CLIENT_SIDE_AUTOCOMMIT
            and conn.dialect.default_isolation_level
            in PER_STATEMENT_SNAPSHOTS)


@contextlib.contextmanager
def statements_alone(conn, wanted):
    """Each statement its own transaction while in the block, when
    ``wanted``: on our PyMySQL connection each carries its ROLLBACK
    (pymysql_conn); else psycopg2's autocommit on, when ``wanted`` and
    the connection is idle (status 0) as a pooled one is; else nothing
    (a closed one then fails in its first statement, as the retry policy
    expects). The flag, not isolation_level='AUTOCOMMIT', which costs
    SQLAlchemy more CPU. psycopg2 sends no ROLLBACK for the transaction
    SQLAlchemy then ends, nor for the pool's reset.
    """
    dbapi_con = conn.connection.dbapi_connection
    if wanted and _is_ours(dbapi_con):
        dbapi_con.end_each = True
        try:
            yield
        finally:
            dbapi_con.end_each = False
        return
    if not (wanted and conn.dialect.driver in CLIENT_SIDE_AUTOCOMMIT
            and not dbapi_con.closed
            and dbapi_con.get_transaction_status() == 0):
        yield
        return
    dbapi_con.autocommit = True
    try:
        yield
    finally:
        # A connection that broke is discarded, whatever its flag.
        if not conn.invalidated and not dbapi_con.closed:
            dbapi_con.autocommit = False


def _on_ours(conn, ask) -> bool:
    """``ask(connection)`` if ``conn`` is on our PyMySQL connection
    (pymysql_conn), and whether it was."""
    dbapi_con = conn.connection.dbapi_connection
    if not _is_ours(dbapi_con):
        return False
    ask(dbapi_con)
    return True


def then_in_same_packet(conn, sql) -> bool:
    """Have ``sql`` (a constant statement) sent in the same packet after
    the next statement ``conn`` executes, where the driver can (our
    PyMySQL connection: pymysql_conn), and say whether it will be."""
    return _on_ours(conn, lambda ours: ours.then(sql.encode()))


def first_in_next_packet(conn) -> bool:
    """Have the next statement ``conn`` executes kept and sent first in
    the packet of the one after it, where the driver can (our PyMySQL
    connection: pymysql_conn), and say whether it will be. The kept
    statement's result then has no rows: for a statement wanted for its
    effect only (a lock), whose error fails the statement after it."""
    return _on_ours(conn, lambda ours: ours.hold())


def end_after_next(conn) -> bool:
    """Have the next statement on ``conn`` end its transaction in its own
    packet (a ROLLBACK after it) where the driver can (our PyMySQL
    connection), and say whether it will: for the last statement of a
    read, whose ROLLBACK would otherwise be a round trip of its own."""
    return _on_ours(conn, lambda ours: ours.end_after_next())
