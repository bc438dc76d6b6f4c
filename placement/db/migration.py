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

alembic (with mako, pygments and SQLAlchemy's dialect modules for every
backend behind it: ~25 MiB) is imported by the functions that use it, not
by this module. ``upgrade_in_child`` runs the upgrade of
``sync_on_startup`` in a forked process, so that the serving process never
imports it at all.
"""
import contextlib
import logging as std_logging
import os
import sys
import threading
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

LOG = logging.getLogger(__name__)

HEAD = 'head'
ALEMBIC_DIR = os.path.join(os.path.dirname(__file__), 'alembic')
# Held while migrating; any string both MySQL and PostgreSQL accept.
LOCK_NAME = 'placement_schema_migration'
LOCK_TIMEOUT_SECONDS = 300
_SQLITE_RETRIES = 5
# alembic's ``context`` and ``op`` are process globals: one run at a time.
_ALEMBIC_LOCK = threading.Lock()


class _RevisionsOnly(std_logging.Filter):
    """Keep alembic's "Running upgrade a -> b" lines, which say what a
    sync changed; drop the two it logs on every run ("Context impl
    SQLiteImpl.", "Will assume non-transactional DDL."), unless debug
    logging is on."""

    CHATTER = ('Context impl ', 'Will assume ')

    def filter(self, record):
        return (not str(record.msg).startswith(self.CHATTER)
                or std_logging.getLogger(record.name).isEnabledFor(
                    std_logging.DEBUG))


_REVISIONS_ONLY = _RevisionsOnly()


def _config(conn):
    from alembic import config as alembic_config
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', ALEMBIC_DIR)
    cfg.attributes['connection'] = conn
    return cfg


def script_directory():
    """The alembic ScriptDirectory of placement's revisions."""
    from alembic import config as alembic_config
    from alembic import script as alembic_script
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
    from alembic import command
    # (Adding the same filter again is a no-op.)
    std_logging.getLogger('alembic.runtime.migration').addFilter(
        _REVISIONS_ONLY)
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
    from alembic import migration as alembic_migration
    with db.writer.connect() as conn:
        context = alembic_migration.MigrationContext.configure(conn)
        return context.get_current_revision()


def stamp(db, revision: str) -> None:
    """Record ``revision`` in alembic_version without running migrations."""
    from alembic import command
    with _ALEMBIC_LOCK, db.writer.connect() as conn:
        command.stamp(_config(conn), revision)
        conn.commit()


class MigrationFailed(Exception):
    """The upgrade in the child process of ``upgrade_in_child`` failed."""


_CHILD_OK = b'OK'


def _in_memory(url):
    # An in-memory SQLite database exists only in the engine that made it:
    # a child's own engine would migrate another, empty, database.
    url = sa.engine.make_url(url)
    return (url.get_backend_name() == 'sqlite' and
            url.database in (None, '', ':memory:'))


def _child_upgrade(conf, revision, pipe):
    """In the forked child: migrate on a new engine, report, and exit."""
    # Never returns: os._exit skips the parent's atexit handlers and
    # buffered output, and leaves the parent's pooled connections (the
    # sockets are shared with the parent) alone.
    status = 1
    try:
        from placement.db import api as db_api
        own = db_api.create_database(conf, reader=False)
        try:
            upgrade(own, revision)
        finally:
            own.dispose()
        os.write(pipe, _CHILD_OK)
        status = 0
    except BaseException as exc:
        try:
            LOG.exception('Database migration to %s failed', revision)
            os.write(pipe, ('%s: %s' % (type(exc).__name__, exc)).encode(
                'utf-8', 'replace')[:60000])
        except BaseException:
            pass
    finally:
        os._exit(status)


def _other_threads():
    """True when another thread has run Python code in this process.

    Forking then is unsafe: the child gets every lock another thread held
    at that instant (logging, imports, a connection pool) and can wait on
    it forever, and a sibling thread's fork can keep this one's pipe open.
    An application loaded before a server starts its threads (uwsgi,
    gunicorn) is single-threaded here; one loaded on a request thread
    (mod_wsgi, tests starting several apps at once) migrates in-process.
    """
    return len(sys._current_frames()) > 1


def upgrade_in_child(conf, db, revision: str = HEAD) -> None:
    """``upgrade(db, revision)``, run in a forked child process.

    The child opens its own engine from ``conf`` (never a connection of
    ``db``'s pool, which stays the parent's), migrates, and exits; the
    parent waits and raises MigrationFailed with the child's error. So
    the process that goes on to serve requests never imports alembic.
    Without ``os.fork``, for an in-memory SQLite database, when ``conf``
    names no database (``db`` was made otherwise), or when other threads
    run (see _other_threads), the upgrade runs here on ``db``.
    """
    url = conf.placement_database.connection
    if (not url or not hasattr(os, 'fork') or _in_memory(url)
            or _other_threads()):
        upgrade(db, revision)
        return
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:
        os.close(read_end)
        _child_upgrade(conf, revision, write_end)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, 'rb') as reader:
        while True:
            chunk = reader.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
    report = b''.join(chunks)
    try:
        _pid, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        # Reaped by someone else (SIGCHLD ignored): trust the report.
        code = 0 if report == _CHILD_OK else None
    if report != _CHILD_OK or code != 0:
        raise MigrationFailed(
            'Database migration to %s failed in child process %d '
            '(exit code %s): %s' % (
                revision, pid, code,
                report.decode('utf-8', 'replace') or 'no report'))
