"""The engine from [placement_database], and the transaction helpers.

``transaction(ctx)`` and ``reader(ctx)`` are the only ways the operations
layer reaches the database; each yields one Connection inside one
transaction. A ``transaction`` commits on success and rolls back on any
exception; a ``reader``'s, which writes nothing, always rolls back.

The engine is set up here as ``oslo_db.sqlalchemy.engines.create_engine``
would for the same ``[placement_database]`` options (pool sizes and
timeouts, recycle time, SQL mode, SQLite's own BEGIN, the
per-process connection guard, the connect retries) and with oslo.db's
exception filters (DBDuplicateEntry, DBDeadlock, DBConnectionError...),
without importing ``engines``: that module pulls in oslo.db's ORM helpers
and SQLAlchemy's ORM, some 9 MiB per process that serving never uses.

One difference: where oslo.db pings every connection the pool hands out
(a round trip per request, a third of a small read's), ours pings only a
connection that sat idle in the pool for ``IDLE_PING_SECONDS`` or more
(``_add_idle_ping``). A connection that died while in use moments ago
is still caught: its first statement fails as a lost connection, before
any COMMIT, and the retry policy (``operation``) runs the operation again
on a new one, so no client sees it.

Every function of the operations layer that opens a transaction or a
reader is an ``@operation``: the one retry policy (``db.retry``) runs it
whole again after a failure a new attempt can cure, within the budget of
``[placement_database] retry_budget``.
"""
import contextlib
import contextvars
import functools
import itertools
import logging as std_logging
import os
import re
import time

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import exc_filters
from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import pool as sa_pool

from placement.db import driver
from placement.db import prepared
from placement.db import retry
from placement import exception

LOG = logging.getLogger(__name__)

# A connection back in the pool for this long is pinged before reuse.
IDLE_PING_SECONDS = 1.0
_CHECKIN_KEY = 'placement.checked_in_at'

# Bytes a GROUP_CONCAT value may hold (MySQL/MariaDB); the answer is still
# bounded by max_allowed_packet, past which the reader falls back.
GROUP_CONCAT_MAX_LEN = 1 << 30


class Database:
    """The writer engine and, when configured, a reader engine."""

    def __init__(self, writer, reader=None, policy=None):
        self.writer = writer
        self.reader = reader or writer
        self.policy = policy or retry.RetryPolicy()

    def verify_commit(self, lost):
        """Run the post-condition of ``lost`` (retry.AmbiguousCommit) on
        a new connection to the writer; its answer, or NOT_LANDED."""
        return _verifier(self)(lost)

    @property
    def dialect(self):
        return self.writer.dialect.name

    def dispose(self):
        self.writer.dispose()
        if self.reader is not self.writer:
            self.reader.dispose()


def timeouts_from(conf) -> driver.Timeouts:
    """The driver timeouts of ``[placement_database]``."""
    group = conf.placement_database
    return driver.Timeouts(connect=group.connect_timeout,
                           read=group.read_timeout,
                           write=group.write_timeout,
                           wsrep_sync_wait=group.mysql_wsrep_sync_wait)


def policy_from(conf) -> retry.RetryPolicy:
    """The retry policy of ``[placement_database]``."""
    group = conf.placement_database
    return retry.RetryPolicy(budget=group.retry_budget,
                             backoff=group.retry_backoff,
                             backoff_max=group.retry_backoff_max,
                             race_backoff=group.retry_backoff / 10,
                             commit_wait=group.read_timeout)


def _engine(conf, url):
    group = conf.placement_database
    return create_engine(
        url,
        mysql_sql_mode=group.mysql_sql_mode,
        connection_recycle_time=group.connection_recycle_time,
        connection_debug=group.connection_debug,
        max_pool_size=group.max_pool_size,
        max_overflow=group.max_overflow,
        pool_timeout=group.pool_timeout,
        sqlite_synchronous=group.sqlite_synchronous,
        connection_trace=group.connection_trace,
        max_retries=group.max_retries,
        retry_interval=group.retry_interval,
        connection_parameters=group.connection_parameters or None,
        logging_name='placement', timeouts=timeouts_from(conf))


def _setup_logging(connection_debug):
    # 0: warnings and up; 50: info; 100: every statement (debug).
    if connection_debug >= 0:
        logger = std_logging.getLogger('sqlalchemy.engine')
        if connection_debug == 100:
            logger.setLevel(std_logging.DEBUG)
        elif connection_debug >= 50:
            logger.setLevel(std_logging.INFO)
        else:
            logger.setLevel(std_logging.WARNING)


def _vet_url(url):
    if '+' not in url.drivername and not url.drivername.startswith('sqlite'):
        LOG.warning("URL %r does not contain a '+drivername' portion, and "
                    "will make use of a default driver.  A full "
                    "dbname+drivername:// protocol is recommended.%s", url,
                    ' For MySQL, it is strongly recommended that '
                    'mysql+pymysql:// be specified for maximum service '
                    'compatibility' if url.drivername.startswith('mysql')
                    else '')


def _engine_args(url, engine_args, max_pool_size, max_overflow,
                 pool_timeout):
    backend = url.get_backend_name()
    driver = url.get_driver_name()
    pool_class = url.get_dialect().get_pool_class(url)
    connect_args = engine_args['connect_args']
    if backend == 'sqlite':
        if issubclass(pool_class, sa_pool.SingletonThreadPool):
            # :memory: : one connection shared by every thread.
            engine_args['poolclass'] = sa_pool.StaticPool
            connect_args['check_same_thread'] = False
            # https://github.com/python/cpython/issues/118172
            connect_args['cached_statements'] = 0
        elif issubclass(pool_class, sa_pool.QueuePool):
            engine_args['poolclass'] = sa_pool.NullPool
        return
    if issubclass(pool_class, sa_pool.QueuePool):
        if max_pool_size is not None:
            engine_args['pool_size'] = max_pool_size
        if max_overflow is not None:
            engine_args['max_overflow'] = max_overflow
        if pool_timeout is not None:
            engine_args['pool_timeout'] = pool_timeout
    if backend == 'postgresql':
        if 'client_encoding' not in url.query:
            engine_args['client_encoding'] = 'utf8'
    elif backend == 'mysql':
        if 'charset' not in url.query:
            connect_args['charset'] = 'utf8'
        if driver == 'mysqlconnector' and (
                'raise_on_warnings' not in url.query):
            connect_args['raise_on_warnings'] = False
        if driver == 'mysqldb' and 'use_unicode' not in url.query:
            connect_args['use_unicode'] = 1


def _add_process_guards(engine):
    """A connection opened by another (parent) process is never reused."""

    @sa.event.listens_for(engine, 'connect')
    def connect(dbapi_connection, connection_record):
        connection_record.info['pid'] = os.getpid()

    @sa.event.listens_for(engine, 'checkout')
    def checkout(dbapi_connection, connection_record, connection_proxy):
        pid = os.getpid()
        if connection_record.info['pid'] != pid:
            LOG.debug('Parent process %(orig)s forked (%(newproc)s) with an '
                      'open database connection, which is being discarded '
                      'and recreated.',
                      {'newproc': pid, 'orig': connection_record.info['pid']})
            raise sa.exc.DisconnectionError(
                'Connection record belongs to pid %s, attempting to check '
                'out in pid %s' % (connection_record.info['pid'], pid))


def _add_idle_ping(engine, idle_seconds=IDLE_PING_SECONDS):
    """Ping a connection on checkout when it sat idle ``idle_seconds``.

    A failed ping discards it and every connection pooled before it
    (they most likely lost the same server), as SQLAlchemy's pre-ping
    does; the pool then connects again.
    """
    dialect = engine.dialect

    @sa.event.listens_for(engine, 'checkin')
    def checkin(dbapi_connection, connection_record):
        if connection_record is not None:
            connection_record.info[_CHECKIN_KEY] = time.monotonic()

    @sa.event.listens_for(engine, 'checkout')
    def ping_if_idle(dbapi_connection, connection_record, connection_proxy):
        since = connection_record.info.pop(_CHECKIN_KEY, None)
        if since is None or time.monotonic() - since < idle_seconds:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise sa.exc.InvalidatePoolError(
                'ping of an idle connection failed: %s' % exc)
        if alive is False:
            raise sa.exc.InvalidatePoolError(
                'ping of an idle connection failed')


def _add_trace_comments(engine):
    """Append the calling code's last three frames to each statement."""
    import traceback
    target = os.path.dirname(sa.__file__)

    @sa.event.listens_for(engine, 'before_cursor_execute', retval=True)
    def before_cursor_execute(conn, cursor, statement, parameters, context,
                              executemany):
        stack = traceback.extract_stack()
        for index, frame in enumerate(stack):
            if frame[0].startswith(target):
                if index:
                    statement = '%s  -- %s' % (statement, '; '.join(
                        'File: %s (%s) %s' % (f[0], f[1], f[2])
                        for f in stack[max(index - 3, 0):index]))
                break
        return statement, parameters


def _add_mysql_events(engine, mysql_sql_mode):

    def set_sql_mode(dbapi_con, connection_rec):
        cursor = dbapi_con.cursor()
        cursor.execute('SET SESSION sql_mode = %s', [mysql_sql_mode])

    if mysql_sql_mode is not None:
        sa.event.listen(engine, 'connect', set_sql_mode)

    @sa.event.listens_for(engine, 'connect')
    def allow_long_group_concat(dbapi_con, connection_rec):
        # GET /allocation_candidates reads its rows packed into one
        # GROUP_CONCAT value (objects.candidate_sql.rows); the default
        # 1 MB cap would send large deployments back to row by row.
        cursor = dbapi_con.cursor()
        cursor.execute('SET SESSION group_concat_max_len = %s',
                       [GROUP_CONCAT_MAX_LEN])

    @sa.event.listens_for(engine, 'first_connect')
    def check_effective_sql_mode(dbapi_con, connection_rec):
        if mysql_sql_mode is not None:
            set_sql_mode(dbapi_con, connection_rec)
        cursor = dbapi_con.cursor()
        cursor.execute("SHOW VARIABLES LIKE 'sql_mode'")
        realmode = cursor.fetchone()
        if realmode is None:
            LOG.warning('Unable to detect effective SQL mode')
            return
        realmode = realmode[1]
        LOG.debug('MySQL server mode set to %s', realmode)
        if ('TRADITIONAL' not in realmode.upper() and
                'STRICT_ALL_TABLES' not in realmode.upper()):
            LOG.warning("MySQL SQL mode is '%s', consider enabling "
                        "TRADITIONAL or STRICT_ALL_TABLES", realmode)


def _add_sqlite_events(engine, sqlite_synchronous):

    def regexp(expr, item):
        return re.compile(expr).search(str(item)) is not None

    @sa.event.listens_for(engine, 'connect')
    def sqlite_connect(dbapi_con, con_record):
        dbapi_con.create_function('regexp', 2, regexp)
        if not sqlite_synchronous:
            dbapi_con.execute('PRAGMA synchronous = OFF')
        # pysqlite emits no BEGIN (nor a COMMIT before DDL): we do, below.
        dbapi_con.isolation_level = None

    @sa.event.listens_for(engine, 'begin')
    def sqlite_emit_begin(conn):
        if 'in_transaction' not in conn.info:
            conn.execute(sa.text('BEGIN'))
            conn.info['in_transaction'] = True

    @sa.event.listens_for(engine, 'rollback')
    @sa.event.listens_for(engine, 'commit')
    def sqlite_end_transaction(conn):
        conn.info.pop('in_transaction', None)


def _test_connection(engine, max_retries, retry_interval):
    attempts = itertools.count() if max_retries == -1 else range(max_retries)
    error = None
    for attempt in attempts:
        try:
            engine.connect().close()
            return
        except db_exc.DBConnectionError as exc:
            LOG.warning('SQL connection failed. %s attempts left.',
                        max_retries - attempt)
            time.sleep(retry_interval)
            error = exc
    if error is not None:
        raise error


def create_engine(url, mysql_sql_mode=None, connection_recycle_time=3600,
                  connection_debug=0, max_pool_size=None, max_overflow=None,
                  pool_timeout=None, sqlite_synchronous=True,
                  connection_trace=False, max_retries=10, retry_interval=10,
                  connection_parameters=None, logging_name=None,
                  timeouts=None):
    """A new Engine, as oslo.db's ``engines.create_engine`` makes it.

    ``timeouts`` (driver.Timeouts) adds the driver timeouts and the
    wsrep_sync_wait session value; None leaves the driver's defaults.
    """
    url = sa.engine.make_url(url)
    if connection_parameters:
        url = url.update_query_string(connection_parameters, append=True)
    _vet_url(url)
    engine_args = {'pool_recycle': connection_recycle_time,
                   'pool_pre_ping': False,
                   'connect_args': {},
                   'logging_name': logging_name}
    _setup_logging(connection_debug)
    _engine_args(url, engine_args, max_pool_size, max_overflow,
                 pool_timeout)
    if timeouts is not None:
        engine_args['connect_args'].update(
            driver.connect_args(url, timeouts))
    engine = sa.create_engine(url, **engine_args)
    _add_process_guards(engine)
    if url.get_backend_name() != 'sqlite':
        _add_idle_ping(engine)
    if connection_trace:
        _add_trace_comments(engine)
    backend = url.get_backend_name()
    if backend == 'mysql':
        _add_mysql_events(engine, mysql_sql_mode)
    elif backend == 'sqlite':
        _add_sqlite_events(engine, sqlite_synchronous)
    elif backend == 'postgresql':
        prepared.add_events(engine)
    driver.add_events(engine, timeouts or driver.Timeouts())
    exc_filters.register_engine(engine)
    if max_retries:
        _test_connection(engine, max_retries, retry_interval)
    return engine


def create_database(conf, reader=True):
    """Build the Database for ``conf``; raise ConfigError without a URL.

    ``reader=False`` leaves out the ``slave_connection`` engine (for a
    process that only writes, such as a migration).
    """
    group = conf.placement_database
    if not group.connection:
        raise exception.ConfigError(
            reason='[placement_database] connection is not set; the '
                   'placement service needs a database URL to start.')
    writer = _engine(conf, group.connection)
    reader_engine = None
    if reader and group.slave_connection:
        reader_engine = _engine(conf, group.slave_connection)
    return Database(writer, reader_engine, policy_from(conf))


def _database(ctx):
    return ctx if isinstance(ctx, Database) else ctx.db


# Values a database refuses to store or compare: MySQL 1264 (out of range),
# 1366 (incorrect string value: 4-byte UTF-8 in a utf8 column), 1406 (data
# too long); PostgreSQL class 22 (data exception: out of range, NUL in a
# string, untranslatable character); drivers refusing a Python value
# before sending it (SQLite and integers beyond 64 bits, NUL for psycopg2).
_MYSQL_DATA_ERRORS = (1264, 1366, 1406)


def _unstorable_value(exc):
    """The driver's message when ``exc`` is about an unstorable value."""
    inner = getattr(exc, 'inner_exception', None) or exc
    orig = getattr(inner, 'orig', None) or inner
    args = getattr(orig, 'args', ())
    if args and args[0] in _MYSQL_DATA_ERRORS:
        return str(args[1]) if len(args) > 1 else str(orig)
    pgcode = getattr(orig, 'pgcode', None)
    if pgcode and pgcode.startswith('22'):
        return str(orig).splitlines()[0]
    if isinstance(orig, (OverflowError, ValueError)):
        return str(orig)
    return None


@contextlib.contextmanager
def _data_errors_as_invalid_input():
    """Turn "the database cannot store this value" into InvalidInput."""
    try:
        yield
    except (db_exc.DBError, sa.exc.StatementError) as exc:
        message = _unstorable_value(exc)
        if message is None:
            raise
        raise exception.InvalidInput(
            'The request contains a value the database cannot store '
            '(for example a number too large, or a character outside the '
            "database's character set such as an emoji): %s" % message
        ) from exc


# What a post-condition returns when the write it checks is absent.
NOT_LANDED = retry.NOT_LANDED

# The post-condition of the write in flight in this context (a list
# holding at most one callable), set by ``transaction``.
_POSTCONDITION = contextvars.ContextVar('placement_db_postcondition',
                                        default=None)


def on_commit_lost(check) -> None:
    """State how to tell, after a lost COMMIT, whether this write landed.

    Call inside ``transaction``. ``check(conn)`` runs later, in a new
    transaction on the writer: it returns retry.NOT_LANDED when the
    write is absent, else the operation's result, which is then its
    answer. It must recognise this very write (the generation it set
    and the rows it wrote), not merely a similar one.
    """
    holder = _POSTCONDITION.get()
    if holder is not None:
        holder[:] = [check]


def _commit(conn, trans, holder):
    # An in-flight COMMIT may use the rest of the budget, its reserve
    # included (retry.RetryPolicy.commit_reserve).
    server = driver.before_commit(conn)
    try:
        trans.commit()
    except Exception as exc:
        if retry.classify(exc) is retry.Failure.DISCONNECT:
            raise retry.AmbiguousCommit(
                exc, holder[0] if holder else None, server) from exc
        raise


@contextlib.contextmanager
def transaction(ctx):
    """Yield a Connection in a read-write transaction on the writer.

    A value the database cannot store rolls the transaction back and
    raises exception.InvalidInput (a 400, not a 500). A connection lost
    during COMMIT raises retry.AmbiguousCommit, which ``operation``
    resolves with the check given to ``on_commit_lost``.
    """
    holder = []
    token = _POSTCONDITION.set(holder)
    try:
        with _data_errors_as_invalid_input():
            with _database(ctx).writer.connect() as conn:
                trans = conn.begin()
                try:
                    yield conn
                except BaseException:
                    _rollback(conn, trans)
                    raise
                _commit(conn, trans, holder)
    finally:
        _POSTCONDITION.reset(token)


def _rollback(conn, trans):
    try:
        trans.rollback()
    except Exception as exc:
        # The connection broke too; the server ends the transaction.
        LOG.debug('Rollback failed, discarding the connection: %s', exc)
        if not conn.invalidated:
            conn.invalidate()


# reader(ctx, snapshot=AS_ISOLATED): a read that takes whatever the
# server's isolation gives a transaction's statements (see reader).
AS_ISOLATED = 'as isolated'


@contextlib.contextmanager
def reader(ctx, snapshot=True):
    """Yield a Connection in a transaction on the reader (or writer).

    The transaction is rolled back, not committed: it wrote nothing, and
    closing a connection whose transaction is still open ends it with
    the one ROLLBACK the pool would send anyway, where a COMMIT would be
    a second round trip.

    ``snapshot=False`` is for a read whose statements need not share a
    snapshot: one statement (which always reads one), or several whose
    answers are independent. Where the driver's autocommit is a client
    flag (``driver.CLIENT_SIDE_AUTOCOMMIT``), each then runs on its own,
    with no BEGIN before it nor ROLLBACK after: one round trip for a small
    read instead of three. On PyMySQL each statement carries its own
    ROLLBACK in the same packet (pymysql_conn): one round trip instead
    of two. Elsewhere it is a transaction as above.

    ``snapshot=AS_ISOLATED`` is for a read that is right either way and
    takes what the server's isolation gives a transaction: one snapshot
    on MariaDB (REPEATABLE READ), none on PostgreSQL at its default READ
    COMMITTED, where each statement takes its own in a transaction too
    (driver.snapshot_per_statement): there it runs as ``snapshot=False``,
    the same answers for two round trips fewer. (A read that sets its
    own isolation, as the audit does, wants a transaction: the default.)
    """
    with _data_errors_as_invalid_input():
        with _database(ctx).reader.connect() as conn:
            alone = not snapshot or (snapshot == AS_ISOLATED and
                                     driver.snapshot_per_statement(conn))
            with driver.statements_alone(conn, alone):
                conn.begin()
                yield conn


# For the objects layer, which reaches the driver only through this
# module: a constant statement sent in the next one's packet (driver).
then_in_same_packet = driver.then_in_same_packet
# And a statement for its effect only, sent with the next one (driver).
first_in_next_packet = driver.first_in_next_packet
# Inside a ``reader``: the next statement is its last (driver).
last_read_statement = driver.end_after_next


def _verifier(db):
    @contextlib.contextmanager
    def connect(lost):
        with db.writer.connect() as conn:
            left = retry.remaining_for_commit()
            driver.wait_for_old_session(
                conn, lost.server,
                db.policy.commit_wait if left is None else left)
            with driver.causal_reads(conn):
                conn.begin()
                yield conn

    def verify(lost):
        return retry.verify_with(
            db.policy, functools.partial(connect, lost), lost.check)
    return verify


def operation(func=None, *, on_duplicate=None):
    """Run ``func(ctx, ...)`` under the retry policy of ``ctx``'s database.

    Every operation that opens a ``transaction`` or a ``reader`` carries
    this decorator: a deadlock, certification failure, lock wait
    timeout, serialization failure, lost or refused connection or a node
    that is not ready runs the whole function again in a new
    transaction, with jittered backoff, until the budget ends (then 409
    ConcurrentUpdateDetected for races, DatabaseUnavailable otherwise).
    ``on_duplicate`` as for ``retry.run``: None, 'conflict' or 'retry'
    (for operations that create rows on demand). Nested operations run
    inside the outermost one's attempt.
    """
    def decorate(func):
        @functools.wraps(func)
        def wrapper(ctx, *args, **kwargs):
            db = _database(ctx)
            return retry.run(db.policy, func, (ctx,) + args, kwargs,
                             on_duplicate=on_duplicate,
                             verify=db.verify_commit)
        wrapper.is_operation = True
        return wrapper
    return decorate if func is None else decorate(func)
