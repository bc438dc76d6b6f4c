"""Resource classes: name and id lookups, and the class operations.

Standard class ids are their index in ``os_resource_classes.STANDARDS``
and are immutable; custom classes (``CUSTOM_*``) get ids from 10000
upwards, computed as max + 1 inside the creating transaction.
"""
import dataclasses
import datetime
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import landed

CUSTOM_ID_START = 10000


def fetch_ids_by_name(conn, names) -> dict:
    """{name: id} for ``names``; raise ResourceClassNotFound for any
    missing one (the first, alphabetically, named in the message).
    """
    found, missing = _sql.fetch_ids_by_name(conn, models.resource_classes,
                                            names)
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])
    return found


def fetch_names_by_id(conn) -> dict:
    """{id: name} of every resource class."""
    rc = models.resource_classes
    return {row.id: row.name
            for row in conn.execute(sa.select(rc.c.id, rc.c.name))}


# --- the resource class entity and its operations ------------------------

@dataclasses.dataclass(frozen=True)
class ResourceClass:
    id: int
    name: str
    created_at: typing.Optional[datetime.datetime] = None
    updated_at: typing.Optional[datetime.datetime] = None

    @property
    def is_standard(self) -> bool:
        return self.id < CUSTOM_ID_START


def _select_stmt():
    rc = models.resource_classes
    return sa.select(rc.c.id, rc.c.name, rc.c.created_at, rc.c.updated_at)


def _from_row(row):
    return ResourceClass(id=row.id, name=row.name,
                         created_at=row.created_at, updated_at=row.updated_at)


def fetch_by_name(conn, name) -> ResourceClass:
    """The class called ``name``; raise ResourceClassNotFound."""
    row = conn.execute(_select_stmt().where(
        models.resource_classes.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    return _from_row(row)


def fetch_all(conn) -> list:
    """Every class, standard ones first, in id order."""
    rows = conn.execute(_select_stmt().order_by(models.resource_classes.c.id))
    return [_from_row(row) for row in rows]


def next_custom_id(conn) -> int:
    """max(id) + 1 over the custom range, at least CUSTOM_ID_START.

    SELECT MAX(id) FROM resource_classes WHERE id >= 10000
    Two writers may compute the same id; the primary key refuses the second
    and the operation is retried.
    """
    rc = models.resource_classes
    top = conn.execute(sa.select(sa.func.max(rc.c.id))
                       .where(rc.c.id >= CUSTOM_ID_START)).scalar()
    return CUSTOM_ID_START if top is None else top + 1


def _is_in_use(conn, rc_id):
    """True when an inventory (or, defensively, an allocation) uses it."""
    for table in (models.inventories, models.allocations):
        found = conn.execute(sa.select(table.c.id)
                             .where(table.c.resource_class_id == rc_id)
                             .limit(1)).first()
        if found is not None:
            return True
    return False


@db_api.operation
def list_resource_classes(ctx) -> list:
    """Every resource class, standard and custom."""
    with db_api.reader(ctx, snapshot=False) as conn:
        return fetch_all(conn)


@db_api.operation
def get_by_name(ctx, name) -> ResourceClass:
    """One class by name; raise ResourceClassNotFound."""
    with db_api.reader(ctx, snapshot=False) as conn:
        return fetch_by_name(conn, name)


def _insert(conn, name):
    rc_id = next_custom_id(conn)
    now = _sql.utcnow()
    conn.execute(sa.insert(models.resource_classes).values(
        id=rc_id, name=name, created_at=now))
    return ResourceClass(id=rc_id, name=name, created_at=now)


# Two writers reading the same max(id) collide on a duplicate key: the
# retry looks again, and a duplicate *name* then shows up as
# ResourceClassExists (or as 'already there' for ensure).
@db_api.operation(on_duplicate='retry')
def create(ctx, name) -> ResourceClass:
    """Create custom class ``name``; raise ResourceClassExists."""
    with db_api.transaction(ctx) as conn:
        if _exists(conn, name):
            raise exception.ResourceClassExists(name=name)
        landed.expect_row(models.resource_classes.c.name, name, True,
                          lambda found: fetch_by_name(found, name))
        return _insert(conn, name)


# Two writers reading the same max(id) collide on a duplicate key: the
# retry looks again, and a duplicate *name* then shows up as
# ResourceClassExists (or as 'already there' for ensure).
@db_api.operation(on_duplicate='retry')
def ensure(ctx, name) -> bool:
    """Create custom class ``name`` unless present; True when created."""
    with db_api.transaction(ctx) as conn:
        if _exists(conn, name):
            return False
        landed.expect_row(models.resource_classes.c.name, name, True,
                          lambda found: True)
        _insert(conn, name)
        return True


def _exists(conn, name):
    rc = models.resource_classes
    return conn.execute(sa.select(rc.c.id).where(rc.c.name == name)
                        ).first() is not None


# Two writers reading the same max(id) collide on a duplicate key: the
# retry looks again, and a duplicate *name* then shows up as
# ResourceClassExists (or as 'already there' for ensure).
@db_api.operation(on_duplicate='retry')
def rename(ctx, name, new_name) -> ResourceClass:
    """Rename a custom class (the 1.2 - 1.6 API); return it renamed.

    Raises ResourceClassNotFound, ResourceClassCannotUpdateStandard,
    ResourceClassExists (another class has ``new_name``). Renaming to the
    same name changes nothing.
    """
    with db_api.transaction(ctx) as conn:
        current = fetch_by_name(conn, name)
        if current.is_standard:
            raise exception.ResourceClassCannotUpdateStandard(name=name)
        if new_name == name:
            return current
        if _exists(conn, new_name):
            raise exception.ResourceClassExists(name=new_name)
        now = _sql.utcnow()
        rc = models.resource_classes
        conn.execute(rc.update().where(rc.c.id == current.id)
                     .values(name=new_name, updated_at=now))
        landed.expect_row(rc.c.name, name, False,
                          lambda found: fetch_by_name(found, new_name))
        return dataclasses.replace(current, name=new_name, updated_at=now)


@db_api.operation
def delete(ctx, name) -> None:
    """Delete a custom class nothing uses.

    Raises ResourceClassNotFound, ResourceClassCannotDeleteStandard,
    ResourceClassInUse.
    """
    with db_api.transaction(ctx) as conn:
        current = fetch_by_name(conn, name)
        if current.is_standard:
            raise exception.ResourceClassCannotDeleteStandard(name=name)
        if _is_in_use(conn, current.id):
            raise exception.ResourceClassInUse(name=name)
        rc = models.resource_classes
        conn.execute(rc.delete().where(rc.c.id == current.id))
        landed.expect_row(rc.c.id, current.id, False)
