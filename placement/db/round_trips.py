"""Round trips PyMySQL would spend for nothing, saved with its public
features.

PyMySQL sends a ROLLBACK whenever it is asked to, transaction or not,
and SQLAlchemy asks at the end of every transaction (a read's included)
and when the pool takes a connection back. On a shared host a round
trip costs far more than its few microseconds of CPU: the request waits
for the database server to be scheduled. Each saving below earned its
place by a figure (the contributor guide, "The data layer"):

1. No ROLLBACK with nothing to end. PyMySQL's connection is wrapped
   (``Connection``, returned by the engine's public ``do_connect``
   hook), and its ``rollback()`` sends nothing right after a COMMIT, nor
   after a statement that ended its transaction itself (2.).
2. A read that needs no snapshot (``db.api.reader(snapshot=False)``)
   sends each statement as ``<statement>;ROLLBACK`` in one text, which
   PyMySQL sends in one packet (CLIENT.MULTI_STATEMENTS); the transaction
   the SELECT opened, and its read view, end in the same round trip.
   The ROLLBACK's answer is read right after the statement's (PyMySQL's
   ``next_result``, which ``cursor.nextset()`` calls; a buffered cursor
   holds the statement's rows already). If the statement fails the
   server runs nothing after it, and the ROLLBACK goes out as usual.
3. A claim's lock (``lock_then_read``): the locking SELECT goes first in
   the text of the read after it; its rows are skipped with the DB-API's
   ``cursor.nextset()``, and its error (a deadlock, a lock wait timeout)
   is raised from the read, which then did not run.

Nothing here changes what a transaction sees or writes: the statements
and their order are the ones SQLAlchemy was given.
"""
import contextlib

import sqlalchemy as sa

_TRAILER = '\n;ROLLBACK'


class Connection:
    """A PyMySQL connection whose ``rollback()`` sends nothing when no
    transaction is open (1. above); everything else is PyMySQL's.

    ``ended``: the last command ended the transaction (a COMMIT, or a
    statement sent with its ROLLBACK). ``end_each``: while set, each
    statement is sent with its ROLLBACK (2.). ``prefix``: a statement
    (SQL text, values in it) to send first with the next one (3.).
    """

    def __init__(self, connection):
        self.connection = connection
        self.ended = False
        self.end_each = False
        self.prefix = None

    def __getattr__(self, name):
        return getattr(self.connection, name)

    def commit(self):
        self.ended = False
        self.connection.commit()
        self.ended = True

    def rollback(self):
        if self.ended:
            self.ended = False
            return
        self.prefix = None
        self.connection.rollback()


# PyMySQL's names, imported by add_events: a PostgreSQL server never
# loads PyMySQL (0.7 MiB per process).
_MULTI_STATEMENTS = None
_STREAMING_CURSOR = None


def connect(dialect, conn_rec, cargs, cparams):
    """The do_connect hook: PyMySQL's connection, taking several
    statements in one text, wrapped."""
    cparams['client_flag'] = (cparams.get('client_flag', 0)
                              | _MULTI_STATEMENTS)
    return Connection(dialect.connect(*cargs, **cparams))


def add_events(engine) -> None:
    """Wrap the PyMySQL connections of ``engine`` and send the statements
    of 2. and 3. above."""
    global _MULTI_STATEMENTS, _STREAMING_CURSOR
    from pymysql.constants import CLIENT
    from pymysql import cursors
    _MULTI_STATEMENTS = CLIENT.MULTI_STATEMENTS
    _STREAMING_CURSOR = cursors.SSCursor
    sa.event.listen(engine, 'do_connect', connect)
    sa.event.listen(engine, 'before_cursor_execute', _before, retval=True)
    sa.event.listen(engine, 'after_cursor_execute', _after)


def _ours(conn):
    dbapi_con = conn.connection.dbapi_connection
    return dbapi_con if isinstance(dbapi_con, Connection) else None


def _before(conn, cursor, statement, parameters, context, executemany):
    ours = _ours(conn)
    if ours is None:
        return statement, parameters
    ours.ended = False
    if ours.prefix is not None:
        # PyMySQL formats the whole text with the parameters: the values
        # in the prefix are literals already.
        statement = '%s;\n%s' % (ours.prefix.replace('%', '%%'), statement)
    if ours.end_each and not executemany and _buffered(cursor):
        # A newline first: a trailing "-- comment" must not hide the ';'.
        statement = statement.rstrip().rstrip(';') + _TRAILER
    return statement, parameters


def _buffered(cursor):
    """Whether ``cursor`` reads a whole answer at once (not a streaming
    server-side cursor), so that the answer after it can be read."""
    return not isinstance(cursor, _STREAMING_CURSOR)


def _after(conn, cursor, statement, parameters, context, executemany):
    ours = _ours(conn)
    if ours is None:
        return
    if ours.prefix is not None:
        ours.prefix = None
        cursor.nextset()  # the statement's rows, for SQLAlchemy
    if statement.endswith(_TRAILER):
        # The ROLLBACK's answer, read now (the cursor holds the rows):
        # its failure is the statement's, and only its success ends the
        # transaction.
        ours.connection.next_result()
        ours.ended = True


@contextlib.contextmanager
def statements_alone(conn):
    """While in the block, each statement ``conn`` executes ends its own
    transaction (2. above); a no-op off PyMySQL."""
    ours = _ours(conn)
    if ours is None:
        yield
        return
    ours.end_each = True
    try:
        yield
    finally:
        ours.end_each = False


def is_ours(conn) -> bool:
    """Whether ``conn`` is on a wrapped PyMySQL connection."""
    return _ours(conn) is not None


def lock_then_read(conn, lock_sql, read_stmt, params):
    """``read_stmt``'s rows after ``lock_sql`` (a locking SELECT, values
    in its text), both sent in one text (3. above). Only where
    ``is_ours``."""
    ours = _ours(conn)
    ours.prefix = lock_sql
    try:
        return conn.execute(read_stmt, params).all()
    finally:
        ours.prefix = None


def literal(conn, value) -> str:
    """``value`` as an SQL literal, escaped by PyMySQL for ``conn``."""
    return _ours(conn).connection.literal(value)
