"""Online data migrations and the counts the upgrade checks report.

Rows written by old releases may lack a root provider id or a consumer
record; the schema revisions 611cd6dffd7b and b5c396305c25 refuse to run
until these functions have fixed them. Each migration runs in its own
transaction, touches at most ``batch_size`` rows and returns
``(found, done)`` as ``placement-manage db online_data_migrations``
reports them.
"""
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import _sql

_RP = models.resource_providers
_ALLOC = models.allocations
_CONSUMER = models.consumers


def _orphan_allocations():
    """allocations LEFT OUTER JOIN consumers ON consumer_id = uuid."""
    return _ALLOC.outerjoin(_CONSUMER,
                            _ALLOC.c.consumer_id == _CONSUMER.c.uuid)


@db_api.operation
def count_missing_root_provider_ids(db) -> int:
    """How many providers have no root_provider_id."""
    with db_api.reader(db) as conn:
        return conn.execute(
            sa.select(sa.func.count()).select_from(_RP)
            .where(_RP.c.root_provider_id.is_(None))).scalar()


@db_api.operation
def count_incomplete_consumers(db) -> int:
    """How many distinct allocation consumers have no consumers row."""
    with db_api.reader(db) as conn:
        return conn.execute(
            sa.select(sa.func.count(sa.distinct(_ALLOC.c.consumer_id)))
            .select_from(_orphan_allocations())
            .where(_CONSUMER.c.id.is_(None))).scalar()


def _resolve_roots(rows, parent_roots):
    """{provider id: root id} for the rows whose root can be known: self
    without a parent, else the parent's root (stored, or found in this
    batch). Children of still root-less parents wait for a later batch."""
    known = {rp_id: root_id for rp_id, root_id in parent_roots.items()
             if root_id is not None}
    resolved = {}
    pending = list(rows)
    while pending:
        waiting = []
        for row in pending:
            if row.parent_provider_id is None:
                resolved[row.id] = known[row.id] = row.id
            elif row.parent_provider_id in known:
                resolved[row.id] = known[row.id] = known[
                    row.parent_provider_id]
            else:
                waiting.append(row)
        if len(waiting) == len(pending):
            break
        pending = waiting
    return resolved


def _set_roots(conn, rows):
    """UPDATE each root-less provider that can be resolved; the count."""
    parents = {row.parent_provider_id for row in rows
               if row.parent_provider_id is not None}
    parent_roots = dict(conn.execute(
        sa.select(_RP.c.id, _RP.c.root_provider_id)
        .where(_RP.c.id.in_(parents))).tuples().all()) if parents else {}
    done = 0
    for rp_id, root_id in _resolve_roots(rows, parent_roots).items():
        done += conn.execute(
            sa.update(_RP)
            .where(_RP.c.id == rp_id, _RP.c.root_provider_id.is_(None))
            .values(root_provider_id=root_id,
                    updated_at=_sql.utcnow())).rowcount
    return done


@db_api.operation
def set_root_provider_ids(db, batch_size: int):
    """Give up to ``batch_size`` root-less providers their root id."""
    with db_api.transaction(db) as conn:
        rows = conn.execute(
            sa.select(_RP.c.id, _RP.c.parent_provider_id)
            .where(_RP.c.root_provider_id.is_(None))
            .order_by(_RP.c.id).limit(batch_size)).all()
        if not rows:
            return 0, 0
        return len(rows), _set_roots(conn, rows)


def _ensure_external_id(conn, table, external_id):
    """The id of ``table``'s row for ``external_id``, inserted if new."""
    query = sa.select(table.c.id).where(table.c.external_id == external_id)
    found = conn.execute(query).scalar()
    if found is not None:
        return found
    conn.execute(sa.insert(table).values(external_id=external_id,
                                         created_at=_sql.utcnow()))
    return conn.execute(query).scalar()


def select_incomplete_consumer_uuids_stmt():
    """The consumer uuids that have allocations but no consumers row.

    SELECT DISTINCT a.consumer_id FROM allocations a
    LEFT OUTER JOIN consumers c ON a.consumer_id = c.uuid
    WHERE c.id IS NULL ORDER BY a.consumer_id
    """
    return (sa.select(_ALLOC.c.consumer_id).distinct()
            .select_from(_orphan_allocations())
            .where(_CONSUMER.c.id.is_(None))
            .order_by(_ALLOC.c.consumer_id))


def insert_incomplete_consumers(conn, uuids, project_external_id,
                                user_external_id) -> None:
    """Insert consumers rows (generation 0) for ``uuids``, owned by the
    given external project and user (their rows created if missing).

    A consumer created meanwhile by another writer makes this raise
    DBDuplicateEntry; the caller's transaction then rolls back.
    """
    project_id = _ensure_external_id(conn, models.projects,
                                     project_external_id)
    user_id = _ensure_external_id(conn, models.users, user_external_id)
    now = _sql.utcnow()
    conn.execute(sa.insert(_CONSUMER), [
        {'uuid': uuid, 'project_id': project_id, 'user_id': user_id,
         'generation': 0, 'created_at': now} for uuid in uuids])


@db_api.operation
def create_incomplete_consumers(db, batch_size: int, project_external_id,
                                user_external_id):
    """Create consumers rows for up to ``batch_size`` consumer uuids that
    have allocations but no record, owned by the configured incomplete
    project and user (``[placement] incomplete_consumer_*_id``)."""
    with db_api.transaction(db) as conn:
        uuids = conn.execute(select_incomplete_consumer_uuids_stmt()
                             .limit(batch_size)).scalars().all()
        if not uuids:
            return 0, 0
        insert_incomplete_consumers(conn, uuids, project_external_id,
                                    user_external_id)
        return len(uuids), len(uuids)
