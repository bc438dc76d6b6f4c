"""A provider's generation compare-and-swap by uuid, in one statement.

A write that was given the generation it saw used to lock and read the
provider row (SELECT ... FOR UPDATE: its id), then swap the generation
(UPDATE ... WHERE id AND generation). The UPDATE alone, by uuid, locks
the row just as well and tells the swap's outcome; what the write still
needs is the row's id, which ``backend.updated_row_id`` gets back in
the UPDATE's own round trip (RETURNING, or MySQL's LAST_INSERT_ID(id)).

When no row matched, a locking read tells a missing provider (404) from
a stale generation (409), as before. A uuid not in canonical lower case
takes the former two statements (the answer then names the stored uuid),
and so does a seen generation the column cannot hold: no row has it, and
the locking read's comparison answers 409 where binding it would make
PostgreSQL refuse the statement (integer out of range), as upstream does.
Queries only: ``conn`` first, no transaction begun or ended here.
"""
import sqlalchemy as sa

from placement.db import backend
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import resource_provider as rp_obj


# The values of resource_providers.generation (a signed 32-bit INTEGER),
# less the last one: a swap from it could not store the next.
_GENERATIONS = (-2 ** 31, 2 ** 31 - 1)


def _swap_stmt():
    """UPDATE resource_providers SET generation = :new, updated_at = :now
    WHERE uuid = :rp_uuid AND generation = :seen
    (the id back: backend.updated_row_id)
    """
    rp = models.resource_providers
    return (rp.update()
            .where(rp.c.uuid == sa.bindparam('rp_uuid'))
            .where(rp.c.generation == sa.bindparam('seen'))
            .values(generation=sa.bindparam('new'),
                    updated_at=sa.bindparam('now')))


_SWAP = _swap_stmt()


def lock_and_bump(conn, uuid, seen_generation):
    """(rp_obj.LockedProvider as read, new generation): the provider
    ``uuid`` at ``seen_generation`` locked and its generation bumped.

    Raise ResourceProviderNotFound, or ResourceProviderGenerationConflict
    when the generation is not ``seen_generation``.
    """
    if (not backend.updates_return_ids(conn)
            or backend.writes_read_first(conn) or uuid != uuid.lower()
            or not _GENERATIONS[0] <= seen_generation < _GENERATIONS[1]):
        provider = rp_obj.fetch_locked_provider(conn, uuid, seen_generation)
        return provider, rp_obj.bump_generation(conn, provider.id,
                                                provider.generation)
    new_generation = seen_generation + 1
    provider_id = backend.updated_row_id(conn, _SWAP, {
        'rp_uuid': uuid, 'seen': seen_generation, 'new': new_generation,
        'now': _sql.utcnow()}, models.resource_providers.c.id)
    if provider_id is None:
        # Raises NotFound, or Conflict for a generation other than seen.
        rp_obj.fetch_locked_provider(conn, uuid, seen_generation)
        raise exception.ResourceProviderGenerationConflict()
    return (rp_obj.LockedProvider(provider_id, uuid, seen_generation),
            new_generation)
