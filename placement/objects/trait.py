"""Traits: lookups, custom trait create/delete, a provider's trait set,
and the ``required`` filter clauses of the provider list.

Queries take ``conn`` first and never begin or commit; the public
operations each open exactly one transaction. No WebOb here.
"""
import dataclasses
import datetime
import functools
import typing

from oslo_db import exception as db_exc
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import in_lists
from placement.db import models
from placement import exception
from placement.objects import _sql
from placement.objects import landed
from placement.objects import resource_provider as rp_obj

CUSTOM_PREFIX = 'CUSTOM_'


@dataclasses.dataclass(frozen=True)
class Trait:
    name: str
    created_at: typing.Optional[datetime.datetime]
    updated_at: typing.Optional[datetime.datetime]


@dataclasses.dataclass(frozen=True)
class TraitListFilter:
    """GET /traits filters: names (in:), prefix (startswith:), associated
    (True, False or None for either)."""
    names: typing.Optional[typing.FrozenSet[str]] = None
    prefix: typing.Optional[str] = None
    associated: typing.Optional[bool] = None


@dataclasses.dataclass(frozen=True)
class ProviderTraits:
    """The traits of one provider and its generation."""
    traits: typing.Tuple[Trait, ...]
    generation: int


def fetch_ids_by_name(conn, names) -> dict:
    """{name: id} for ``names``; raise TraitNotFound naming the missing."""
    found, missing = _sql.fetch_ids_by_name(conn, models.traits, names)
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))
    return found


def _has_trait(provider_id_col, trait_ids):
    """EXISTS (SELECT 1 FROM resource_provider_traits rpt
    WHERE rpt.resource_provider_id = rp.id AND rpt.trait_id IN (:ids))
    """
    rpt = models.resource_provider_traits.alias('req_rpt')
    return sa.exists(
        sa.select(sa.literal(1)).select_from(rpt)
        .where(rpt.c.resource_provider_id == provider_id_col,
               rpt.c.trait_id.in_(sorted(trait_ids))))


def trait_clauses(provider_id_col, trait_filter, trait_ids) -> list:
    """WHERE clauses for a TraitFilter on the provider itself.

    ``trait_ids`` maps every name the filter mentions to its id.
    """
    clauses = [_has_trait(provider_id_col, [trait_ids[name]])
               for name in sorted(trait_filter.required)]
    if trait_filter.forbidden:
        clauses.append(~_has_trait(
            provider_id_col,
            [trait_ids[name] for name in trait_filter.forbidden]))
    for group in trait_filter.any_of:
        clauses.append(_has_trait(provider_id_col,
                                  [trait_ids[name] for name in group]))
    return clauses


def _trait_from_row(row):
    return Trait(row.name, row.created_at, row.updated_at)


def select_traits_stmt(tfilter):
    """SELECT name, created_at, updated_at FROM traits WHERE ... ORDER BY
    id; ``associated`` becomes [NOT] EXISTS over provider links.

    By id (creation order; the standard traits first) on every backend,
    whatever the filter: upstream leaves the order to its database's plan.
    """
    trait = models.traits
    stmt = sa.select(trait.c.name, trait.c.created_at, trait.c.updated_at)
    if tfilter.names is not None:
        stmt = stmt.where(trait.c.name.in_(sorted(tfilter.names)))
    if tfilter.prefix is not None:
        # A plain LIKE, as upstream: '%' and '_' in the prefix are
        # wildcards (startswith:HW%AVX512 matches HW_CPU_X86_AVX512CD).
        stmt = stmt.where(trait.c.name.like(tfilter.prefix + '%'))
    if tfilter.associated is not None:
        rpt = models.resource_provider_traits
        linked = sa.exists(sa.select(sa.literal(1)).select_from(rpt)
                           .where(rpt.c.trait_id == trait.c.id))
        stmt = stmt.where(linked if tfilter.associated else ~linked)
    return stmt.order_by(trait.c.id)


@db_api.operation
def list_traits(ctx, tfilter: TraitListFilter) -> typing.List[Trait]:
    """Traits matching the filter, by id."""
    with db_api.reader(ctx, snapshot=False) as conn:
        return [_trait_from_row(row)
                for row in conn.execute(select_traits_stmt(tfilter))]


def fetch_trait(conn, name) -> Trait:
    trait = models.traits
    row = conn.execute(
        sa.select(trait.c.id, trait.c.name, trait.c.created_at,
                  trait.c.updated_at).where(trait.c.name == name)).first()
    if row is None:
        raise exception.TraitNotFound(names=name)
    return _trait_from_row(row)


@db_api.operation
def get_trait(ctx, name: str) -> Trait:
    """The trait called ``name``; raise TraitNotFound."""
    with db_api.reader(ctx, snapshot=False) as conn:
        return fetch_trait(conn, name)


@db_api.operation
def create_trait(ctx, name: str) -> typing.Tuple[Trait, bool]:
    """Create a custom trait unless it exists; (trait, created).

    Opens its own transaction; a lost creation race reads the winner's row.
    """
    try:
        with db_api.transaction(ctx) as conn:
            try:
                return fetch_trait(conn, name), False
            except exception.TraitNotFound:
                pass
            conn.execute(models.traits.insert().values(
                name=name, created_at=_sql.utcnow()))
            landed.expect_row(models.traits.c.name, name, True,
                              lambda found: (fetch_trait(found, name), True))
            return fetch_trait(conn, name), True
    except db_exc.DBDuplicateEntry:
        return get_trait(ctx, name), False


@db_api.operation
def delete_trait(ctx, name: str) -> None:
    """Delete a custom trait no provider has.

    Raises TraitNotFound, TraitCannotDeleteStandard, TraitInUse. Opens its
    own transaction.
    """
    trait = models.traits
    rpt = models.resource_provider_traits
    try:
        with db_api.transaction(ctx) as conn:
            trait_id = fetch_ids_by_name(conn, [name])[name]
            if not name.startswith(CUSTOM_PREFIX):
                raise exception.TraitCannotDeleteStandard(name=name)
            in_use = conn.execute(sa.select(sa.literal(1))
                                  .where(rpt.c.trait_id == trait_id)
                                  .limit(1)).first()
            if in_use:
                raise exception.TraitInUse(name=name)
            conn.execute(trait.delete().where(trait.c.id == trait_id))
            landed.expect_row(trait.c.id, trait_id, False)
    except db_exc.DBReferenceError:
        # A provider took the trait while this delete ran.
        raise exception.TraitInUse(name=name)


def fetch_provider_traits(conn, provider_id) -> typing.List[Trait]:
    """The traits of one provider, by trait id."""
    trait = models.traits
    rpt = models.resource_provider_traits
    rows = conn.execute(
        sa.select(trait.c.name, trait.c.created_at, trait.c.updated_at)
        .select_from(trait.join(rpt, rpt.c.trait_id == trait.c.id))
        .where(rpt.c.resource_provider_id == provider_id)
        .order_by(rpt.c.trait_id))
    return [_trait_from_row(row) for row in rows]


@functools.cache
def _select_provider_traits_stmt():
    """The provider and its traits by trait id, in one statement."""
    trait = models.traits
    rpt = models.resource_provider_traits
    return rp_obj.select_with_children_stmt(
        (trait.c.name, trait.c.created_at, trait.c.updated_at),
        ((rpt, lambda rp: rpt.c.resource_provider_id == rp.c.id),
         (trait, lambda rp: trait.c.id == rpt.c.trait_id)),
        (rpt.c.trait_id,))


@db_api.operation
def get_provider_traits(ctx, provider_uuid: str) -> ProviderTraits:
    """The traits of a provider, by trait id; raise
    ResourceProviderNotFound."""
    with db_api.reader(ctx, snapshot=False) as conn:
        provider, rows = rp_obj.fetch_with_children(
            conn, _select_provider_traits_stmt(),
            provider_uuid)
    return ProviderTraits(
        tuple(Trait(row[1], row[2], row[3]) for row in rows),
        provider.generation)


def fetch_provider_trait_ids(conn, provider_id) -> set:
    return _sql.fetch_linked_ids(conn, models.resource_provider_traits,
                                 'trait_id', provider_id)


def replace_provider_traits(conn, provider_id, current, wanted) -> None:
    """Turn the provider's trait ids ``current`` into ``wanted``."""
    _sql.replace_links(conn, models.resource_provider_traits, 'trait_id',
                       provider_id, current, wanted)


def set_provider_traits(ctx, provider_uuid: str, names,
                        seen_generation: typing.Optional[int]
                        ) -> ProviderTraits:
    """Replace a provider's traits; bump its generation once if the set
    changed.

    ``seen_generation`` None skips the client check (DELETE); a concurrent
    change is still caught by the compare-and-swap. Raises
    ResourceProviderNotFound, ResourceProviderGenerationConflict,
    TraitNotFound. Opens its own transaction.
    """
    try:
        return _set_provider_traits(ctx, provider_uuid, names,
                                    seen_generation)
    except db_exc.DBReferenceError:
        # One of the traits was deleted while this write ran.
        raise exception.TraitNotFound(names=', '.join(sorted(set(names))))


def _expect_traits(provider_uuid, generation, wanted_ids):
    def matches(conn, provider):
        if fetch_provider_trait_ids(conn, provider.id) != wanted_ids:
            return landed.NOT_LANDED
        return ProviderTraits(
            tuple(fetch_provider_traits(conn, provider.id)), generation)
    landed.expect_provider(provider_uuid, generation, matches)


@functools.lru_cache(maxsize=32)
def select_named_and_linked_stmt(slots):
    """The traits named (by id, as the GET lists them) and the provider's
    trait ids, in one round trip.

    SELECT t.id, t.name, t.created_at, t.updated_at, 1 AS is_named
    FROM traits t WHERE t.name IN (:names_0, ...)   -- ``slots`` (db.in_lists)
    UNION ALL
    SELECT rpt.trait_id, NULL, NULL, NULL, 0
    FROM resource_provider_traits rpt WHERE rpt.resource_provider_id = :rp_id
    ORDER BY id
    """
    trait = models.traits
    rpt = models.resource_provider_traits
    named = sa.select(
        trait.c.id, trait.c.name, trait.c.created_at, trait.c.updated_at,
        sa.literal(1, sa.Integer).label('is_named'),
    ).where(in_lists.in_(trait.c.name, 'names', slots))
    linked = sa.select(
        rpt.c.trait_id, sa.null(), sa.null(), sa.null(),
        sa.literal(0, sa.Integer),
    ).where(rpt.c.resource_provider_id == sa.bindparam('rp_id'))
    return sa.union_all(named, linked).order_by(sa.column('id'))


def _fetch_named_and_linked(conn, provider_id, names):
    """([Trait named, by id], {their ids}, {the provider's trait ids});
    raise TraitNotFound naming the missing."""
    named, wanted, current = [], set(), set()
    values = sorted(set(names))
    params = in_lists.bind('names', values)
    params['rp_id'] = provider_id
    stmt = select_named_and_linked_stmt(in_lists.size(values))
    for row in conn.execute(stmt, params):
        if row.is_named:
            named.append(_trait_from_row(row))
            wanted.add(row.id)
        else:
            current.add(row.id)
    missing = sorted(set(names) - {trait.name for trait in named})
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))
    return named, wanted, current


@db_api.operation
def _set_provider_traits(ctx, provider_uuid, names, seen_generation):
    with db_api.transaction(ctx) as conn:
        provider = rp_obj.fetch_locked_provider(conn, provider_uuid,
                                                seen_generation)
        named, wanted, current = _fetch_named_and_linked(
            conn, provider.id, names)
        generation = provider.generation
        if wanted != current:
            # The compare-and-swap first: it locks the provider row, so
            # the link rows below are written by one writer at a time.
            generation = rp_obj.bump_generation(conn, provider.id,
                                                provider.generation)
            replace_provider_traits(conn, provider.id, current, wanted)
            _expect_traits(provider.uuid, generation, wanted)
        # The provider now has exactly the named traits: no read-back.
        return ProviderTraits(tuple(named), generation)
