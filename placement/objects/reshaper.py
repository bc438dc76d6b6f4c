"""The reshaper: move inventory and the allocations that use it, atomically.

One transaction does, in order:

1. check that every named provider exists and its generation against the
   client's (409), then that every inventory's class exists,
2. give each provider with a new inventory an *interim* inventory, the
   union of its old and new classes (new values win), so that allocations
   can move onto the new classes before the old ones disappear,
3. replace the allocations of every named consumer (the same write path
   as POST /allocations: capacity, consumer generations, provider CAS),
4. set each provider's inventory to exactly the requested one; removing a
   class that still has allocations raises InventoryInUse.

Each inventory step compare-and-swaps the provider generation, so a
concurrent writer anywhere in the batch makes the whole reshape fail and
roll back; nothing is retried with the client's stale generations.
"""
import dataclasses
import typing

from placement.db import api as db_api
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import allocation as allocation_obj
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj


@dataclasses.dataclass(frozen=True)
class InventoryChange:
    """The complete inventory one provider should have after the reshape."""
    provider_uuid: str
    generation: int
    inventories: typing.Dict[str, inv_obj.Inventory]


def reshape(ctx, changes: typing.Sequence[InventoryChange],
            requests: typing.Sequence[allocation_obj.AllocationRequest],
            allow_reserved_equal_total: bool = True) -> None:
    """Replace inventories and allocations together; all or nothing.

    Opens its own transaction. Raises ResourceProviderNotFound (a provider
    in ``changes``), ResourceProviderGenerationConflict,
    ConsumerGenerationConflict, ResourceClassNotFound,
    InvalidInventoryCapacity*, AllocationProviderNotFound,
    InsufficientCapacity and InventoryInUse. A concurrent creation of the
    same consumer, project or user, or a deadlock that outlived its
    retries, is ConcurrentUpdateDetected: the client re-reads and retries.
    """
    _reshape(ctx, changes, requests, allow_reserved_equal_total)


@db_api.operation(on_duplicate='conflict')
def _reshape(ctx, changes, requests, allow_reserved_equal_total):
    with db_api.transaction(ctx) as conn:
        # Refusals name the first culprit in the request's order, as
        # upstream's; writes go in uuid order.
        providers = _fetch_checked(conn, changes)
        _check_classes(conn, changes)
        changes = sorted(changes, key=lambda change: change.provider_uuid)
        for change in changes:
            if change.inventories:
                interim = dict(inv_obj.fetch_inventories(
                    conn, providers[change.provider_uuid].id))
                interim.update(change.inventories)
                _set_inventory(conn, providers[change.provider_uuid],
                               interim, allow_reserved_equal_total)
        if requests:
            allocation_obj.write_allocations(conn, requests)
        providers = rp_obj.fetch_providers_by_uuid(conn, list(providers))
        for change in changes:
            done = _set_inventory(conn, providers[change.provider_uuid],
                                  change.inventories,
                                  allow_reserved_equal_total)
        if changes:
            # The transaction is atomic: one provider's final state
            # (generation and inventory) tells whether all of it landed.
            inv_obj.expect_inventories(done.uuid, done.generation,
                                       change.inventories, lambda found: None)


def _fetch_checked(conn, changes) -> typing.Dict[str, rp_obj.Provider]:
    """{uuid: Provider} for every change; raise on missing or stale."""
    providers = rp_obj.fetch_providers_by_uuid(
        conn, [change.provider_uuid for change in changes])
    for change in changes:
        provider = providers.get(change.provider_uuid)
        if provider is None:
            raise exception.ResourceProviderNotFound(
                uuid=change.provider_uuid)
        if provider.generation != change.generation:
            raise exception.ResourceProviderGenerationConflict(
                'resource provider generation conflict for provider %s: '
                'actual: %s, given: %s' % (
                    provider.uuid, provider.generation, change.generation))
    return providers


def _check_classes(conn, changes) -> None:
    """Raise ResourceClassNotFound for the first unknown class of the
    inventories, before any capacity is checked (upstream's order)."""
    names = [name for change in changes for name in change.inventories]
    found, _ = _sql.fetch_ids_by_name(conn, models.resource_classes, names)
    missing = [name for name in names if name not in found]
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])


def _set_inventory(conn, provider, inventories, allow_reserved_equal_total):
    """Write one provider's inventory rows and bump its generation.

    The bump compares with the generation read in this transaction, so a
    writer that committed meanwhile makes it fail (no retry).
    """
    inv_obj.replace_inventories(conn, provider, inventories,
                                allow_reserved_equal_total)
    generation = rp_obj.bump_generation(conn, provider.id,
                                        provider.generation)
    return dataclasses.replace(provider, generation=generation)
