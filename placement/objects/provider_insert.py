"""The INSERT of a new provider in one statement where the database can.

A child row needs its parent's id and root id, and the answer needs the
parent's and root's uuids: where INSERT ... RETURNING exists (MariaDB
10.5+, PostgreSQL, SQLite 3.35+: SQLAlchemy's ``insert_returning``), the
INSERT takes them from a SELECT of the parent and returns them, instead
of a SELECT before the INSERT. A root must point at its own id: where
the INSERT can draw the id itself (backend.next_id: PostgreSQL's
sequences) it does; elsewhere an UPDATE after the INSERT sets it
(resource_provider._insert_provider).
Queries only: ``conn`` first, no transaction begun or ended here.
"""
import functools

import sqlalchemy as sa

from placement.db import backend
from placement.db import models

_COLUMNS = ('uuid', 'name', 'generation', 'created_at', 'updated_at',
            'parent_provider_id', 'root_provider_id')


def child_in_one_statement(conn) -> bool:
    """The version gate: INSERT ... SELECT ... RETURNING is available.

    On MariaDB that statement takes the table's AUTO-INC lock; raced by
    the parent's DELETE it can be the deadlock victim, reported as error
    1467, which the retry policy runs again as any lost race (the next
    attempt finds the parent gone: ObjectActionError, as upstream).
    """
    return backend.inserts_return_rows(conn)


def root_in_one_statement(conn) -> bool:
    """The root's own id is known inside its INSERT (a sequence)."""
    return backend.next_id(conn, models.resource_providers.c.id) is not None


def _values(parent_id, root_id):
    rp = models.resource_providers
    return (sa.bindparam('uuid', type_=rp.c.uuid.type),
            sa.bindparam('name', type_=rp.c.name.type),
            sa.literal_column('0', sa.Integer),
            sa.bindparam('now', type_=rp.c.created_at.type),
            sa.bindparam('updated_at', type_=rp.c.updated_at.type),
            parent_id, root_id)


@functools.cache
def _insert_child_stmt():
    """INSERT INTO resource_providers (...)
    SELECT :uuid, :name, 0, :now, NULL, parent.id, parent.root_provider_id
    FROM resource_providers AS parent WHERE parent.uuid = :parent_uuid
    RETURNING id, (SELECT uuid ... WHERE id = parent_provider_id),
              (SELECT uuid ... WHERE id = root_provider_id)
    """
    rp = models.resource_providers
    parent = rp.alias('parent')
    other = rp.alias('other')

    def uuid_of(column):
        # Named by hand: SQLAlchemy does not correlate a RETURNING
        # subquery with the INSERT's table.
        inserted = sa.literal_column('%s.%s' % (rp.name, column.name))
        return (sa.select(other.c.uuid).where(other.c.id == inserted)
                .scalar_subquery())
    select = sa.select(*_values(parent.c.id, parent.c.root_provider_id)
                       ).where(parent.c.uuid == sa.bindparam('parent_uuid'))
    return rp.insert().from_select(_COLUMNS, select).returning(
        rp.c.id, rp.c.parent_provider_id, rp.c.root_provider_id,
        uuid_of(rp.c.parent_provider_id).label('parent_uuid'),
        uuid_of(rp.c.root_provider_id).label('root_uuid'))


def insert_child(conn, uuid, name, now, parent_uuid):
    """The new row's (id, parent_provider_id, root_provider_id,
    parent_uuid, root_uuid), or None when no provider has
    ``parent_uuid``. Only where ``child_in_one_statement``."""
    return conn.execute(_insert_child_stmt(), {
        'uuid': uuid, 'name': name, 'now': now, 'updated_at': None,
        'parent_uuid': parent_uuid}).first()


@functools.cache
def _insert_root_stmt(new_id):
    """INSERT INTO resource_providers (id, ..., root_provider_id)
    SELECT new.id, :uuid, :name, 0, :now, :now, NULL, new.id
    FROM (SELECT <new_id> AS id) AS new
    RETURNING id

    ``new_id`` draws the next id (backend.next_id: PostgreSQL's
    nextval(<the id column's sequence>)).
    """
    rp = models.resource_providers
    new = sa.select(new_id.label('id')).subquery('new')
    select = sa.select(new.c.id, *_values(sa.null(), new.c.id))
    return rp.insert().from_select(('id',) + _COLUMNS, select).returning(
        rp.c.id)


def insert_root(conn, uuid, name, now):
    """The new root's id. Only where ``root_in_one_statement``."""
    stmt = _insert_root_stmt(backend.next_id(
        conn, models.resource_providers.c.id))
    return conn.execute(stmt, {
        'uuid': uuid, 'name': name, 'now': now,
        'updated_at': now}).scalar_one()
