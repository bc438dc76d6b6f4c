"""Allocations: reading them, and replacing the allocations of consumers.

The write path is the one that must never over-commit. Within one attempt
(one transaction) it reads the consumers with their current allocations
(and, in the same round trip, the ids of the classes, projects, users and
types named), then, in ONE statement, the generation of every affected
provider (gaining or losing allocations) together with the inventories and
usage of those providers. It checks capacity in Python, writes consumer
and allocation rows, and finally compare-and-swaps the generation of every
affected provider in one UPDATE (its scan meets the rows in the same order
for every writer; a deadlock would be retried like any other). As
upstream does, a provider is "affected" when it appears in a consumer's
new allocations; a provider that only loses allocations keeps its
generation, except that the providers of a consumer whose new
allocations are empty are bumped.
Before it reads anything, an attempt locks the rows of the providers it
adds to (resource_provider.lock_then_read): a concurrent claim on one
of them waits for our COMMIT and then reads after it, instead of losing
the swap at the end and running its attempt again.
Any writer that raised the usage of a provider we add to after our
statement read it has also bumped that provider's generation in its own
committed transaction, so our swap fails and the attempt is rolled back.
A writer that only lowered it cannot make our check wrong, and two
writers of one consumer meet on the consumer generation, which every
write (update or delete of the consumer row) compares and swaps. A single
statement sees a single snapshot at every isolation level (so the usage
is never newer than the generations), which makes this hold at READ
COMMITTED as well as with snapshot isolation; under PostgreSQL REPEATABLE
READ/SERIALIZABLE the swap fails as a serialization error instead, which
is retried the same way.
A lost provider race is retried in a fresh transaction, up to
``[placement] allocation_conflict_retry_count`` times.
"""
import collections
import dataclasses
import datetime
import random
import time
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import backend
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import allocation_reads
from placement.objects import consumer as consumer_obj
from placement.objects import landed
from placement.objects import resource_provider
from placement.solver import model


@dataclasses.dataclass(frozen=True)
class AllocationRequest:
    """The complete desired allocations of one consumer.

    ``resources`` holds (provider uuid, class name, amount) triples; empty
    means "remove every allocation of this consumer". When
    ``check_generation`` is set (1.28+), ``consumer_generation`` must equal
    the stored one (None: the consumer must not exist yet).
    ``consumer_type`` None leaves the stored type alone.
    """
    consumer_uuid: str
    project_id: str
    user_id: str
    resources: typing.Tuple[typing.Tuple[str, str, int], ...]
    consumer_generation: typing.Optional[int] = None
    check_generation: bool = False
    consumer_type: typing.Optional[str] = None

    @classmethod
    def from_body(cls, consumer_uuid, body, check_generation,
                  default_project_id, default_user_id):
        """One consumer's validated body, in list (before 1.12) or dict
        form; project and user fall back to the given defaults (the
        [placement] incomplete_consumer_* options, before 1.8).
        """
        allocations = body['allocations']
        if isinstance(allocations, list):
            # A provider named twice keeps its last entry, as upstream.
            allocations = {entry['resource_provider']['uuid']: entry
                           for entry in allocations}
        # The body's order is the order rows are written and read back.
        resources = tuple(
            (rp_uuid, rc_name, amount)
            for rp_uuid, alloc in allocations.items()
            for rc_name, amount in alloc['resources'].items())
        return cls(
            consumer_uuid=consumer_uuid,
            project_id=body.get('project_id', default_project_id),
            user_id=body.get('user_id', default_user_id),
            resources=resources,
            consumer_generation=body.get('consumer_generation'),
            check_generation=check_generation,
            consumer_type=body.get('consumer_type'))


@dataclasses.dataclass(frozen=True)
class Allocation:
    """One allocation row as the API shows it."""
    resource_provider_uuid: str
    resource_provider_generation: int
    consumer_uuid: str
    resource_class: str
    used: int
    created_at: typing.Optional[datetime.datetime]


@dataclasses.dataclass(frozen=True)
class ConsumerAllocations:
    consumer: typing.Optional[consumer_obj.Consumer]
    allocations: typing.Tuple[Allocation, ...]


# --- reads ----------------------------------------------------------------

def select_allocations_stmt():
    """Allocations with provider uuid/generation and class name, in the
    order they were written (by id), on every backend.

    SELECT a.consumer_id, a.used, a.created_at, rp.uuid, rp.generation,
           rc.name
    FROM allocations a
    JOIN resource_providers rp ON rp.id = a.resource_provider_id
    JOIN resource_classes rc ON rc.id = a.resource_class_id
    ORDER BY a.id
    """
    a = models.allocations
    rp = models.resource_providers
    rc = models.resource_classes
    return sa.select(
        a.c.consumer_id, a.c.used, a.c.created_at,
        rp.c.uuid.label('rp_uuid'), rp.c.generation.label('rp_generation'),
        rc.c.name.label('rc_name'),
    ).select_from(
        a.join(rp, rp.c.id == a.c.resource_provider_id)
         .join(rc, rc.c.id == a.c.resource_class_id)
    ).order_by(a.c.id)


def _allocation_from_row(row) -> Allocation:
    return Allocation(
        resource_provider_uuid=row.rp_uuid,
        resource_provider_generation=row.rp_generation or 0,
        consumer_uuid=row.consumer_id, resource_class=row.rc_name,
        used=row.used, created_at=row.created_at)


@db_api.operation
def get_for_consumer(ctx, consumer_uuid: str) -> ConsumerAllocations:
    """The consumer (None if unknown) and its allocations. Read-only."""
    a = models.allocations
    with db_api.reader(ctx) as conn:
        rows = conn.execute(select_allocations_stmt().where(
            a.c.consumer_id == consumer_uuid))
        allocations = tuple(_allocation_from_row(row) for row in rows)
        found = consumer_obj.fetch_consumers_by_uuid(conn, [consumer_uuid])
    return ConsumerAllocations(consumer=found.get(consumer_uuid),
                               allocations=allocations)


# --- writes ---------------------------------------------------------------

def replace_allocations(ctx, requests: typing.Sequence[AllocationRequest],
                        retries: int) -> None:
    """Replace the allocations of each consumer in ``requests``, all or none.

    Opens its own transaction per attempt. A lost provider-generation race
    is retried ``retries`` times in a fresh transaction, then raises
    ResourceProviderGenerationConflict. Also raises
    ConsumerGenerationConflict, ResourceClassNotFound,
    AllocationProviderNotFound and InsufficientCapacity.
    """
    for attempt in range(retries + 1):
        try:
            return _attempt(ctx, requests)
        except exception.ResourceProviderGenerationConflict:
            if attempt == retries:
                raise
        # Spread the losers out a little before they read again.
        time.sleep(random.uniform(0, 0.002 * (attempt + 1)))


# A duplicate key means another writer created the same consumer,
# project, user or type first: the next attempt finds it. Still colliding
# after the retries (e.g. two spellings MySQL's collation sees as one
# consumer uuid) is a conflict, not a server error.
@db_api.operation(on_duplicate='retry')
def _attempt(ctx, requests):
    with db_api.transaction(ctx) as conn:
        write_allocations(conn, requests)


def write_allocations(conn, requests) -> None:
    """One attempt of replace_allocations inside the caller's transaction.

    Raise ResourceProviderGenerationConflict when a provider changed
    since its generation was read (the caller must roll back).
    """
    consumers, old_rows, names = allocation_reads.fetch_consumers(
        conn, requests)
    check_consumer_generations(requests, consumers, backend.key_fold(conn))
    # Upstream's order: missing provider, unknown class, capacity.
    providers, stock = allocation_reads.fetch_providers(
        conn, [rp for request in requests for rp, _, _ in request.resources],
        {row.resource_provider_id for row in old_rows})
    _check_classes(requests, names)
    demands = _demands(requests, providers, names.classes)
    _discount(stock, old_rows)
    check_capacity(demands, stock, providers, names.classes)
    _write_consumers(conn, requests, consumers, names)
    _replace_rows(conn, old_rows, requests, providers, names.classes)
    resource_provider.bump_generations(conn, {
        rp_id: providers[rp_id].generation
        for rp_id in providers_to_bump(requests, providers, old_rows)})
    landed.expect_consumers({
        request.consumer_uuid: _left_by(request, consumers)
        for request in requests})


def _left_by(request, consumers):
    """(generation, resources) the write leaves on a consumer."""
    if not request.resources:
        return None, ()
    existing = consumers.get(request.consumer_uuid)
    return (existing.generation + 1 if existing else 1), request.resources


def providers_to_bump(requests, providers, old_rows) -> typing.Set[int]:
    """Ids of the providers whose generation a write bumps, as upstream.

    The providers named in the consumers' new allocations; for a consumer
    whose new allocations are empty, the providers it held before. A
    provider that only loses some of a consumer's allocations keeps its
    generation (losing usage cannot over-commit it).
    """
    id_by_uuid = {seen.uuid: rp_id for rp_id, seen in providers.items()}
    bumped = {id_by_uuid[rp_uuid] for request in requests
              for rp_uuid, _, _ in request.resources}
    emptied = {request.consumer_uuid for request in requests
               if not request.resources}
    bumped.update(row.resource_provider_id for row in old_rows
                  if row.consumer_uuid in emptied)
    return bumped


def check_consumer_generations(requests, consumers, fold=None) -> None:
    """Raise ConsumerGenerationConflict for a stale or unexpected one.

    ``fold`` gives the key under which the database compares consumer
    uuids (MySQL's collation ignores case: backend.key_fold). As upstream, the
    requests are taken in order and a consumer an earlier one creates
    exists, at generation 0, for a later one that names it otherwise
    spelled.
    """
    fold = fold or str
    generations = {fold(uuid): found.generation
                   for uuid, found in consumers.items()}
    for request in requests:
        key = fold(request.consumer_uuid)
        expected = generations.get(key)
        if (request.check_generation
                and request.consumer_generation != expected):
            raise exception.ConsumerGenerationConflict(
                detail='expected %s but got %s' % (
                    'null' if expected is None else expected,
                    request.consumer_generation))
        generations.setdefault(key, 0)


def _check_classes(requests, names) -> None:
    """Raise ResourceClassNotFound for the body's first unknown class."""
    missing = [rc for request in requests for _, rc, _ in request.resources
               if rc not in names.classes]
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])


def _demands(requests, providers, class_ids):
    """{(rp_id, rc_id): [amount, ...]} over every request."""
    id_by_uuid = {seen.uuid: rp_id for rp_id, seen in providers.items()}
    demands = collections.defaultdict(list)
    for request in requests:
        for rp_uuid, rc_name, amount in request.resources:
            demands[(id_by_uuid[rp_uuid], class_ids[rc_name])].append(amount)
    return dict(demands)


def _discount(stock, old_rows) -> None:
    """Subtract the allocations being replaced from the usage read."""
    for row in old_rows:
        key = (row.resource_provider_id, row.resource_class_id)
        if key in stock:
            stock[key] = dataclasses.replace(
                stock[key], used=stock[key].used - row.used)


def check_capacity(demands, stock, providers, class_ids) -> None:
    """Raise InsufficientCapacity unless every demand fits.

    Each amount must lie in min_unit..max_unit and be a multiple of
    step_size; the sum per (provider, class) must fit
    used + sum <= (total - reserved) * allocation_ratio.
    """
    class_names = {rc_id: name for name, rc_id in class_ids.items()}
    for (rp_id, rc_id), amounts in demands.items():  # the body's order
        names = dict(resource_class=class_names[rc_id],
                     uuid=providers[rp_id].uuid)
        inv = stock.get((rp_id, rc_id))
        if inv is None:
            raise exception.InsufficientCapacity(
                detail="Inventory for '%(resource_class)s' on resource "
                       "provider '%(uuid)s' invalid." % names)
        for amount in amounts:
            if (amount < inv.min_unit or amount > inv.max_unit
                    or amount % inv.step_size):
                raise exception.InsufficientCapacity(detail=(
                    "Unable to create allocation for '%(resource_class)s' "
                    "on resource provider '%(uuid)s'. The requested amount "
                    "would violate inventory constraints." % names))
        capacity = model.capacity(inv.total, inv.reserved,
                                  inv.allocation_ratio)
        if inv.used + sum(amounts) > capacity:
            raise exception.InsufficientCapacity(detail=(
                "Unable to create allocation for '%(resource_class)s' on "
                "resource provider '%(uuid)s'. The requested amount would "
                "exceed the capacity." % names))


def _write_consumers(conn, requests, consumers, names) -> None:
    """Create, update or delete the consumer row of each request."""
    owners = consumer_obj.ensure_owners(
        conn, names, {request.project_id for request in requests},
        {request.user_id for request in requests},
        {request.consumer_type for request in requests
         if request.consumer_type})
    # Consumer rows are written in uuid order, whatever the body's order,
    # so that two writers of the same consumers lock them alike; the new
    # ones in one INSERT, after the updates and deletes. Two writers
    # creating the same consumers on the same providers hold those
    # providers' row locks first (write_allocations); on different
    # providers their INSERTs may cross, a deadlock that is retried as a
    # lost race.
    new = []
    for request in sorted(requests, key=lambda r: r.consumer_uuid):
        existing = consumers.get(request.consumer_uuid)
        if not request.resources:
            if existing:
                consumer_obj.delete_consumer(conn, existing)
            continue
        write = consumer_obj.ConsumerWrite(
            uuid=request.consumer_uuid,
            project_id=owners.projects[request.project_id],
            user_id=owners.users[request.user_id],
            consumer_type_id=owners.types.get(request.consumer_type))
        if existing:
            consumer_obj.update_consumer(conn, existing, write)
        else:
            new.append(write)
    consumer_obj.insert_consumers(conn, new)


def _replace_rows(conn, old_rows, requests, providers, class_ids) -> None:
    """Delete the old rows by primary key; insert the new ones.

    New rows leave updated_at NULL, as upstream's do (rows are replaced,
    never updated).

    Deleting by id (not by consumer) takes record locks only, so
    concurrent claims by new consumers never meet on an index gap.
    """
    a = models.allocations
    if old_rows:
        conn.execute(a.delete().where(
            a.c.id.in_(sorted(row.id for row in old_rows))))
    id_by_uuid = {seen.uuid: rp_id for rp_id, seen in providers.items()}
    now = _sql.utcnow()
    values = [
        dict(resource_provider_id=id_by_uuid[rp_uuid],
             consumer_id=request.consumer_uuid,
             resource_class_id=class_ids[rc_name], used=amount,
             created_at=now)
        for request in requests
        for rp_uuid, rc_name, amount in request.resources]
    if values:
        conn.execute(a.insert(), values)


@db_api.operation
def delete_for_consumer(ctx, consumer_uuid: str) -> None:
    """Remove every allocation of a consumer and the consumer itself.

    Raise ConsumerNotFound when it has no allocations. Provider
    generations are left alone, as upstream does.
    """
    a = models.allocations
    with db_api.transaction(ctx) as conn:
        c = models.consumers
        consumer_id = conn.execute(sa.select(c.c.id).where(
            c.c.uuid == consumer_uuid)).scalar()
        result = conn.execute(
            a.delete().where(a.c.consumer_id == consumer_uuid))
        if not result.rowcount:
            raise exception.ConsumerNotFound(uuid=consumer_uuid)
        consumer_obj.delete_consumer_by_uuid(conn, consumer_uuid)
        landed.expect_consumer_gone(consumer_uuid, consumer_id)
