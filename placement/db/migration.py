"""Schema migrations: upgrade, version, stamp, on a ``db.api.Database``.

The alembic revisions live in ``placement/db/alembic/versions`` with the
revision ids deployed databases already record in ``alembic_version``
(``spec/DATABASE.md``). Alembic runs on a connection we open; there is no
ini file.

Several workers may start at once with ``sync_on_startup``: on MySQL and
PostgreSQL an advisory lock makes them take turns (the later ones find the
schema at head and do nothing); on SQLite a racing loser re-checks the
version and accepts an upgrade someone else finished. Threads of one
process take turns on a plain lock (alembic keeps global state).
"""
import contextlib
import os
import threading
import time

from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from oslo_db import exception as db_exc
import sqlalchemy as sa

HEAD = 'head'
ALEMBIC_DIR = os.path.join(os.path.dirname(__file__), 'alembic')
# Held while migrating; any string both MySQL and PostgreSQL accept.
LOCK_NAME = 'placement_schema_migration'
LOCK_TIMEOUT_SECONDS = 300
_SQLITE_RETRIES = 5
# alembic's ``context`` and ``op`` are process globals: one run at a time.
_ALEMBIC_LOCK = threading.Lock()


def _config(conn):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', ALEMBIC_DIR)
    cfg.attributes['connection'] = conn
    return cfg


def script_directory():
    """The alembic ScriptDirectory of placement's revisions."""
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', ALEMBIC_DIR)
    return alembic_script.ScriptDirectory.from_config(cfg)


def head_revision() -> str:
    """The newest revision id."""
    return script_directory().get_current_head()


def _lock_key():
    # pg_advisory_lock takes a bigint; derive a stable one from the name.
    return int.from_bytes(LOCK_NAME.encode()[:8], 'big') & (2 ** 63 - 1)


@contextlib.contextmanager
def _schema_lock(conn):
    """Hold a server-side session lock around a migration (not SQLite)."""
    dialect = conn.dialect.name
    if dialect == 'mysql':
        got = conn.execute(sa.text('SELECT GET_LOCK(:name, :timeout)'),
                           {'name': LOCK_NAME,
                            'timeout': LOCK_TIMEOUT_SECONDS}).scalar()
        if got != 1:
            raise RuntimeError('Timed out waiting for the schema '
                               'migration lock %s' % LOCK_NAME)
        release = sa.text('SELECT RELEASE_LOCK(:name)')
        params = {'name': LOCK_NAME}
    elif dialect == 'postgresql':
        conn.execute(sa.text('SELECT pg_advisory_lock(:key)'),
                     {'key': _lock_key()})
        release = sa.text('SELECT pg_advisory_unlock(:key)')
        params = {'key': _lock_key()}
    else:
        release = None
    # The locks belong to the session, not to a transaction.
    conn.commit()
    try:
        yield
    finally:
        if release is not None:
            conn.rollback()
            conn.execute(release, params)
            conn.commit()


def _upgrade_once(db, revision):
    with _ALEMBIC_LOCK, db.writer.connect() as conn:
        with _schema_lock(conn):
            command.upgrade(_config(conn), revision)
            conn.commit()


def _is_at(db, revision):
    current = version(db)
    if revision == HEAD:
        return current == head_revision()
    return current == revision


def upgrade(db, revision: str = HEAD) -> None:
    """Bring the schema to ``revision`` (default: head).

    Idempotent: a database already there is left untouched. Raises the
    failing revision's exception (for example a blocked data check).
    """
    for attempt in range(_SQLITE_RETRIES):
        try:
            _upgrade_once(db, revision)
            return
        except (sa.exc.DBAPIError, db_exc.DBError):
            # Only SQLite races (no lock): maybe another process won.
            if db.dialect != 'sqlite' or attempt == _SQLITE_RETRIES - 1:
                raise
            if _is_at(db, revision):
                return
            time.sleep(0.2 * (attempt + 1))


def version(db) -> str:
    """The current revision id, or None for a database never migrated."""
    with db.writer.connect() as conn:
        context = alembic_migration.MigrationContext.configure(conn)
        return context.get_current_revision()


def stamp(db, revision: str) -> None:
    """Record ``revision`` in alembic_version without running migrations."""
    with _ALEMBIC_LOCK, db.writer.connect() as conn:
        command.stamp(_config(conn), revision)
        conn.commit()
