"""Write the standard resource classes and traits into their tables.

Standard resource class ids are their index in ``os_resource_classes``;
standard traits get ordinary autoincrement ids. Run at every start, by
every worker: idempotent, and safe when several workers race.
"""
import time

import os_resource_classes
import os_traits
from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import backend
from placement.db import models
from placement.objects import _sql

LOG = logging.getLogger(__name__)


def _missing(conn, table, names):
    present = set(conn.execute(sa.select(table.c.name)).scalars())
    return [name for name in names if name not in present]


def _sync_resource_classes(conn):
    rows = [{'id': index, 'name': name, 'created_at': _sql.utcnow()}
            for index, name in enumerate(os_resource_classes.STANDARDS)]
    missing = set(_missing(conn, models.resource_classes,
                           [row['name'] for row in rows]))
    rows = [row for row in rows if row['name'] in missing]
    if not rows:
        return
    # VCPU's id is 0.
    backend.allow_zero_ids(conn)
    conn.execute(sa.insert(models.resource_classes), rows)


def _sync_traits(conn):
    missing = _missing(conn, models.traits, os_traits.get_traits())
    if missing:
        conn.execute(sa.insert(models.traits),
                     [{'name': name, 'created_at': _sql.utcnow()}
                      for name in missing])


_ATTEMPTS = 5


def _is_sqlite_busy(exc):
    # Two SQLite writers that both read first: one gets SQLITE_BUSY at
    # once (waiting could deadlock), whatever the busy timeout.
    return 'database is locked' in str(exc)


@db_api.operation
def _run_step(db, step, last_attempt):
    """One try of ``step``; False when another worker got in the way."""
    try:
        with db_api.transaction(db) as conn:
            step(conn)
        return True
    except db_exc.DBDuplicateEntry:
        # Another worker inserted the same rows first: look again.
        LOG.debug('Standard rows raced in %s; retrying', step.__name__)
    except (db_exc.DBError, sa.exc.OperationalError) as exc:
        if last_attempt or not _is_sqlite_busy(exc):
            raise
        LOG.debug('SQLite busy in %s; retrying', step.__name__)
    return False


def sync(db):
    """Make sure every standard class and trait has its row."""
    for step in (_sync_resource_classes, _sync_traits):
        for attempt in range(_ATTEMPTS):
            if _run_step(db, step, attempt == _ATTEMPTS - 1):
                break
            time.sleep(0.05 * (attempt + 1))
