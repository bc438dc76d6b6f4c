"""The execution interface of the operations layer (``objects``).

Every database operation is a function decorated ``@operation`` that
opens exactly one of:

- ``transaction(ctx)``: a Connection in one read-write transaction on
  the writer; COMMIT on success, ROLLBACK on any exception. A write
  states, inside it, how to recognise itself after a lost COMMIT
  (``on_commit_lost``).
- ``reader(ctx)``: a Connection in one read transaction on the reader
  (or the writer), always rolled back. ``snapshot=False`` says that its
  statements need not share a snapshot, which lets the driver run each
  on its own.

``operation`` is the one retry policy (``db.retry``): it runs the whole
function again after a failure a new attempt can cure, within the budget
of ``[placement_database] retry_budget``. Plain SQLAlchemy Core
statements run on the Connection; what differs between the backends is
in ``db.backend`` and ``db.packed``, each difference behind one named
function. Which driver runs, and how, is this package's business only.
"""
import contextlib
import contextvars
import functools
import weakref

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import driver
from placement.db import engine as db_engine
from placement.db import in_lists
from placement.db import retry
from placement.db import round_trips
from placement import exception

LOG = logging.getLogger(__name__)


class Database:
    """The writer engine and, when configured, a reader engine; and the
    engine of the reads without snapshot (``alone``: on MySQL, the
    reader's URL in autocommit, db.engine.AlonePlugin; elsewhere the
    reader itself)."""

    def __init__(self, writer, reader=None, policy=None, alone=None):
        self.writer = writer
        self.reader = reader or writer
        self.alone = alone or self.reader
        if self.alone is not self.reader:
            _READS_OF[self.alone] = self.reader
        self.policy = policy or retry.RetryPolicy()

    def engines(self):
        """Each distinct engine, the writer first."""
        found = [self.writer]
        for engine in (self.reader, self.alone):
            if all(engine is not seen for seen in found):
                found.append(engine)
        return found

    def verify_commit(self, lost):
        """Run the post-condition of ``lost`` (retry.AmbiguousCommit) on
        a new connection to the writer; its answer, or NOT_LANDED."""
        return _verifier(self)(lost)

    @property
    def dialect(self):
        return self.writer.dialect.name

    def dispose(self):
        for engine in self.engines():
            engine.dispose()


# {an ``alone`` engine: the reader engine whose data it reads}
_READS_OF = weakref.WeakKeyDictionary()


def data_source(conn):
    """The engine whose data ``conn`` reads, as a key for what a process
    remembers of that data: the reader's for a connection of the reads
    without snapshot (the same database), else ``conn``'s own engine."""
    engine = conn.engine
    return _READS_OF.get(engine, engine)


def policy_from(conf, timeouts=None) -> retry.RetryPolicy:
    """The retry policy of ``[placement_database]`` (its COMMIT wait:
    the read timeout of ``timeouts``, by default the fitted ones)."""
    group = conf.placement_database
    timeouts = timeouts or db_engine.fitted_timeouts(conf)
    return retry.RetryPolicy(budget=group.retry_budget,
                             backoff=group.retry_backoff,
                             backoff_max=group.retry_backoff_max,
                             race_backoff=group.retry_backoff / 10,
                             commit_wait=timeouts.read)


def create_database(conf, reader=True) -> Database:
    """Build the Database for ``conf``; raise ConfigError without a URL.

    ``reader=False`` leaves out the ``slave_connection`` engine (for a
    process that only writes, such as a migration).
    """
    group = conf.placement_database
    if not group.connection:
        raise exception.ConfigError(
            reason='[placement_database] connection is not set; the '
                   'placement service needs a database URL to start.')
    timeouts = db_engine.fitted_timeouts(conf)
    writer = db_engine.create_engine(group, group.connection, timeouts)
    reader_engine = alone = None
    reader_url = group.connection
    if reader and group.slave_connection:
        reader_engine = db_engine.create_engine(
            group, group.slave_connection, timeouts)
        reader_url = group.slave_connection
    if reader and writer.dialect.name == 'mysql':
        alone = db_engine.create_engine(group, reader_url, timeouts,
                                        alone=True)
    return Database(writer, reader_engine, policy_from(conf, timeouts),
                    alone)


def _database(ctx):
    return ctx if isinstance(ctx, Database) else ctx.db


# Values a database refuses to store or compare: MySQL 1264 (out of range),
# 1366 (incorrect string value: 4-byte UTF-8 in a utf8 column), 1406 (data
# too long); PostgreSQL class 22 (data exception: out of range, NUL in a
# string, untranslatable character); drivers refusing a Python value
# before sending it (SQLite and integers beyond 64 bits, NUL for psycopg).
_MYSQL_DATA_ERRORS = (1264, 1366, 1406)


def _unstorable_value(exc):
    """The driver's message when ``exc`` is about an unstorable value."""
    inner = getattr(exc, 'inner_exception', None) or exc
    orig = getattr(inner, 'orig', None) or inner
    args = getattr(orig, 'args', ())
    if args and args[0] in _MYSQL_DATA_ERRORS:
        return str(args[1]) if len(args) > 1 else str(orig)
    pgcode = getattr(orig, 'pgcode', None) or getattr(orig, 'sqlstate',
                                                      None)
    if pgcode and pgcode.startswith('22'):
        return str(orig).splitlines()[0]
    if isinstance(orig, (OverflowError, ValueError)):
        return str(orig)
    if isinstance(inner, sa.exc.DataError):
        # A driver refusing the value before sending it (psycopg 3 and
        # NUL in a string): a DataError with no server code.
        return str(orig).splitlines()[0]
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


# Failures of a COMMIT that leave its outcome unknown: the connection
# went (the server may have committed), or the node stopped serving
# while committing (a Galera node that left the primary component during
# COMMIT, MySQL 1180 or 1047, may have replicated the write to the nodes
# that stayed). A lost race (a certification failure) did not commit.
_AMBIGUOUS_AT_COMMIT = (retry.Failure.DISCONNECT, retry.Failure.NOT_READY)


def _commit(conn, trans, holder):
    server = driver.server_of(conn)
    try:
        trans.commit()
    except Exception as exc:
        if retry.classify(exc) in _AMBIGUOUS_AT_COMMIT:
            raise retry.AmbiguousCommit(
                exc, holder[0] if holder else None, server) from exc
        raise
    # The connection goes back to the pool right after: no ROLLBACK.
    round_trips.ended(conn)


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
        # Back to the pool right after: no second ROLLBACK.
        round_trips.ended(conn)
    except Exception as exc:
        # The connection broke too; the server ends the transaction.
        LOG.debug('Rollback failed, discarding the connection: %s', exc)
        if not conn.invalidated:
            conn.invalidate()


@contextlib.contextmanager
def reader(ctx, snapshot: bool = True):
    """Yield a Connection in a transaction on the reader (or writer).

    The transaction is rolled back, not committed: it wrote nothing, and
    closing a connection whose transaction is still open ends it with
    the ROLLBACK the pool would send anyway; except where a ROLLBACK
    costs the driver its prepared statements (driver.end_read).

    ``snapshot=False`` is for a read whose statements need not share a
    snapshot: one statement (which always reads one), several whose
    answers are independent, or a read that is right with whatever the
    server's isolation gives. Each statement then runs on its own: no
    BEGIN before it nor ROLLBACK after, one round trip for a small read
    instead of two (MySQL) or three (psycopg). On MySQL the read takes a
    connection of the ``alone`` engine, in autocommit from the start; on
    psycopg, whose autocommit is a client flag, the reader's connection
    is switched for the read (driver.statements_alone); on SQLite it is a
    transaction as above.
    """
    db = _database(ctx)
    engine = db.reader if snapshot else db.alone
    with _data_errors_as_invalid_input():
        with engine.connect() as conn:
            with driver.statements_alone(conn, not snapshot):
                trans = conn.begin()
                yield conn
                driver.end_read(trans)


@functools.lru_cache(maxsize=64)
def _lock_stmt(column, slots):
    """SELECT <column> FROM <table> WHERE <column> IN (:values_0, ...)
    ORDER BY <column> FOR UPDATE              (PostgreSQL: FOR NO KEY UPDATE)
    """
    return (sa.select(column).where(in_lists.in_(column, 'values', slots))
            .order_by(column).with_for_update(key_share=True))


def lock_then_read(conn, column, values, read_stmt, params) -> list:
    """The rows of ``read_stmt`` (with ``params``), read after locking
    the rows whose ``column`` is among ``values`` (FOR UPDATE; in
    ``column`` order, the same for every writer; values without a row are
    no error). Inside a ``transaction``.

    For a write that reads, then compare-and-swaps, what it locks: a
    concurrent writer of the same rows waits for this one's COMMIT and
    reads after it. Two statements, each with bound parameters.
    """
    values = sorted(values)
    if values:
        conn.execute(_lock_stmt(column, in_lists.size(values)),
                     in_lists.bind('values', values)).all()
    return conn.execute(read_stmt, params).all()


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
