"""Resource providers: create, read, list, update, delete, and the
generation compare-and-swap every provider write goes through.

Queries (``fetch_*``, ``bump_generation``) take ``conn`` first and never
begin or commit; the public operations (``create_provider``,
``get_provider``, ``update_provider``,
``delete_provider``) each open exactly one transaction. No WebOb here.
"""
import dataclasses
import datetime
import functools
import typing

from oslo_db import exception as db_exc
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import backend
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import landed
from placement.objects import provider_insert
from placement.objects import provider_tree

# An argument that was not given at all (as opposed to given as None).
UNSET = object()


@dataclasses.dataclass(frozen=True)
class Provider:
    id: int
    uuid: str
    name: typing.Optional[str]
    generation: int
    parent_provider_id: typing.Optional[int]
    root_provider_id: int
    parent_provider_uuid: typing.Optional[str]
    root_provider_uuid: str
    created_at: typing.Optional[datetime.datetime]
    updated_at: typing.Optional[datetime.datetime]


@functools.cache
def select_providers_stmt():
    """Providers with their parent and root uuids.

    SELECT rp.*, parent.uuid, root.uuid FROM resource_providers rp
    LEFT JOIN resource_providers parent ON parent.id = rp.parent_provider_id
    LEFT JOIN resource_providers root ON root.id = rp.root_provider_id
    """
    rp = models.resource_providers
    parent = rp.alias('parent')
    root = rp.alias('root')
    return sa.select(
        rp.c.id, rp.c.uuid, rp.c.name, rp.c.generation,
        rp.c.parent_provider_id, rp.c.root_provider_id,
        parent.c.uuid.label('parent_provider_uuid'),
        root.c.uuid.label('root_provider_uuid'),
        rp.c.created_at, rp.c.updated_at,
    ).select_from(
        rp.outerjoin(parent, parent.c.id == rp.c.parent_provider_id)
          .outerjoin(root, root.c.id == rp.c.root_provider_id))


def provider_from_row(row):
    return Provider(
        id=row.id, uuid=row.uuid, name=row.name,
        generation=row.generation or 0,
        parent_provider_id=row.parent_provider_id,
        root_provider_id=row.root_provider_id or row.id,
        parent_provider_uuid=row.parent_provider_uuid,
        root_provider_uuid=row.root_provider_uuid or row.uuid,
        created_at=row.created_at, updated_at=row.updated_at)


@functools.cache
def _select_provider_by_uuid_stmt():
    rp = models.resource_providers
    return select_providers_stmt().where(
        rp.c.uuid == sa.bindparam('provider_uuid'))


def fetch_provider(conn, uuid) -> Provider:
    """The provider with ``uuid``; raise ResourceProviderNotFound."""
    row = conn.execute(_select_provider_by_uuid_stmt(),
                       {'provider_uuid': uuid}).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return provider_from_row(row)


class Generation(typing.NamedTuple):
    """What a listing of a provider's own rows tells of the provider."""
    uuid: str
    generation: int


def select_with_children_stmt(columns, joins, order_by):
    """One provider (the bind parameter ``provider_uuid``) and its child
    rows in one statement, a row per child and one row without when it
    has none:

    SELECT rp.generation, <columns> FROM resource_providers rp
    LEFT JOIN <table> ON <on> ...  -- ``joins``: (table, on(rp)) pairs
    WHERE rp.uuid = :provider_uuid ORDER BY <order_by>
    """
    rp = models.resource_providers
    source = rp
    for table, on in joins:
        source = source.outerjoin(table, on(rp))
    return (sa.select(rp.c.generation, *columns).select_from(source)
            .where(rp.c.uuid == sa.bindparam('provider_uuid'))
            .order_by(*order_by))


def fetch_with_children(conn, stmt, uuid):
    """(Generation, child rows) of ``select_with_children_stmt``'s
    ``stmt``: a round trip where a lookup of the provider and one of its
    rows took two. Raise ResourceProviderNotFound.
    """
    rows = conn.execute(stmt, {'provider_uuid': uuid}).all()
    if not rows:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return (Generation(uuid, rows[0][0] or 0),
            [row for row in rows if row[1] is not None])


def fetch_providers_by_uuid(conn, uuids) -> dict:
    """{uuid: Provider} for those of ``uuids`` that exist."""
    if not uuids:
        return {}
    rp = models.resource_providers
    rows = conn.execute(select_providers_stmt().where(
        rp.c.uuid.in_(sorted(set(uuids)))))
    return {row.uuid: provider_from_row(row) for row in rows}


def _bump_stmt():
    rp = models.resource_providers
    return (rp.update()
            .where(rp.c.id == sa.bindparam('rp_id'))
            .where(rp.c.generation == sa.bindparam('seen'))
            .values(generation=sa.bindparam('new'),
                    updated_at=sa.bindparam('now')))


# Built once: building a statement costs more CPU than running it.
_BUMP = _bump_stmt()


def bump_generation(conn, provider_id, seen_generation) -> int:
    """Compare-and-swap the generation; return the new one.

    UPDATE resource_providers SET generation = :seen + 1
    WHERE id = :id AND generation = :seen

    Raise ResourceProviderGenerationConflict when no row matched: someone
    else changed the provider since ``seen_generation`` was read.
    """
    new_generation = seen_generation + 1
    result = conn.execute(_BUMP, {'rp_id': provider_id,
                                  'seen': seen_generation,
                                  'new': new_generation,
                                  'now': _sql.utcnow()})
    if result.rowcount != 1:
        raise exception.ResourceProviderGenerationConflict()
    return new_generation


def bump_generations(conn, seen: typing.Dict[int, int]) -> None:
    """Compare-and-swap the generations of several providers (``seen``:
    {provider id: generation read}) in one statement, ids in order.

    UPDATE resource_providers SET generation = generation + 1, updated_at
    WHERE (id = :id1 AND generation = :g1) OR (id = :id2 AND ...)

    Raise ResourceProviderGenerationConflict unless every one matched.
    """
    if not seen:
        return
    if len(seen) == 1:
        [(provider_id, generation)] = seen.items()
        bump_generation(conn, provider_id, generation)
        return
    rp = models.resource_providers
    result = conn.execute(
        rp.update()
        .where(sa.or_(*[sa.and_(rp.c.id == provider_id,
                                rp.c.generation == generation)
                        for provider_id, generation in sorted(seen.items())]))
        .values(generation=rp.c.generation + 1, updated_at=_sql.utcnow()))
    if result.rowcount != len(seen):
        raise exception.ResourceProviderGenerationConflict()


def lock_provider_row(conn, uuid) -> None:
    """SELECT id FROM resource_providers WHERE uuid = :uuid FOR UPDATE

    Taken before any plain read of the row, so that a writer never holds a
    shared lock it must later upgrade (MariaDB at SERIALIZABLE turns plain
    reads into shared locks, and two upgrades deadlock). A no-op on SQLite.
    """
    rp = models.resource_providers
    conn.execute(sa.select(rp.c.id).where(rp.c.uuid == uuid)
                 .with_for_update()).all()


def lock_then_read(conn, uuids, read_stmt, params) -> list:
    """The rows of ``read_stmt`` read after locking the rows of the
    providers ``uuids`` (missing ones are no error), in uuid order, the
    same for every writer (db_api.lock_then_read).

    For a write that will read, then compare-and-swap, the generations
    of these providers: taken first, it makes a concurrent writer of the
    same providers wait for this one's COMMIT and read after it, instead
    of reading the same generation and losing the swap after all its
    work. The swap stays: it catches any writer that takes no such lock.
    First also because MariaDB takes a transaction's snapshot at its
    first plain read: that snapshot is then newer than every writer this
    one waited for. PostgreSQL's lock is FOR NO KEY UPDATE, as the swap's
    UPDATE takes, which does not block inserting a child or a trait row.
    """
    return db_api.lock_then_read(conn, models.resource_providers.c.uuid,
                                 uuids, read_stmt, params)


@dataclasses.dataclass(frozen=True)
class LockedProvider:
    """What a write of one provider's content needs of its row."""
    id: int
    uuid: str
    generation: int


def _select_locked_stmt():
    rp = models.resource_providers
    return (sa.select(rp.c.id, rp.c.uuid, rp.c.generation)
            .where(rp.c.uuid == sa.bindparam('uuid')).with_for_update())


_SELECT_LOCKED = _select_locked_stmt()


def fetch_locked_provider(conn, uuid,
                          seen_generation: typing.Optional[int] = None
                          ) -> LockedProvider:
    """Read the provider's id and generation with a locking read.

    SELECT id, uuid, generation FROM resource_providers
    WHERE uuid = :uuid FOR UPDATE

    One statement locks and reads (``lock_provider_row`` says why the lock
    comes first). Raise ResourceProviderNotFound, and
    ResourceProviderGenerationConflict when ``seen_generation`` is given
    and is not the current generation.
    """
    row = conn.execute(_SELECT_LOCKED, {'uuid': uuid}).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    provider = LockedProvider(row.id, row.uuid, row.generation or 0)
    if (seen_generation is not None
            and seen_generation != provider.generation):
        raise exception.ResourceProviderGenerationConflict()
    return provider


# --- create ---------------------------------------------------------------

def _create_error(reason):
    return exception.ObjectActionError(action='create', reason=reason)


def _update_error(reason):
    return exception.ObjectActionError(action='update', reason=reason)


def _check_name_free(conn, name, exclude_id):
    """Raise DuplicateName when a provider other than ``exclude_id`` has
    ``name`` (a create leaves this to the unique keys: _refused_create)."""
    rp = models.resource_providers
    if conn.execute(sa.select(rp.c.id).where(
            rp.c.name == name, rp.c.id != exclude_id)).first():
        raise exception.DuplicateName(field='name', value=name)


def _select_parent_stmt():
    """SELECT parent.id, parent.uuid, parent.root_provider_id, root.uuid
    FROM resource_providers parent
    LEFT JOIN resource_providers root ON root.id = parent.root_provider_id
    WHERE parent.uuid = :uuid
    """
    parent = models.resource_providers.alias('parent')
    root = models.resource_providers.alias('root')
    return sa.select(
        parent.c.id, parent.c.uuid, parent.c.root_provider_id,
        root.c.uuid.label('root_uuid'),
    ).select_from(parent.outerjoin(
        root, root.c.id == parent.c.root_provider_id)).where(
        parent.c.uuid == sa.bindparam('uuid'))


_SELECT_PARENT = _select_parent_stmt()
_INSERT = models.resource_providers.insert()


def _set_own_root_stmt():
    rp = models.resource_providers
    return rp.update().where(rp.c.id == sa.bindparam('rp_id')).values(
        root_provider_id=sa.bindparam('rp_id'))


_SET_OWN_ROOT = _set_own_root_stmt()


def _insert_provider(conn, uuid, name, parent) -> Provider:
    """Insert the row; the provider as stored, without reading it back.

    The unique keys on uuid and name refuse a duplicate (DBDuplicateEntry,
    which the caller translates): no SELECT beforehand. A root learns its
    own id inside its INSERT where the database can draw the id first
    (provider_insert.insert_root), else by an UPDATE after it; its
    updated_at is set from birth (upstream's root rows carry it, its
    child rows do not).
    """
    now = _sql.utcnow()
    updated_at = None if parent else now
    if parent is None and provider_insert.root_in_one_statement(conn):
        provider_id = provider_insert.insert_root(conn, uuid, name, now)
    else:
        provider_id = conn.execute(_INSERT, dict(
            uuid=uuid, name=name, generation=0, created_at=now,
            updated_at=updated_at,
            parent_provider_id=parent.id if parent else None,
            root_provider_id=parent.root_provider_id if parent else None,
        )).inserted_primary_key[0]
        if parent is None:
            conn.execute(_SET_OWN_ROOT, {'rp_id': provider_id})
    return _created(uuid, name, now, provider_id, parent)


def _insert_child(conn, uuid, name, parent_uuid) -> Provider:
    """The child's INSERT in one statement (provider_insert)."""
    now = _sql.utcnow()
    row = provider_insert.insert_child(conn, uuid, name, now, parent_uuid)
    if row is None:
        raise _create_error('parent provider UUID does not exist.')
    parent = _ParentRow(row.parent_provider_id, row.parent_uuid,
                        row.root_provider_id, row.root_uuid)
    return _created(uuid, name, now, row.id, parent)


@dataclasses.dataclass(frozen=True)
class _ParentRow:
    """What _created needs of a parent (as _SELECT_PARENT's row)."""
    id: int
    uuid: str
    root_provider_id: typing.Optional[int]
    root_uuid: typing.Optional[str]


def _created(uuid, name, now, provider_id, parent) -> Provider:
    """The provider as just inserted (under ``parent``, or a root)."""
    updated_at = None if parent else now
    return Provider(
        id=provider_id, uuid=uuid, name=name, generation=0,
        parent_provider_id=parent.id if parent else None,
        root_provider_id=(parent.root_provider_id if parent else None)
        or provider_id,
        parent_provider_uuid=parent.uuid if parent else None,
        root_provider_uuid=(parent.root_uuid if parent else None) or uuid,
        created_at=now, updated_at=updated_at)


@db_api.operation
def create_provider(ctx, uuid: str, name: str,
                    parent_uuid: typing.Optional[str] = None) -> Provider:
    """Create a provider (generation 0) under ``parent_uuid`` or as a root.

    ``uuid`` must already be canonical. Raises ObjectActionError for a bad
    name or parent, DuplicateName for a taken uuid or name. Opens its own
    transaction: one statement where provider_insert can (a child with
    INSERT ... RETURNING, a root on PostgreSQL), else two (the parent's
    row, or the root's own id; and the INSERT).
    """
    if not name:
        raise _create_error('name is required')
    if parent_uuid is not None and parent_uuid == uuid:
        raise _create_error(
            'parent provider UUID cannot be same as UUID. Please set '
            'parent provider UUID to None if there is no parent.')
    try:
        with db_api.transaction(ctx) as conn:
            if parent_uuid is None:
                created = _insert_provider(conn, uuid, name, None)
            elif provider_insert.child_in_one_statement(conn):
                created = _insert_child(conn, uuid, name, parent_uuid)
            else:
                created = _insert_provider(
                    conn, uuid, name, _fetch_parent(conn, parent_uuid))
            landed.expect_row(models.resource_providers.c.id, created.id,
                              True, lambda found: fetch_provider(found, uuid))
            return created
    except db_exc.DBDuplicateEntry:
        raise _refused_create(ctx, uuid, name)
    except db_exc.DBReferenceError:
        # The parent was deleted while this create ran.
        raise _create_error('parent provider UUID does not exist.')


@db_api.operation
def _refused_create(ctx, uuid, name):
    """The DuplicateName of a create the unique keys refused, naming the
    key upstream names: the uuid when it is taken, unless the name is
    taken too where upstream's schema checks the name key first
    (backend.checks_name_key_first). Either key may have fired, hence
    the read.
    """
    rp = models.resource_providers
    with db_api.reader(ctx) as conn:
        uuid_taken = _has_rows(conn, rp.c.uuid, uuid)
        if uuid_taken and backend.checks_name_key_first(conn):
            uuid_taken = not _has_rows(conn, rp.c.name, name)
    if uuid_taken:
        return exception.DuplicateName(field='uuid', value=uuid)
    return exception.DuplicateName(field='name', value=name)


def _fetch_parent(conn, parent_uuid):
    row = conn.execute(_SELECT_PARENT, {'uuid': parent_uuid}).first()
    if row is None:
        # Upstream words this one as a 'create' failure on update too.
        raise _create_error('parent provider UUID does not exist.')
    return row


# --- read -----------------------------------------------------------------

@db_api.operation
def get_provider(ctx, uuid: str) -> Provider:
    """The provider with ``uuid``; raise ResourceProviderNotFound."""
    with db_api.reader(ctx, snapshot=False) as conn:
        return fetch_provider(conn, uuid)


# --- update ---------------------------------------------------------------

def _new_parent(conn, me, parent_uuid, allow_reparenting):
    """The new parent's tree row (or None) after the parent rules."""
    if parent_uuid is None:
        if me.parent_provider_id is not None and not allow_reparenting:
            raise _update_error(
                'un-parenting a provider is not currently allowed.')
        return None
    parent = provider_tree.fetch_tree_row(conn, parent_uuid)
    if parent is None:
        # Upstream words this one as a 'create' failure on update too.
        raise _create_error('parent provider UUID does not exist.')
    if (me.parent_provider_id not in (None, parent.id)
            and not allow_reparenting):
        raise _update_error(
            're-parenting a provider is not currently allowed.')
    return parent


def _move(conn, me, parent):
    """Hang ``me`` under ``parent`` (None: make it a root); the whole
    subtree gets the new root. Raise on a loop.
    """
    rp = models.resource_providers
    moved = provider_tree.subtree_ids(
        provider_tree.fetch_tree_links(conn, me.root_provider_id), me.id)
    if parent is not None and parent.id in moved:
        raise _update_error(
            'creating loop in the provider tree is not allowed.')
    new_root_id = parent.root_provider_id if parent else me.id
    conn.execute(rp.update().where(rp.c.id == me.id).values(
        parent_provider_id=parent.id if parent else None))
    if new_root_id != me.root_provider_id:
        conn.execute(rp.update().where(rp.c.id.in_(sorted(moved)))
                     .values(root_provider_id=new_root_id))


def _reparent(conn, uuid, parent_uuid, allow_reparenting):
    """Move the provider under ``parent_uuid``; the provider as it was
    (its times read before lock_trees touched them)."""
    stamps = provider_tree.lock_trees(conn, [uuid, parent_uuid or uuid])
    me = provider_tree.fetch_tree_row(conn, uuid)
    if me is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    before = fetch_provider(conn, uuid)
    if uuid in stamps:
        before = dataclasses.replace(before, created_at=stamps[uuid][0],
                                     updated_at=stamps[uuid][1])
    parent = _new_parent(conn, me, parent_uuid, allow_reparenting)
    if parent is not None or me.parent_provider_id is not None:
        _move(conn, me, parent)
    return before


@db_api.operation
def update_provider(ctx, uuid: str, name: str, parent_uuid=UNSET,
                    allow_reparenting: bool = False) -> Provider:
    """Rename and/or (re-/un-)parent a provider; the generation stays.

    ``parent_uuid`` UNSET leaves the parent alone. updated_at moves only
    when the name or the parent changed. The provider returned carries
    the timestamps it had before: the reference service answers with
    those (its Last-Modified is the previous update, or the creation).
    Raises ResourceProviderNotFound, ObjectActionError (parent rules),
    DuplicateName. Opens its own transaction.
    """
    try:
        with db_api.transaction(ctx) as conn:
            if parent_uuid is not UNSET:
                before = _reparent(conn, uuid, parent_uuid,
                                   allow_reparenting)
            else:
                lock_provider_row(conn, uuid)
                before = fetch_provider(conn, uuid)
            provider = fetch_provider(conn, uuid)
            _check_name_free(conn, name, provider.id)
            if (name != before.name or provider.parent_provider_id
                    != before.parent_provider_id):
                rp = models.resource_providers
                conn.execute(rp.update().where(rp.c.id == provider.id)
                             .values(name=name, updated_at=_sql.utcnow()))
                provider = fetch_provider(conn, uuid)
            return dataclasses.replace(provider,
                                       created_at=before.created_at,
                                       updated_at=before.updated_at)
    except db_exc.DBDuplicateEntry:
        # The same name taken by a rename that committed meanwhile.
        raise exception.DuplicateName(field='name', value=name)


# --- delete ---------------------------------------------------------------

def _has_rows(conn, column, value):
    return conn.execute(sa.select(sa.literal(1)).where(column == value)
                        .limit(1)).first() is not None


@db_api.operation
def delete_provider(ctx, uuid: str) -> None:
    """Delete a leaf provider without allocations, with its inventories
    and its trait and aggregate links (the aggregates stay).

    The generation compare-and-swap comes first: it locks the row, so an
    allocation or child written concurrently either commits before (and
    this delete sees it, or fails the swap) or finds the provider gone.

    Raises ResourceProviderNotFound, CannotDeleteParentResourceProvider,
    ResourceProviderInUse, ResourceProviderGenerationConflict. Opens its
    own transaction.
    """
    try:
        with db_api.transaction(ctx) as conn:
            provider = fetch_locked_provider(conn, uuid)
            _delete_provider(conn, provider)
            landed.expect_row(models.resource_providers.c.id, provider.id,
                              False)
    except db_exc.DBReferenceError:
        # A child was added while this delete ran.
        raise exception.CannotDeleteParentResourceProvider(uuid=uuid)


def _delete_provider(conn, provider):
    uuid = provider.uuid
    bump_generation(conn, provider.id, provider.generation)
    rp = models.resource_providers
    if _has_rows(conn, rp.c.parent_provider_id, provider.id):
        raise exception.CannotDeleteParentResourceProvider(uuid=uuid)
    alloc = models.allocations
    if _has_rows(conn, alloc.c.resource_provider_id, provider.id):
        raise exception.ResourceProviderInUse(uuid=uuid)
    for table in (models.inventories,
                  models.resource_provider_aggregates,
                  models.resource_provider_traits):
        conn.execute(table.delete().where(
            table.c.resource_provider_id == provider.id))
    # The row is its own root: clear that before deleting so that the
    # self-referencing foreign key never blocks the delete.
    conn.execute(rp.update().where(rp.c.id == provider.id)
                 .values(root_provider_id=None))
    conn.execute(rp.delete().where(rp.c.id == provider.id))
