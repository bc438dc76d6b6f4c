"""Consumers and the rows they hang off: projects, users, consumer types.

Queries here take ``conn`` first and never begin or commit; the allocation
operations call them inside their one transaction. Projects, users and
consumer types are created on demand: an insert that loses a unique-key
race raises oslo.db's DBDuplicateEntry, and the caller retries the whole
operation (never a compensating delete).
"""
import dataclasses
import datetime
import typing

import sqlalchemy as sa

from placement.db import models
from placement import exception
from placement.objects import _sql

# How a consumer without a type (written before 1.38) is reported.
UNKNOWN_TYPE = 'unknown'


@dataclasses.dataclass(frozen=True)
class Consumer:
    id: int
    uuid: str
    project_id: str         # external id
    user_id: str            # external id
    generation: int
    consumer_type: typing.Optional[str]   # None when never set
    created_at: typing.Optional[datetime.datetime] = None
    updated_at: typing.Optional[datetime.datetime] = None

    @property
    def type_name(self) -> str:
        """The type as the API shows it (``unknown`` when never set)."""
        return self.consumer_type or UNKNOWN_TYPE


def select_consumers_stmt():
    """Consumers with their external project/user ids and type name.

    SELECT c.*, p.external_id, u.external_id, ct.name FROM consumers c
    JOIN projects p ON p.id = c.project_id
    JOIN users u ON u.id = c.user_id
    LEFT JOIN consumer_types ct ON ct.id = c.consumer_type_id
    """
    c = models.consumers
    p = models.projects
    u = models.users
    ct = models.consumer_types
    return sa.select(
        c.c.id, c.c.uuid, c.c.generation, c.c.created_at, c.c.updated_at,
        p.c.external_id.label('project_external_id'),
        u.c.external_id.label('user_external_id'),
        ct.c.name.label('consumer_type'),
    ).select_from(
        c.join(p, p.c.id == c.c.project_id)
         .join(u, u.c.id == c.c.user_id)
         .outerjoin(ct, ct.c.id == c.c.consumer_type_id))


def _consumer_from_row(row) -> Consumer:
    return Consumer(
        id=row.id, uuid=row.uuid, project_id=row.project_external_id,
        user_id=row.user_external_id, generation=row.generation,
        consumer_type=row.consumer_type, created_at=row.created_at,
        updated_at=row.updated_at)


def fetch_consumers_by_uuid(conn, uuids) -> typing.Dict[str, Consumer]:
    """{uuid: Consumer} for those of ``uuids`` that exist."""
    uuids = sorted(set(uuids))
    if not uuids:
        return {}
    c = models.consumers
    rows = conn.execute(select_consumers_stmt().where(c.c.uuid.in_(uuids)))
    return {row.uuid: _consumer_from_row(row) for row in rows}


def _ensure_names(conn, table, column, names) -> typing.Dict[str, int]:
    """{name: id} for ``names`` in ``table``, inserting the missing ones."""
    names = sorted(set(names))
    if not names:
        return {}
    col = table.c[column]
    found = {row[0]: row[1] for row in conn.execute(
        sa.select(col, table.c.id).where(col.in_(names)))}
    missing = [name for name in names if name not in found]
    now = _sql.utcnow()
    for name in missing:
        result = conn.execute(table.insert().values(
            {column: name, 'created_at': now}))
        found[name] = result.inserted_primary_key[0]
    return found


def ensure_projects(conn, external_ids) -> typing.Dict[str, int]:
    """{external project id: internal id}, creating missing projects."""
    return _ensure_names(conn, models.projects, 'external_id', external_ids)


def ensure_users(conn, external_ids) -> typing.Dict[str, int]:
    """{external user id: internal id}, creating missing users."""
    return _ensure_names(conn, models.users, 'external_id', external_ids)


def ensure_consumer_types(conn, names) -> typing.Dict[str, int]:
    """{type name: id}, creating missing consumer types."""
    return _ensure_names(conn, models.consumer_types, 'name', names)


@dataclasses.dataclass(frozen=True)
class ConsumerWrite:
    """What one allocation write sets on its consumer row.

    ``consumer_type_id`` None leaves an existing consumer's type alone
    (writes before 1.38 carry no type).
    """
    uuid: str
    project_id: int
    user_id: int
    consumer_type_id: typing.Optional[int]


def insert_consumer(conn, write: ConsumerWrite) -> None:
    """Create a consumer that this write already counts: generation 1.

    A concurrent creator of the same uuid makes this raise
    DBDuplicateEntry; the caller retries the whole operation.
    """
    now = _sql.utcnow()
    conn.execute(models.consumers.insert().values(
        uuid=write.uuid, project_id=write.project_id, user_id=write.user_id,
        consumer_type_id=write.consumer_type_id, generation=1,
        created_at=now, updated_at=now))


def update_consumer(conn, existing: Consumer, write: ConsumerWrite) -> None:
    """Compare-and-swap the consumer generation and set project/user/type.

    UPDATE consumers SET generation = :seen + 1, project_id = ..., ...
    WHERE id = :id AND generation = :seen

    Raise ConsumerGenerationConflict when another write got there first.
    """
    c = models.consumers
    values = dict(generation=existing.generation + 1,
                  project_id=write.project_id, user_id=write.user_id,
                  updated_at=_sql.utcnow())
    if write.consumer_type_id is not None:
        values['consumer_type_id'] = write.consumer_type_id
    result = conn.execute(
        c.update()
        .where(c.c.id == existing.id)
        .where(c.c.generation == existing.generation)
        .values(**values))
    if result.rowcount != 1:
        raise exception.ConsumerGenerationConflict(
            detail='expected %s but the consumer changed concurrently' %
            existing.generation)


def delete_consumers(conn, consumer_ids) -> None:
    """Delete consumer rows by internal id."""
    consumer_ids = sorted(set(consumer_ids))
    if consumer_ids:
        c = models.consumers
        conn.execute(c.delete().where(c.c.id.in_(consumer_ids)))


def delete_consumer_by_uuid(conn, uuid) -> None:
    """Delete one consumer row (if present) by its uuid."""
    c = models.consumers
    conn.execute(c.delete().where(c.c.uuid == uuid))
