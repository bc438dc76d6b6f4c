"""Inventories: a provider's capacity records, one per resource class.

Queries (``fetch_*``, ``replace_inventories``) take ``conn`` first and never
begin, commit or bump a generation: the allocation and reshaper operations
call them inside their own transactions. The operations at the bottom
(``get_*``, ``set_*``, ``add_*``, ``update_*``, ``delete_*``) each open the
one transaction of a request and bump the provider generation exactly once
in it. No WebOb or microversions here: callers pass explicit flags such as
``allow_reserved_equal_total``.
"""
import dataclasses
import datetime
import functools
import typing

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import in_lists
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import landed
from placement.objects import resource_class as rc_obj
from placement.objects import provider_cas
from placement.objects import resource_provider as rp_obj
from placement.solver import model

LOG = logging.getLogger(__name__)

MAX_INT = 2147483647


@dataclasses.dataclass(frozen=True)
class Inventory:
    """One inventory record; the defaults are the API's field defaults."""

    resource_class: str
    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = MAX_INT
    step_size: int = 1
    allocation_ratio: float = 1.0
    created_at: typing.Optional[datetime.datetime] = None
    updated_at: typing.Optional[datetime.datetime] = None

    @property
    def capacity(self) -> int:
        return model.capacity(self.total, self.reserved,
                              self.allocation_ratio)

    def values(self) -> dict:
        """The stored fields (no class, no timestamps)."""
        return {'total': self.total, 'reserved': self.reserved,
                'min_unit': self.min_unit, 'max_unit': self.max_unit,
                'step_size': self.step_size,
                'allocation_ratio': self.allocation_ratio}


# --- pure rules -----------------------------------------------------------

def check_capacity(provider_uuid, inv, allow_reserved_equal_total):
    """Raise InvalidInventoryCapacity* unless ``inv`` has usable capacity.

    capacity = int((total - reserved) * allocation_ratio) must be > 0, or
    >= 0 when ``allow_reserved_equal_total`` (microversion 1.26 on).
    """
    if allow_reserved_equal_total:
        if inv.capacity < 0:
            raise exception.InvalidInventoryCapacityReservedCanBeTotal(
                resource_class=inv.resource_class, uuid=provider_uuid)
    elif inv.capacity <= 0:
        raise exception.InvalidInventoryCapacity(
            resource_class=inv.resource_class, uuid=provider_uuid)


def _warn_on_overuse(provider_uuid, inventories, usages):
    """Log (do not refuse) inventories shrunk below their current usage."""
    for name, inv in inventories.items():
        used = usages.get(name, 0)
        if used > inv.capacity:
            LOG.warning('Resource provider %s now uses %d %s, more than the '
                        'new capacity %d: no new allocations will fit until '
                        'usage drops.', provider_uuid, used, name,
                        inv.capacity)


# --- queries ---------------------------------------------------------------

def select_inventories_stmt():
    """SELECT inv.*, rc.name FROM inventories inv
    JOIN resource_classes rc ON rc.id = inv.resource_class_id
    """
    inv = models.inventories
    rc = models.resource_classes
    return sa.select(
        rc.c.name.label('resource_class'), inv.c.total, inv.c.reserved,
        inv.c.min_unit, inv.c.max_unit, inv.c.step_size,
        inv.c.allocation_ratio, inv.c.created_at, inv.c.updated_at,
    ).select_from(inv.join(rc, rc.c.id == inv.c.resource_class_id))


def _inventory_from_row(row):
    return Inventory(
        resource_class=row.resource_class, total=row.total,
        reserved=row.reserved, min_unit=row.min_unit,
        max_unit=row.max_unit, step_size=row.step_size,
        allocation_ratio=float(row.allocation_ratio),
        created_at=row.created_at, updated_at=row.updated_at)


def fetch_inventories(conn, provider_id) -> typing.Dict[str, Inventory]:
    """{class name: Inventory} of one provider, in class id order (the
    (provider, class) index order upstream's unordered query gets)."""
    inv = models.inventories
    rows = conn.execute(select_inventories_stmt().where(
        inv.c.resource_provider_id == provider_id
    ).order_by(inv.c.resource_class_id))
    return {row.resource_class: _inventory_from_row(row) for row in rows}


@dataclasses.dataclass(frozen=True)
class _Current:
    """What a replacement needs to know before it writes."""
    class_ids: typing.Dict[str, int]          # every class named
    existing: typing.Dict[str, Inventory]     # the provider's rows
    usages: typing.Dict[str, int]             # of the classes named


@functools.lru_cache(maxsize=32)
def select_current_stmt(slots):
    """One provider's inventories and the classes a write names, each with
    the provider's usage of it, in one round trip.

    SELECT rc.id, rc.name AS resource_class, inv.total, ..., inv.updated_at,
           (SELECT COALESCE(SUM(a.used), 0) FROM allocations a
            WHERE a.resource_provider_id = :rp_id
              AND a.resource_class_id = rc.id) AS used
    FROM inventories inv JOIN resource_classes rc
      ON rc.id = inv.resource_class_id
    WHERE inv.resource_provider_id = :rp_id
    UNION ALL
    SELECT rc.id, rc.name, NULL, ..., NULL, (same usage) FROM
    resource_classes rc WHERE rc.name IN (:names_0, ...)

    ``slots``: the size of the IN list (db.in_lists).
    """
    inv = models.inventories
    rc = models.resource_classes
    alloc = models.allocations
    used = sa.select(sa.func.coalesce(sa.func.sum(alloc.c.used), 0)).where(
        alloc.c.resource_provider_id == sa.bindparam('rp_id'),
        alloc.c.resource_class_id == rc.c.id).scalar_subquery()
    fields = (inv.c.total, inv.c.reserved, inv.c.min_unit, inv.c.max_unit,
              inv.c.step_size, inv.c.allocation_ratio, inv.c.created_at,
              inv.c.updated_at)
    stored = sa.select(
        rc.c.id, rc.c.name.label('resource_class'), *fields,
        used.label('used'),
        sa.literal(1, sa.Integer).label('is_stored'),
    ).select_from(inv.join(rc, rc.c.id == inv.c.resource_class_id)).where(
        inv.c.resource_provider_id == sa.bindparam('rp_id'))
    named = sa.select(
        rc.c.id, rc.c.name, *[sa.null() for _ in fields], used,
        sa.literal(0, sa.Integer),
    ).where(in_lists.in_(rc.c.name, 'names', slots))
    return sa.union_all(stored, named)


def fetch_current(conn, provider_id, names) -> _Current:
    """The provider's inventories, the ids of its classes and of
    ``names``, and its usage of each; raise ResourceClassNotFound for an
    unknown name (the first in the order of ``names``, as upstream)."""
    class_ids, existing, usages = {}, {}, {}
    # A name no database can hold (a lone surrogate) is unknown without
    # asking the database.
    storable = sorted({name for name in names if _sql.encodable(name)})
    params = in_lists.bind('names', storable)
    params['rp_id'] = provider_id
    rows = conn.execute(select_current_stmt(in_lists.size(storable)), params)
    # Class id order, as fetch_inventories reads them.
    for row in sorted(rows, key=lambda row: row.id):
        class_ids[row.resource_class] = row.id
        usages[row.resource_class] = int(row.used)
        if row.is_stored:
            existing[row.resource_class] = _inventory_from_row(row)
    missing = [name for name in names if name not in class_ids]
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])
    return _Current(class_ids, existing, usages)


def _delete_rows(conn, provider_id, class_ids):
    inv = models.inventories
    if class_ids:
        conn.execute(inv.delete()
                     .where(inv.c.resource_provider_id == provider_id)
                     .where(inv.c.resource_class_id.in_(sorted(class_ids))))


_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
           'allocation_ratio')


def update_rows_stmt(count):
    """Rewrite ``count`` rows of one provider, each with its own values.

    UPDATE inventories SET updated_at = :now,
        total = CASE resource_class_id WHEN :rc_0 THEN :total_0 ... END, ...
    WHERE resource_provider_id = :rp_id
      AND resource_class_id IN (:rc_0, ...)
    """
    inv = models.inventories
    classes = [sa.bindparam('rc_%d' % k, type_=sa.Integer)
               for k in range(count)]
    values = {field: sa.case(
        {classes[k]: sa.bindparam('%s_%d' % (field, k),
                                  type_=inv.c[field].type)
         for k in range(count)}, value=inv.c.resource_class_id)
        for field in _FIELDS}
    return (inv.update()
            .where(inv.c.resource_provider_id == sa.bindparam('rp_id'))
            .where(inv.c.resource_class_id.in_(classes))
            .values(updated_at=sa.bindparam('now'), **values))


# Built once per row count (the classes of one provider: a handful).
_UPDATE_ROWS = {}


def _update_rows(conn, provider_id, records, now):
    """Rewrite the rows of ``records`` ([(class id, Inventory)]) in one
    statement (``update_rows_stmt``)."""
    if not records:
        return
    stmt = _UPDATE_ROWS.get(len(records))
    if stmt is None:
        stmt = _UPDATE_ROWS[len(records)] = update_rows_stmt(len(records))
    params = {'rp_id': provider_id, 'now': now}
    for k, (class_id, record) in enumerate(records):
        params['rc_%d' % k] = class_id
        for field, value in record.values().items():
            params['%s_%d' % (field, k)] = value
    conn.execute(stmt, params)


# The same table for one statement: a POST's insert of one class. Its
# columns in the order upstream's refusal of that insert names them
# (timestamps last), because the database's error, statement text
# included, is the client-visible detail of the 409. Insert only: the
# schema is models.inventories.
_POSTED_INVENTORY = sa.Table(
    'inventories', sa.MetaData(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    *[sa.Column(name, models.inventories.c[name].type) for name in (
        'resource_provider_id', 'resource_class_id', 'total', 'reserved',
        'min_unit', 'max_unit', 'step_size', 'allocation_ratio',
        'created_at', 'updated_at')])


def _insert_posted(conn, provider_id, records, now):
    """``_insert_rows`` into ``_POSTED_INVENTORY``."""
    _insert_rows(conn, provider_id, records, now, table=_POSTED_INVENTORY)


def _insert_rows(conn, provider_id, records, now, table=models.inventories):
    if records:
        conn.execute(sa.insert(table), [
            dict(resource_provider_id=provider_id, resource_class_id=class_id,
                 created_at=now, **record.values())
            for class_id, record in records])


def replace_inventories(conn, provider, inventories,
                        allow_reserved_equal_total
                        ) -> typing.Dict[str, Inventory]:
    """Make ``inventories`` ({class name: Inventory}) the provider's set;
    return them as stored (values as written, with their timestamps).

    Validates each capacity (InvalidInventoryCapacity*), resolves the class
    names (ResourceClassNotFound), refuses to remove a class that has
    allocations (InventoryInUse) and only logs a warning when an inventory
    shrinks below its usage. Writes the rows; does not bump the generation
    and does not open a transaction: the caller does both. At most four
    statements: one read, then a delete, an update and an insert.
    """
    for inv in inventories.values():
        check_capacity(provider.uuid, inv, allow_reserved_equal_total)
    current = fetch_current(conn, provider.id, inventories)
    existing, class_ids = current.existing, current.class_ids
    # Class id order: standard classes in library order, as upstream
    # names them ('VCPU, MEMORY_MB').
    removed = sorted(set(existing) - set(inventories), key=class_ids.get)
    in_use = [name for name in removed if current.usages.get(name, 0) > 0]
    if in_use:
        raise exception.InventoryInUse(resource_classes=', '.join(in_use),
                                       uuid=provider.uuid)
    _warn_on_overuse(provider.uuid, inventories, current.usages)
    now = _sql.utcnow()
    _delete_rows(conn, provider.id, [class_ids[name] for name in removed])
    kept = sorted(set(inventories) & set(existing))
    _update_rows(conn, provider.id,
                 [(class_ids[name], inventories[name]) for name in kept], now)
    _insert_rows(conn, provider.id,
                 [(class_ids[name], inventories[name])
                  for name in sorted(set(inventories) - set(existing))], now)
    return {name: _stamped(inv, existing.get(name), now)
            for name, inv in sorted(inventories.items(),
                                    key=lambda item: class_ids[item[0]])}


def _stamped(inv, before, now):
    """``inv`` with the timestamps its row got: an updated row keeps its
    created_at, a new one has no updated_at."""
    if before is None:
        return dataclasses.replace(inv, created_at=now, updated_at=None)
    return dataclasses.replace(inv, created_at=before.created_at,
                               updated_at=now)


# --- operations -------------------------------------------------------------

def _lock_provider(conn, provider_uuid, seen_generation=None):
    """Lock the provider row, check and bump its generation (CAS) first.

    Bumping before writing the rows makes concurrent writers of one
    provider queue on its row: the loser's CAS finds a new generation and
    fails cleanly, instead of racing on inventory rows.
    """
    if seen_generation is not None:
        return provider_cas.lock_and_bump(conn, provider_uuid,
                                          seen_generation)
    provider = rp_obj.fetch_locked_provider(conn, provider_uuid)
    generation = rp_obj.bump_generation(conn, provider.id,
                                        provider.generation)
    return provider, generation


def expect_inventories(provider_uuid, generation, wanted, result):
    """Register the post-condition of an inventory write: the provider
    at ``generation`` holds exactly ``wanted``; its answer is
    ``result(stored inventories)``.
    """
    def matches(conn, found):
        stored = fetch_inventories(conn, found.id)
        if stored.keys() != wanted.keys() or not all(
                landed.same_values(stored[name].values(), inv.values())
                for name, inv in wanted.items()):
            return db_api.NOT_LANDED
        return result(stored)
    landed.expect_provider(provider_uuid, generation, matches)


@db_api.operation
def get_inventories(ctx, provider_uuid):
    """(rp_obj.Generation, {class name: Inventory}) in class id order;
    ResourceProviderNotFound."""
    with db_api.reader(ctx, snapshot=False) as conn:
        provider, rows = rp_obj.fetch_with_children(
            conn, _select_provider_inventories_stmt(), provider_uuid)
    return provider, {row.resource_class: _inventory_from_row(row)
                      for row in rows}


@functools.cache
def _select_provider_inventories_stmt():
    """The provider and its inventories, in one statement."""
    inv = models.inventories
    rc = models.resource_classes
    return rp_obj.select_with_children_stmt(
        (rc.c.name.label('resource_class'), inv.c.total, inv.c.reserved,
         inv.c.min_unit, inv.c.max_unit, inv.c.step_size,
         inv.c.allocation_ratio, inv.c.created_at, inv.c.updated_at),
        ((inv, lambda rp: inv.c.resource_provider_id == rp.c.id),
         (rc, lambda rp: rc.c.id == inv.c.resource_class_id)),
        (inv.c.resource_class_id,))


def get_inventory(ctx, provider_uuid, resource_class):
    """(Provider, Inventory); InventoryNotFound when the class is absent."""
    provider, inventories = get_inventories(ctx, provider_uuid)
    if resource_class not in inventories:
        raise exception.InventoryNotFound(resource_class=resource_class,
                                          uuid=provider_uuid)
    return provider, inventories[resource_class]


@db_api.operation(on_duplicate='conflict')
def set_inventories(ctx, provider_uuid, seen_generation, inventories,
                    allow_reserved_equal_total=True):
    """Replace a provider's whole inventory; one transaction, one bump.

    Returns (new generation, {class name: Inventory as stored}). Raises
    ResourceProviderNotFound, ResourceProviderGenerationConflict,
    ResourceClassNotFound, InvalidInventoryCapacity*, InventoryInUse.
    """
    with db_api.transaction(ctx) as conn:
        provider, generation = _lock_provider(conn, provider_uuid,
                                              seen_generation)
        stored = replace_inventories(conn, provider, inventories,
                                     allow_reserved_equal_total)
        expect_inventories(provider.uuid, generation, inventories,
                           lambda stored: (generation, stored))
        # The answer echoes the request; only the timestamps of ``stored``
        # are shown (Last-Modified), so no read-back.
        return generation, stored


def _write_one(conn, locked, current, inventory,
               allow_reserved_equal_total, insert_rows=_insert_rows):
    """Store one class of a ``locked`` (provider, new generation) next to
    ``current`` (``fetch_current``); register the post-condition and
    return (generation, the class as stored).

    Only this class's capacity is checked: the others were valid when
    they were written (and may predate a stricter microversion). This
    class's row only is written: the others keep their updated_at (NULL
    if never updated), as upstream's rows do.
    """
    provider, generation = locked
    check_capacity(provider.uuid, inventory, allow_reserved_equal_total)
    name = inventory.resource_class
    _warn_on_overuse(provider.uuid, {name: inventory}, current.usages)
    now = _sql.utcnow()
    record = [(current.class_ids[name], inventory)]
    before = current.existing.get(name)
    if before is not None:
        _update_rows(conn, provider.id, record, now)
    else:
        insert_rows(conn, provider.id, record, now)
    expect_inventories(provider.uuid, generation,
                       dict(current.existing, **{name: inventory}),
                       lambda found: (generation, found[name]))
    return generation, _stamped(inventory, before, now)


@db_api.operation(on_duplicate='conflict')
def add_inventory(ctx, provider_uuid, inventory,
                  allow_reserved_equal_total=True):
    """Add one class to a provider's inventory; (generation, Inventory).

    Raises InventoryExists when the class is already there, plus the
    errors of ``replace_inventories``. As upstream, that is found by the
    insert (after the capacity check), and the database's refusal is the
    message: the driver's error, our statement and its parameters, as
    SQLAlchemy spells them.
    """
    with db_api.transaction(ctx) as conn:
        locked = _lock_provider(conn, provider_uuid)
        name = inventory.resource_class
        try:
            current = fetch_current(conn, locked[0].id, [name])
        except exception.ResourceClassNotFound:
            # A bad capacity is named before an unknown class.
            check_capacity(provider_uuid, inventory,
                           allow_reserved_equal_total)
            raise
        if name in current.existing:
            check_capacity(provider_uuid, inventory,
                           allow_reserved_equal_total)
        try:
            if name not in current.existing:
                return _write_one(conn, locked, current, inventory,
                                  allow_reserved_equal_total,
                                  insert_rows=_insert_posted)
            _insert_posted(conn, locked[0].id,
                           [(current.class_ids[name], inventory)],
                           _sql.utcnow())
        except (db_exc.DBDuplicateEntry, sa.exc.IntegrityError) as exc:
            # Also a class added by a concurrent POST since the read.
            raise exception.InventoryExists(str(exc)) from exc
        # The row was there when read, under the provider's lock.
        raise exception.InventoryExists(resource_class=name,
                                        uuid=provider_uuid)


@db_api.operation(on_duplicate='conflict')
def update_inventory(ctx, provider_uuid, seen_generation, inventory,
                     allow_reserved_equal_total=True):
    """Replace one existing class's inventory; (generation, Inventory).

    Checks, in order (upstream's): generation (conflict), capacity
    (InvalidInventoryCapacity*), the class exists (ResourceClassNotFound),
    the provider has it (InventoryNotFound).
    """
    with db_api.transaction(ctx) as conn:
        locked = _lock_provider(conn, provider_uuid, seen_generation)
        check_capacity(provider_uuid, inventory, allow_reserved_equal_total)
        name = inventory.resource_class
        current = fetch_current(conn, locked[0].id, [name])
        if name not in current.existing:
            raise exception.InventoryNotFound(resource_class=name,
                                              uuid=provider_uuid)
        return _write_one(conn, locked, current, inventory,
                          allow_reserved_equal_total)


@db_api.operation(on_duplicate='conflict')
def delete_inventory(ctx, provider_uuid, resource_class):
    """Remove one class from a provider's inventory; bump the generation.

    Raises ResourceClassNotFound (unknown class), InventoryNotFound
    (absent), InventoryInUse.
    """
    with db_api.transaction(ctx) as conn:
        provider, generation = _lock_provider(conn, provider_uuid)
        current = fetch_current(conn, provider.id, [])
        existing = dict(current.existing)
        if resource_class not in existing:
            rc_obj.fetch_ids_by_name(conn, [resource_class])
            raise exception.InventoryNotFound(resource_class=resource_class,
                                              uuid=provider_uuid)
        if current.usages.get(resource_class, 0) > 0:
            raise exception.InventoryInUse(resource_classes=resource_class,
                                           uuid=provider_uuid)
        del existing[resource_class]
        # That row only: the others keep their updated_at, as upstream's.
        _delete_rows(conn, provider.id,
                     [current.class_ids[resource_class]])
        expect_inventories(provider.uuid, generation, existing,
                           lambda stored: None)


@db_api.operation(on_duplicate='conflict')
def delete_inventories(ctx, provider_uuid):
    """Remove every inventory of a provider; bump the generation.

    No generation from the caller: a concurrent write still shows up as
    ResourceProviderGenerationConflict. Raises InventoryInUse.
    """
    with db_api.transaction(ctx) as conn:
        provider, generation = _lock_provider(conn, provider_uuid)
        replace_inventories(conn, provider, {}, True)
        expect_inventories(provider.uuid, generation, {}, lambda stored: None)
