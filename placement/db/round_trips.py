"""The ROLLBACK a MySQL driver would send after a COMMIT, skipped with
SQLAlchemy's public pool options.

A MySQL driver (PyMySQL) sends a ROLLBACK whenever it is asked to,
transaction or not, and the pool asks each time it takes a connection
back. Right after a COMMIT (or a ROLLBACK) no transaction is open:
that ROLLBACK is a round trip for nothing, one of a claim's few. On a
shared host a round trip costs a request far more than its CPU (the
database server must be scheduled).

The engine's pool resets nothing itself (``pool_reset_on_return=None``,
given by ``db.engine.Plugin``); its ``reset`` event (``add_events``)
rolls back, as the pool would have, unless the Connection rolled back
already (``reset_state.transaction_was_reset``) or the transaction's
COMMIT or ROLLBACK has just succeeded (``ended``). No statement is
changed, none is added, and every statement is sent on its own (no
connection takes stacked statements).
"""
import sqlalchemy as sa

# Connection record info: the last thing done on the connection was a
# COMMIT or ROLLBACK that succeeded; popped by the next reset.
_ENDED_KEY = 'placement.ended'


def ended(conn) -> None:
    """Say that ``conn``'s transaction has just ended (COMMIT or ROLLBACK
    succeeded), and that ``conn`` goes back to the pool with no statement
    after it: the pool's reset then sends no ROLLBACK."""
    conn.info[_ENDED_KEY] = True


def _reset(dbapi_connection, connection_record, reset_state):
    """The pool's reset: the DB-API ``rollback()``, unless the
    transaction is over already."""
    over = connection_record is not None and connection_record.info.pop(
        _ENDED_KEY, False)
    if over or reset_state.transaction_was_reset:
        return
    if reset_state.asyncio_safe:
        dbapi_connection.rollback()


def add_events(engine) -> None:
    """Reset ``engine``'s pooled connections as ``_reset`` does; for an
    engine made with ``pool_reset_on_return=None`` (db.engine)."""
    sa.event.listen(engine, 'reset', _reset)
