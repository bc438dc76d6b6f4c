"""What makes a database connection fail fast and be discarded when bad.

Engine arguments and events, per backend: driver timeouts (so that a
frozen server cannot hold a request past the retry budget), Galera's
``wsrep_sync_wait`` session value, and the error hook that throws away a
connection to a node that is not ready. No transactions here (``api``).
"""
import dataclasses

from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import retry

LOG = logging.getLogger(__name__)


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

    if backend != 'mysql':
        return

    query = engine.url.query
    read = float(query.get('read_timeout', timeouts.read))
    write = float(query.get('write_timeout', timeouts.write))

    def short_reads(dbapi_con, *args):
        # PyMySQL applies these per socket operation: a retry late in
        # the budget waits no longer than what is left of it.
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
