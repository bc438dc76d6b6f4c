"""What allocations are read: by a provider's periodic check, and by a
write before it checks anything (allocation).

A provider's allocations (GET /resource_providers/{uuid}/allocations,
which every compute node's resource tracker sends each minute) are one
statement: the provider, its allocations and their consumers'
generations (``get_provider_allocations``).

An allocation write reads two statements, each one snapshot: the
consumers written, with their current allocation rows and the ids of
the classes, projects, users and consumer types the write names (read
after locking the providers added to, resource_provider.lock_then_read);
then every affected provider's generation with its inventories and
their usage (``fetch_providers``).
"""
import dataclasses
import datetime
import functools
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import in_lists
from placement.db import models
from placement import exception
from placement.objects import consumer as consumer_obj
from placement.objects import resource_provider


class Held(typing.NamedTuple):
    """One allocation row of a provider, with its consumer's generation
    (None for a consumer without a row)."""
    consumer_uuid: str
    resource_class: str
    used: int
    created_at: typing.Optional[datetime.datetime]
    consumer_generation: typing.Optional[int]


@functools.cache
def select_provider_allocations_stmt():
    """The provider and its allocations, in the order they were written,
    with their consumers' generations, in one statement:

    SELECT rp.generation, a.consumer_id, rc.name, a.used, a.created_at,
           c.generation
    FROM resource_providers rp
    LEFT JOIN allocations a ON a.resource_provider_id = rp.id
    LEFT JOIN resource_classes rc ON rc.id = a.resource_class_id
    LEFT JOIN consumers c ON c.uuid = a.consumer_id
    WHERE rp.uuid = :provider_uuid ORDER BY a.id
    """
    a = models.allocations
    rc = models.resource_classes
    c = models.consumers
    return resource_provider.select_with_children_stmt(
        (a.c.consumer_id, rc.c.name, a.c.used, a.c.created_at,
         c.c.generation.label('consumer_generation')),
        ((a, lambda rp: a.c.resource_provider_id == rp.c.id),
         (rc, lambda rp: rc.c.id == a.c.resource_class_id),
         (c, lambda rp: c.c.uuid == a.c.consumer_id)),
        (a.c.id,))


@db_api.operation
def get_provider_allocations(ctx, provider_uuid: str):
    """(resource_provider.Generation, (Held, ...)) of one provider, in
    one statement (so one snapshot, whatever the isolation); raise
    ResourceProviderNotFound. Read-only."""
    with db_api.reader(ctx, snapshot=False) as conn:
        provider, rows = resource_provider.fetch_with_children(
            conn, select_provider_allocations_stmt(), provider_uuid)
    return provider, tuple(Held(*row[1:]) for row in rows)


@dataclasses.dataclass(frozen=True)
class Stock:
    """One inventory plus what other consumers already use of it."""
    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float
    used: int = 0


@functools.lru_cache(maxsize=64)
def select_consumers_with_allocations_stmt(uuid_slots, named_slots):
    """Consumers (by uuid) with each of their allocation rows, and the ids
    of every name the write refers to, in one round trip.

    SELECT 'consumer' AS kind, c.uuid AS name, c.id, c.generation,
           c.created_at, c.updated_at, p.external_id, u.external_id,
           ct.name, a.id, a.resource_provider_id, a.resource_class_id,
           a.used
    FROM consumers c JOIN projects p ... JOIN users u ...
    LEFT JOIN consumer_types ct ON ct.id = c.consumer_type_id
    LEFT JOIN allocations a ON a.consumer_id = c.uuid
    WHERE c.uuid IN (:uuids_0, ...)
    UNION ALL SELECT 'class', name, id, NULL, ... FROM resource_classes
              WHERE name IN (:class_0, ...)
    UNION ALL ... (projects, users, consumer types:
                   consumer.named_id_selects)

    Allocations always have their consumer row (both are written in one
    transaction; the online data migration made rows for older ones).
    ``uuid_slots``, ``named_slots``: the sizes of the IN lists
    (db.in_lists), the latter as (kind, size) pairs.
    """
    a = models.allocations
    consumers = consumer_obj.select_consumers_stmt().subquery('c')
    found = sa.select(
        sa.literal('consumer', sa.String).label('kind'),
        sa.cast(consumers.c.uuid, sa.String(255)).label('name'),
        consumers.c.id, consumers.c.generation, consumers.c.created_at,
        consumers.c.updated_at, consumers.c.project_external_id,
        consumers.c.user_external_id, consumers.c.consumer_type,
        a.c.id.label('allocation_id'), a.c.resource_provider_id,
        a.c.resource_class_id, a.c.used,
    ).select_from(consumers.outerjoin(
        a, a.c.consumer_id == consumers.c.uuid)).where(
        in_lists.in_(consumers.c.uuid, 'uuids', uuid_slots))
    padding = [sa.null() for _ in range(10)]
    return sa.union_all(found, *consumer_obj.named_id_selects(
        dict(named_slots), padding))


@dataclasses.dataclass(frozen=True)
class OldRow:
    id: int
    consumer_uuid: str
    resource_provider_id: int
    resource_class_id: int
    used: int


def fetch_consumers(conn, requests):
    """({uuid: Consumer}, [OldRow], Names) for the consumers being
    written and the names they refer to (the missing are absent), read
    after locking the rows of the providers added to."""
    consumers = {}
    old_rows = []
    values = consumer_obj.named_values(
        {rc for request in requests for _, rc, _ in request.resources},
        {request.project_id for request in requests},
        {request.user_id for request in requests},
        {request.consumer_type for request in requests
         if request.consumer_type})
    uuids = sorted({request.consumer_uuid for request in requests})
    stmt = select_consumers_with_allocations_stmt(
        in_lists.size(uuids),
        tuple((kind, in_lists.size(names)) for kind, names in values.items()))
    params = in_lists.bind_all(dict(values, uuids=uuids))
    named = []
    added_to = {rp for request in requests for rp, _, _ in request.resources}
    for row in resource_provider.lock_then_read(
            conn, added_to, stmt, params):
        if row.kind != 'consumer':
            named.append(row)
            continue
        if row.name not in consumers:
            consumers[row.name] = consumer_obj.Consumer(
                id=row.id, uuid=row.name,
                project_id=row.project_external_id,
                user_id=row.user_external_id, generation=row.generation,
                consumer_type=row.consumer_type,
                created_at=row.created_at, updated_at=row.updated_at)
        if row.allocation_id is not None:
            old_rows.append(OldRow(row.allocation_id, row.name,
                                   row.resource_provider_id,
                                   row.resource_class_id, row.used))
    return consumers, old_rows, consumer_obj.names_from_rows(named)


@dataclasses.dataclass(frozen=True)
class Seen:
    uuid: str
    generation: int


@functools.lru_cache(maxsize=64)
def select_providers_stock_stmt(uuid_slots, id_slots):
    """Providers' generations and, in the same statement, their stock.

    SELECT rp.id, rp.uuid, rp.generation, inv.resource_class_id,
           inv.total, ...,
           (SELECT COALESCE(SUM(a.used), 0) FROM allocations a
            WHERE a.resource_provider_id = inv.resource_provider_id
              AND a.resource_class_id = inv.resource_class_id) AS used
    FROM resource_providers rp
    LEFT JOIN inventories inv ON inv.resource_provider_id = rp.id
    WHERE rp.uuid IN (:uuids_0, ...) OR rp.id IN (:ids_0, ...)

    One statement reads one snapshot at every isolation level, so the
    usage is never newer than the generations it is checked against:
    whoever changes it afterwards also bumps a generation we swap. The
    usage subquery is answered from the (provider, class, used) index.
    """
    rp = models.resource_providers
    inv = models.inventories
    a = models.allocations
    used = sa.select(sa.func.coalesce(sa.func.sum(a.c.used), 0)).where(
        a.c.resource_provider_id == inv.c.resource_provider_id,
        a.c.resource_class_id == inv.c.resource_class_id,
    ).scalar_subquery()
    return sa.select(
        rp.c.id, rp.c.uuid, rp.c.generation, inv.c.resource_class_id,
        inv.c.total, inv.c.reserved, inv.c.min_unit, inv.c.max_unit,
        inv.c.step_size, inv.c.allocation_ratio, used.label('used'),
    ).select_from(
        rp.outerjoin(inv, inv.c.resource_provider_id == rp.c.id),
    ).where(sa.or_(
        in_lists.in_(rp.c.uuid, 'uuids', uuid_slots),
        in_lists.in_(rp.c.id, 'ids', id_slots)))


def fetch_providers(conn, uuids, ids):
    """({id: Seen}, {(rp_id, rc_id): Stock}) of providers named by uuid
    or id, in one statement.

    Raise AllocationProviderNotFound for the first unknown of ``uuids``.
    """
    if not uuids and not ids:
        return {}, {}
    providers = {}
    stock = {}
    lists = {'uuids': sorted(set(uuids)), 'ids': sorted(ids)}
    stmt = select_providers_stock_stmt(in_lists.size(lists['uuids']),
                                       in_lists.size(lists['ids']))
    for row in conn.execute(stmt, in_lists.bind_all(lists)):
        providers[row.id] = Seen(row.uuid, row.generation or 0)
        if row.resource_class_id is not None:
            stock[(row.id, row.resource_class_id)] = Stock(
                row.total, row.reserved, row.min_unit, row.max_unit,
                row.step_size, row.allocation_ratio, int(row.used))
    seen = {seen.uuid for seen in providers.values()}
    missing = [uuid for uuid in uuids if uuid not in seen]
    if missing:
        raise exception.AllocationProviderNotFound(uuid=missing[0])
    return providers, stock
