"""The engine from [placement_database], and the transaction helpers.

``transaction(ctx)`` and ``reader(ctx)`` are the only ways the operations
layer reaches the database; each yields one Connection inside one
transaction that commits on success and rolls back on any exception.
"""
import contextlib
import functools
import time

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
from oslo_log import log as logging
import sqlalchemy as sa

from placement import exception

LOG = logging.getLogger(__name__)

# How often a whole operation is retried after a deadlock or a
# serialization failure, and the base of the backoff between tries.
DEADLOCK_RETRIES = 5
_BACKOFF_SECONDS = 0.01


class Database:
    """The writer engine and, when configured, a reader engine."""

    def __init__(self, writer, reader=None):
        self.writer = writer
        self.reader = reader or writer

    @property
    def dialect(self):
        return self.writer.dialect.name

    def dispose(self):
        self.writer.dispose()
        if self.reader is not self.writer:
            self.reader.dispose()


def _engine(conf, url):
    group = conf.placement_database
    return engines.create_engine(
        url,
        sqlite_fk=False,
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
        logging_name='placement')


def create_database(conf):
    """Build the Database for ``conf``; raise ConfigError without a URL."""
    group = conf.placement_database
    if not group.connection:
        raise exception.ConfigError(
            reason='[placement_database] connection is not set; the '
                   'placement service needs a database URL to start.')
    writer = _engine(conf, group.connection)
    reader = None
    if group.slave_connection:
        reader = _engine(conf, group.slave_connection)
    return Database(writer, reader)


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


@contextlib.contextmanager
def transaction(ctx):
    """Yield a Connection in a read-write transaction on the writer.

    A value the database cannot store rolls the transaction back and
    raises exception.InvalidInput (a 400, not a 500).
    """
    with _data_errors_as_invalid_input():
        with _database(ctx).writer.begin() as conn:
            yield conn


@contextlib.contextmanager
def reader(ctx):
    """Yield a Connection in a transaction on the reader (or writer)."""
    with _data_errors_as_invalid_input():
        with _database(ctx).reader.begin() as conn:
            yield conn


def is_lost_race(exc):
    """A deadlock or (PostgreSQL) serialization failure: a lost race."""
    if isinstance(exc, db_exc.DBDeadlock):
        return True
    # PostgreSQL serialization failures (REPEATABLE READ / SERIALIZABLE).
    inner = getattr(exc, 'inner_exception', None) or exc
    orig = getattr(inner, 'orig', None)
    return getattr(orig, 'pgcode', None) in ('40001', '40P01')


def retry_on_deadlock(func):
    """Retry a whole operation (its own fresh transaction) on deadlock."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for attempt in range(DEADLOCK_RETRIES + 1):
            try:
                return func(*args, **kwargs)
            except (db_exc.DBError, sa.exc.DBAPIError) as exc:
                if attempt == DEADLOCK_RETRIES or not is_lost_race(exc):
                    raise
                LOG.debug('Retrying %s after %s', func.__name__, exc)
                time.sleep(_BACKOFF_SECONDS * (2 ** attempt))
    return wrapper


def _races_as_conflict(func, duplicates):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except db_exc.DBDuplicateEntry:
            if not duplicates:
                raise
            raise exception.ConcurrentUpdateDetected()
        except (db_exc.DBError, sa.exc.DBAPIError) as exc:
            if is_lost_race(exc):
                raise exception.ConcurrentUpdateDetected()
            raise
    return wrapper


def race_as_conflict(func):
    """Report a deadlock or serialization failure that outlived
    ``retry_on_deadlock`` as ConcurrentUpdateDetected (a lost race the
    client re-reads and retries), never as a 500.
    """
    return _races_as_conflict(func, duplicates=False)


def race_or_duplicate_as_conflict(func):
    """Like ``race_as_conflict``; a duplicate key (another writer inserted
    the same row first) is ConcurrentUpdateDetected too.
    """
    return _races_as_conflict(func, duplicates=True)

