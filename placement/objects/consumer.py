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

from placement.db import in_lists
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


def consumer_from_row(row) -> Consumer:
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
    return {row.uuid: consumer_from_row(row) for row in rows}


# (kind, table, name column) of the rows an allocation write names.
# Resource classes must exist; the others are created on demand.
_NAMED = (
    ('class', models.resource_classes, 'name'),
    ('project', models.projects, 'external_id'),
    ('user', models.users, 'external_id'),
    ('type', models.consumer_types, 'name'),
)
_CREATED_ON_DEMAND = _NAMED[1:]


@dataclasses.dataclass(frozen=True)
class Names:
    """{name: internal id} of what an allocation write refers to."""
    classes: typing.Dict[str, int]
    projects: typing.Dict[str, int]
    users: typing.Dict[str, int]
    types: typing.Dict[str, int]


def named_id_selects(sizes, padding=()):
    """The four lookups, one SELECT each, each followed by the columns of
    ``padding`` (for a wider UNION); ``sizes``: {kind: its IN list's
    size (db.in_lists)}, bound with ``named_values``.

    SELECT 'class', name, id FROM resource_classes
    WHERE name IN (:class_0, ...)
    """
    return [
        sa.select(sa.literal(kind, sa.String).label('kind'),
                  sa.cast(table.c[column], sa.String(255)).label('name'),
                  table.c.id, *padding)
        .where(in_lists.in_(table.c[column], kind, sizes[kind]))
        for kind, table, column in _NAMED]


def named_values(classes, projects, users, types) -> dict:
    """{kind: its values} of ``named_id_selects``: db.in_lists.size and
    bind_all them."""
    return {'class': sorted(set(classes)), 'project': sorted(set(projects)),
            'user': sorted(set(users)), 'type': sorted(set(types))}


def names_from_rows(rows) -> Names:
    """Names from rows of ``named_id_selects`` (kind, name, id)."""
    found = {'class': {}, 'project': {}, 'user': {}, 'type': {}}
    for row in rows:
        found[row.kind][row.name] = row.id
    return Names(found['class'], found['project'], found['user'],
                 found['type'])


_INSERT_CONSUMERS = models.consumers.insert()


def insert_consumers(conn, writes) -> None:
    """Create consumers that this write already counts: generation 1, one
    multi-row INSERT.

    A concurrent creator of the same uuid makes this raise
    DBDuplicateEntry; the caller retries the whole operation.
    """
    if not writes:
        return
    now = _sql.utcnow()
    conn.execute(_INSERT_CONSUMERS, [
        dict(uuid=write.uuid, project_id=write.project_id,
             user_id=write.user_id, consumer_type_id=write.consumer_type_id,
             generation=1, created_at=now, updated_at=now)
        for write in writes])


def _insert_missing(conn, table, column, wanted, found, now):
    """Insert the names of ``wanted`` that ``found`` lacks, adding them
    to ``found``.

    A name the database holds under another spelling maps to that row
    instead: an insert would be a duplicate there (MySQL's utf8
    collations ignore case, accents and trailing spaces). The database's
    collation decides, asked one name at a time before its insert, only
    where an insert could meet such a row: the lookup returned a
    spelling not asked for, or several names are new (the second may
    equal the first once inserted).
    """
    missing = sorted(set(wanted) - set(found))
    ask = len(missing) > 1 or not set(found) <= set(wanted)
    for name in missing:
        row_id = None
        if ask:
            row_id = conn.execute(sa.select(table.c.id).where(
                table.c[column] == name)).scalar()
        if row_id is None:
            row_id = conn.execute(table.insert().values(
                {column: name, 'created_at': now})).inserted_primary_key[0]
        found[name] = row_id


def ensure_owners(conn, names: Names, projects, users, types) -> Names:
    """``names`` plus the projects, users and types it lacked, inserted.

    An insert that loses a race raises DBDuplicateEntry: the caller
    retries its whole transaction.
    """
    found = {'project': dict(names.projects), 'user': dict(names.users),
             'type': dict(names.types)}
    wanted = {'project': set(projects), 'user': set(users),
              'type': set(types)}
    now = _sql.utcnow()
    for kind, table, column in _CREATED_ON_DEMAND:
        _insert_missing(conn, table, column, wanted[kind], found[kind], now)
    return Names(names.classes, found['project'], found['user'],
                 found['type'])


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


def delete_consumer(conn, existing: Consumer) -> None:
    """Compare-and-swap delete of a consumer whose allocations go.

    DELETE FROM consumers WHERE id = :id AND generation = :seen

    Raise ConsumerGenerationConflict when another write got there first
    (the providers it only lost allocations on are not bumped, so this is
    what stops two writers of one consumer from both committing).
    """
    c = models.consumers
    result = conn.execute(
        c.delete()
        .where(c.c.id == existing.id)
        .where(c.c.generation == existing.generation))
    if result.rowcount != 1:
        raise exception.ConsumerGenerationConflict(
            detail='expected %s but the consumer changed concurrently' %
            existing.generation)


def delete_consumer_by_uuid(conn, uuid) -> None:
    """Delete one consumer row (if present) by its uuid."""
    c = models.consumers
    conn.execute(c.delete().where(c.c.uuid == uuid))
