"""What differs between the database backends, each behind one function.

The operations layer writes one statement for every backend; where the
backends really differ (how they compare text, what an UPDATE can return,
where a new row's id comes from, what one lock covers), it asks a
function here, named for the difference, instead of testing a dialect
name. Each is tested on SQLite, MariaDB and PostgreSQL
(tests/functional/db/test_backend.py). Queries only: ``conn`` first,
nothing begun or ended here.
"""
import functools
import typing

import sqlalchemy as sa

from placement.db import driver

_MYSQL = 'mysql'
_POSTGRESQL = 'postgresql'


def key_fold(conn) -> typing.Callable[[str], str]:
    """How the database compares the text of a uuid column: MySQL's
    collations ignore case (str.lower), the others compare the text as
    it is (str)."""
    return str.lower if conn.dialect.name == _MYSQL else str


def inserts_return_rows(conn) -> bool:
    """Whether an INSERT (INSERT ... SELECT included) can return the
    rows it made (INSERT ... RETURNING: MariaDB 10.5+, PostgreSQL,
    SQLite 3.35+)."""
    return bool(conn.dialect.insert_returning)


def updates_return_ids(conn) -> bool:
    """Whether ``updated_row_id`` works on this database (UPDATE ...
    RETURNING, or MySQL's LAST_INSERT_ID(expr))."""
    return bool(conn.dialect.update_returning) or conn.dialect.name == _MYSQL


def writes_read_first(conn) -> bool:
    """Whether a write should begin with a (locking) read rather than an
    UPDATE: on a Galera session whose reads wait for the cluster
    (wsrep_sync_wait, the operator's read-your-writes across nodes), an
    UPDATE first does not wait, and behind a round-robin proxy missed a
    provider created through another node a moment before (404; seen once
    in the Galera round-robin test's setup)."""
    return driver.reads_wait_for_cluster(conn)


# {(UPDATE statement, id column, returning): the statement to run}
_ID_UPDATES = {}


def _id_update(stmt, id_column, returning):
    key = (stmt, id_column, returning)
    found = _ID_UPDATES.get(key)
    if found is None:
        if returning:
            found = stmt.returning(id_column)
        else:
            # The same value: the row is left as it was.
            found = stmt.values({id_column: sa.func.last_insert_id(
                id_column)})
        if len(_ID_UPDATES) > 64:
            _ID_UPDATES.clear()
        _ID_UPDATES[key] = found
    return found


def updated_row_id(conn, stmt, params, id_column) -> typing.Optional[int]:
    """Run ``stmt``, an UPDATE that matches at most one row, and return
    the ``id_column`` of the row it changed (None when none matched), in
    its one round trip: by RETURNING where the database has it, else
    (MySQL) in the statement's answer, by setting ``id = LAST_INSERT_ID(
    id)``. Only where ``updates_return_ids``. ``stmt`` is kept as a key:
    build it once.
    """
    returning = bool(conn.dialect.update_returning)
    result = conn.execute(_id_update(stmt, id_column, returning), params)
    if returning:
        row = result.first()
        return row[0] if row is not None else None
    return result.lastrowid if result.rowcount == 1 else None


def next_id(conn, column) -> typing.Optional[sa.ColumnElement]:
    """An expression that draws the next value of ``column``'s sequence
    inside a statement (PostgreSQL's serial columns), so that an INSERT
    can use its new row's id in another column; None where ids are only
    known once the row is in (AUTO_INCREMENT, SQLite's rowid). The same
    expression each time (a statement built on it can be kept)."""
    if conn.dialect.name != _POSTGRESQL:
        return None
    return _next_value(column)


@functools.cache
def _next_value(column):
    return sa.func.nextval(sa.func.pg_get_serial_sequence(
        column.table.name, column.name))


def checks_name_key_first(conn) -> bool:
    """Whether, in upstream's schema on this database, a new provider
    whose uuid and name are both taken breaks the name's unique key
    (PostgreSQL, as upstream reports it) rather than the uuid's."""
    return conn.dialect.name == _POSTGRESQL


def locks_hold_on_one_node(conn) -> bool:
    """Whether a row lock (SELECT ... FOR UPDATE) may hold only on the
    server that took it, as on a Galera cluster, where a transaction is
    certified against the rows others *changed*: a write that relies on
    a lock must then also change the locked rows. True on MySQL, which
    may be Galera."""
    return conn.dialect.name == _MYSQL


def allow_zero_ids(conn) -> None:
    """Let the INSERTs that follow, in this session, store 0 in an
    AUTO_INCREMENT column (MySQL would draw a new id instead)."""
    if conn.dialect.name == _MYSQL:
        conn.execute(sa.text(
            "SET SESSION sql_mode = CONCAT(@@sql_mode, "
            "',NO_AUTO_VALUE_ON_ZERO')"))


def repeatable_read(conn) -> None:
    """Make the current read transaction one snapshot for all its
    statements, read-only. Must be its first statement.

    PostgreSQL's default READ COMMITTED, and a MySQL/MariaDB server or
    session configured for it, take a snapshot per statement; this
    transaction is raised to REPEATABLE READ (MySQL's default). SQLite
    reads one snapshot per transaction already.
    """
    if conn.dialect.name in (_POSTGRESQL, _MYSQL):
        conn.execute(sa.text(
            'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY'))


def groups_whole_tables_cheaply(conn) -> bool:
    """Whether a GROUP BY over every row of a large table (all the
    allocations of a class) costs the server less than looking each
    group up on its own: PostgreSQL's hash aggregate does (at 1,000
    providers 6.8 -> 4.9 ms with 20 allocations, 69 -> 37 ms with
    20,000); MariaDB's goes through a temporary table (12 -> 27 ms)."""
    return conn.dialect.name == _POSTGRESQL


def never_reuses_ids(engine) -> bool:
    """Whether an id, once given to a row, is never given to another
    (MySQL/MariaDB and PostgreSQL: AUTO_INCREMENT and sequences); SQLite
    may give a deleted row's id to the next one. ``engine``: an Engine
    or Connection."""
    return engine.dialect.name in (_MYSQL, _POSTGRESQL)
