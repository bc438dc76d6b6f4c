"""Aggregates: a provider's aggregate uuids, replacing them, and the
``member_of`` filter clauses of the provider list.

Aggregates are created the first time a provider joins them and are never
deleted. Queries take ``conn`` first; ``get_aggregates`` and
``set_aggregates`` each open one transaction. No WebOb here.
"""
import dataclasses
import functools
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import in_lists
from placement.db import models
from placement.objects import _sql
from placement.objects import landed
from placement.objects import provider_cas
from placement.objects import resource_provider as rp_obj


@dataclasses.dataclass(frozen=True)
class ProviderAggregates:
    """The aggregate uuids of one provider and its generation."""
    aggregates: typing.Tuple[str, ...]
    generation: int


def _member_exists(provider_id_col, uuids):
    """EXISTS (SELECT 1 FROM resource_provider_aggregates rpa
    JOIN placement_aggregates agg ON agg.id = rpa.aggregate_id
    WHERE rpa.resource_provider_id = rp.id AND agg.uuid IN (:uuids))
    """
    rpa = models.resource_provider_aggregates.alias('mo_rpa')
    agg = models.placement_aggregates.alias('mo_agg')
    return sa.exists(
        sa.select(sa.literal(1))
        .select_from(rpa.join(agg, agg.c.id == rpa.c.aggregate_id))
        .where(rpa.c.resource_provider_id == provider_id_col,
               agg.c.uuid.in_(sorted(uuids))))


def member_of_clauses(provider_id_col, agg_filter) -> list:
    """WHERE clauses for an AggregateFilter on the provider itself: one
    EXISTS per required set (any of its uuids), one NOT EXISTS for the
    forbidden ones.
    """
    clauses = [_member_exists(provider_id_col, uuids)
               for uuids in agg_filter.required]
    if agg_filter.forbidden:
        clauses.append(~_member_exists(provider_id_col,
                                       agg_filter.forbidden))
    return clauses


def fetch_provider_aggregates(conn, provider_id) -> list:
    """The aggregate uuids of one provider, by aggregate id (the order
    the aggregates were first stored in)."""
    rpa = models.resource_provider_aggregates
    agg = models.placement_aggregates
    rows = conn.execute(
        sa.select(agg.c.uuid)
        .select_from(rpa.join(agg, agg.c.id == rpa.c.aggregate_id))
        .where(rpa.c.resource_provider_id == provider_id)
        .order_by(agg.c.id))
    return [row.uuid for row in rows]


@functools.lru_cache(maxsize=32)
def select_named_and_linked_stmt(slots):
    """The aggregates named (by uuid) and the provider's aggregate ids,
    in one round trip.

    SELECT agg.uuid, agg.id FROM placement_aggregates agg
    WHERE agg.uuid IN (:uuids_0, ...)  -- ``slots`` of them (db.in_lists)
    UNION ALL
    SELECT NULL, rpa.aggregate_id FROM resource_provider_aggregates rpa
    WHERE rpa.resource_provider_id = :rp_id
    """
    agg = models.placement_aggregates
    rpa = models.resource_provider_aggregates
    return sa.union_all(
        sa.select(agg.c.uuid, agg.c.id).where(
            in_lists.in_(agg.c.uuid, 'uuids', slots)),
        sa.select(sa.null(), rpa.c.aggregate_id).where(
            rpa.c.resource_provider_id == sa.bindparam('rp_id')))


def ensure_aggregate_ids(conn, uuids, rows) -> dict:
    """{uuid: id}, inserting the aggregates not among ``rows`` (uuid, id:
    those the IN matched).

    Uuids are stored as given. On MariaDB's case-insensitive collation
    'ABC...' finds the stored 'abc...' row, so a row the IN matched under
    another spelling is that aggregate (inserting would be a duplicate).
    """
    agg = models.placement_aggregates
    by_spelling = {row.uuid: row.id for row in rows}
    by_folded = {row.uuid.lower(): row.id for row in rows}
    found = {}
    now = _sql.utcnow()
    for uuid in sorted(set(uuids)):
        agg_id = by_spelling.get(uuid, by_folded.get(uuid.lower()))
        if agg_id is None:
            agg_id = conn.execute(agg.insert().values(
                uuid=uuid, created_at=now)).inserted_primary_key[0]
            by_folded[uuid.lower()] = agg_id
        found[uuid] = agg_id
    return found


def replace_provider_aggregates(conn, provider_id, uuids) -> None:
    """Make ``uuids`` exactly the aggregates of one provider."""
    values = sorted(set(uuids))
    params = in_lists.bind('uuids', values)
    params['rp_id'] = provider_id
    rows = conn.execute(select_named_and_linked_stmt(in_lists.size(values)),
                        params).all()
    named = [row for row in rows if row.uuid is not None]
    current = {row.id for row in rows if row.uuid is None}
    wanted = ensure_aggregate_ids(conn, uuids, named)
    _sql.replace_links(conn, models.resource_provider_aggregates,
                       'aggregate_id', provider_id, current,
                       set(wanted.values()))


@db_api.operation
def get_aggregates(ctx, provider_uuid: str) -> ProviderAggregates:
    """The aggregates of a provider, by aggregate id; raise
    ResourceProviderNotFound."""
    with db_api.reader(ctx, snapshot=False) as conn:
        provider, rows = rp_obj.fetch_with_children(
            conn, _select_provider_aggregates_stmt(), provider_uuid)
    return ProviderAggregates(tuple(row[1] for row in rows),
                              provider.generation)


@functools.cache
def _select_provider_aggregates_stmt():
    """The provider and its aggregate uuids, in one statement."""
    rpa = models.resource_provider_aggregates
    agg = models.placement_aggregates
    return rp_obj.select_with_children_stmt(
        (agg.c.uuid,),
        ((rpa, lambda rp: rpa.c.resource_provider_id == rp.c.id),
         (agg, lambda rp: agg.c.id == rpa.c.aggregate_id)),
        (agg.c.id,))


@db_api.operation(on_duplicate='retry')
def set_aggregates(ctx, provider_uuid: str, uuids,
                   seen_generation: typing.Optional[int] = None
                   ) -> ProviderAggregates:
    """Replace a provider's aggregates (creating new ones).

    With ``seen_generation`` (1.19+) the generation is checked and bumped
    once (ResourceProviderGenerationConflict on mismatch); without it the
    generation is left alone. Opens its own transaction.
    """
    with db_api.transaction(ctx) as conn:
        if seen_generation is not None:
            provider, generation = provider_cas.lock_and_bump(
                conn, provider_uuid, seen_generation)
        else:
            provider = rp_obj.fetch_locked_provider(conn, provider_uuid)
            generation = provider.generation
        replace_provider_aggregates(conn, provider.id, uuids)
        result = ProviderAggregates(tuple(uuids), generation)
        landed.expect_provider(provider.uuid, generation, lambda found, rp: (
            result if set(fetch_provider_aggregates(found, rp.id)) ==
            set(uuids) else landed.NOT_LANDED))
        return result
