"""The engine from [placement_database], and the transaction helpers.

``transaction(ctx)`` and ``reader(ctx)`` are the only ways the operations
layer reaches the database; each yields one Connection inside one
transaction that commits on success and rolls back on any exception.
"""
import contextlib
import functools
import time

from oslo_db import api as oslo_db_api
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


@contextlib.contextmanager
def transaction(ctx):
    """Yield a Connection in a read-write transaction on the writer."""
    with _database(ctx).writer.begin() as conn:
        yield conn


@contextlib.contextmanager
def reader(ctx):
    """Yield a Connection in a transaction on the reader (or writer)."""
    with _database(ctx).reader.begin() as conn:
        yield conn


def _is_retryable(exc):
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
                if attempt == DEADLOCK_RETRIES or not _is_retryable(exc):
                    raise
                LOG.debug('Retrying %s after %s', func.__name__, exc)
                time.sleep(_BACKOFF_SECONDS * (2 ** attempt))
    return wrapper


# The library decorator, for callers that prefer oslo.db's own semantics.
wrap_db_retry = oslo_db_api.wrap_db_retry
