"""A provider's generation compare-and-swap by uuid, in one statement.

A write that was given the generation it saw used to lock and read the
provider row (SELECT ... FOR UPDATE: its id), then swap the generation
(UPDATE ... WHERE id AND generation). The UPDATE alone, by uuid, locks
the row just as well and tells the swap's outcome; what the write still
needs is the row's id:

- where UPDATE ... RETURNING exists (PostgreSQL, SQLite 3.35+:
  SQLAlchemy's ``update_returning``), the UPDATE returns it;
- on MySQL/MariaDB the UPDATE sets ``id = LAST_INSERT_ID(id)`` (the same
  value: the row does not change), which puts the id in the statement's
  OK packet (the cursor's ``lastrowid``) with no other round trip.

When no row matched, a locking read tells a missing provider (404) from
a stale generation (409), as before. A uuid not in canonical lower case
takes the former two statements (the answer then names the stored uuid),
and so does a seen generation the column cannot hold: no row has it, and
the locking read's comparison answers 409 where binding it would make
PostgreSQL refuse the statement (integer out of range), as upstream does.
Queries only: ``conn`` first, no transaction begun or ended here.
"""
import functools

import sqlalchemy as sa

from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import resource_provider as rp_obj


# The values of resource_providers.generation (a signed 32-bit INTEGER),
# less the last one: a swap from it could not store the next.
_GENERATIONS = (-2 ** 31, 2 ** 31 - 1)


@functools.cache
def _swap_stmt(returning: bool):
    """UPDATE resource_providers SET generation = :new, updated_at = :now
           [, id = LAST_INSERT_ID(id)]
    WHERE uuid = :rp_uuid AND generation = :seen [RETURNING id]
    """
    rp = models.resource_providers
    stmt = (rp.update()
            .where(rp.c.uuid == sa.bindparam('rp_uuid'))
            .where(rp.c.generation == sa.bindparam('seen'))
            .values(generation=sa.bindparam('new'),
                    updated_at=sa.bindparam('now')))
    if returning:
        return stmt.returning(rp.c.id)
    return stmt.values(id=sa.func.last_insert_id(rp.c.id))


def _swap_by_uuid(conn):
    """Which swap this database takes: None for the two statements,
    else whether the id comes back by RETURNING (True) or in the OK
    packet (False, MySQL)."""
    if conn.dialect.update_returning:
        return True
    if conn.dialect.name == 'mysql':
        return False
    return None


def lock_and_bump(conn, uuid, seen_generation):
    """(rp_obj.LockedProvider as read, new generation): the provider
    ``uuid`` at ``seen_generation`` locked and its generation bumped.

    Raise ResourceProviderNotFound, or ResourceProviderGenerationConflict
    when the generation is not ``seen_generation``.
    """
    returning = _swap_by_uuid(conn)
    if (returning is None or uuid != uuid.lower()
            or not _GENERATIONS[0] <= seen_generation < _GENERATIONS[1]):
        provider = rp_obj.fetch_locked_provider(conn, uuid, seen_generation)
        return provider, rp_obj.bump_generation(conn, provider.id,
                                                provider.generation)
    new_generation = seen_generation + 1
    result = conn.execute(_swap_stmt(returning), {
        'rp_uuid': uuid, 'seen': seen_generation, 'new': new_generation,
        'now': _sql.utcnow()})
    if returning:
        row = result.first()
        provider_id = row.id if row is not None else None
    else:
        provider_id = result.lastrowid if result.rowcount == 1 else None
    if provider_id is None:
        # Raises NotFound, or Conflict for a generation other than seen.
        rp_obj.fetch_locked_provider(conn, uuid, seen_generation)
        raise exception.ResourceProviderGenerationConflict()
    return (rp_obj.LockedProvider(provider_id, uuid, seen_generation),
            new_generation)
