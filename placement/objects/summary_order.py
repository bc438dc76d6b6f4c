"""provider_summaries of a candidates answer (summaries), and the orders
upstream's database gives them (small_table_order, postgresql_order).

Upstream lists the summaries in the order its database returns the
providers with their inventories. On MariaDB that is provider id order,
except while the inventories table is small: then the table is scanned
whole and the providers come in the order of their first inventory row,
those without inventory last (in id order).

On PostgreSQL they come in the providers' heap order, or over trees as
a hash join returns them (postgresql_order).
"""
import operator

import sqlalchemy as sa

from placement.db import models
from placement.objects import _sql
from placement.objects import candidate_sql
from placement.solver import model
from placement.solver import summaries as summaries_mod

# MariaDB answers upstream's summaries query by scanning the inventories
# table whole (a join buffer) while it holds at most this many rows, and
# by provider otherwise (experiment of 2026-11-24 on 10.11: trees of 3 to 9
# providers, 2 to 16 inventory rows; rows of trees outside the answer
# count too, allocations do not).
SMALL_INVENTORY_TABLE = 6
NO_ROW = (1, 0)


def small_table_order(conn, entries):
    """{provider id: (0, rank)} by each provider's first inventory row
    when the summaries must follow MariaDB's scan of a small inventories
    table: providers with inventory in row order, then those without in id
    order (NO_ROW; a stable sort keeps them so). None otherwise: provider
    id order, as upstream lists them on a larger table.
    """
    if conn.dialect.name != 'mysql':
        return None
    rows = sum(len(entry.inventories) for entry in entries.values())
    if rows > SMALL_INVENTORY_TABLE:
        return None
    inv = models.inventories
    found = conn.execute(
        sa.select(inv.c.resource_provider_id).order_by(inv.c.id)
        .limit(SMALL_INVENTORY_TABLE + 1)).scalars().all()
    if len(found) > SMALL_INVENTORY_TABLE:
        return None
    order = {}
    for rp_id in found:
        order.setdefault(rp_id, (0, len(order)))
    return order


# The fewest buckets of a PostgreSQL hash join's table, which it keeps
# while the hashed side holds no more rows.
PG_MIN_BUCKETS = 1024
# The most providers in scope for which the hash join's order is asked
# for: the experiments had 4 to 160. How upstream's plan returns a larger
# scope is not known; there the heap order is kept, and no statement is
# spent on an order not shown. (Below PG_MIN_BUCKETS: the table has its
# least size.)
HASH_JOIN_MAX_SCOPE = 200

# How upstream's plan on PostgreSQL returns the summaries' providers
# over trees (postgresql_order): by a hash join, by an index (id order),
# or in heap order.
HASH_JOIN, BY_ID, HEAP = 'hash join', 'by id', 'heap'


def postgresql_order(conn, candidates, provider_ids, root_of):
    """{provider id: (0, place)} of ``provider_ids`` (the summaries') in
    the order of upstream's summaries on PostgreSQL (``conn``'s) over
    trees, or None for the providers' heap order (the caller's
    ``places``).

    By experiment (2026-11-25: one to twenty trees, 3 to 160 providers,
    inventories written in several orders, providers updated after they
    were written; plan_of says when):

    - HASH_JOIN: the providers as a hash join of the inventories onto
      the providers returns them: those with inventory in the order of
      their first inventory row in the heap, then those without in the
      order of their hash bucket (hashint4(id) modulo the table's
      PG_MIN_BUCKETS; in one bucket, the last hashed first);
    - BY_ID: in the order they were written (an index's order);
    - HEAP: in heap order (also a HASH_JOIN scope of more than
      HASH_JOIN_MAX_SCOPE providers).
    """
    plan = plan_of(candidates, root_of)
    if plan == BY_ID:
        return {rp_id: (0, rp_id) for rp_id in provider_ids}
    if plan != HASH_JOIN or len(provider_ids) > HASH_JOIN_MAX_SCOPE:
        return None
    order = {}
    for rp_id in conn.execute(
            _hash_join_stmt(), {'ids': list(provider_ids),
                                'mask': PG_MIN_BUCKETS - 1}).scalars():
        order.setdefault(rp_id, (0, len(order)))
    return order


def _hash_join_stmt():
    """SELECT rp.id FROM resource_providers rp LEFT JOIN inventories inv
    ON inv.resource_provider_id = rp.id WHERE rp.id = ANY(:ids)
    ORDER BY inv.ctid, hashint4(rp.id) & :mask, rp.ctid DESC

    ctid ascending puts the providers without a row last. One text for
    any number of ids, prepared: planning an IN list of 70 ids took
    0.8 ms, twice what running it did.
    """
    rp, inv = models.resource_providers, models.inventories
    return candidate_sql.cached(('summaries by hash join',), lambda: (
        sa.select(rp.c.id)
        .select_from(rp.outerjoin(inv,
                                  inv.c.resource_provider_id == rp.c.id))
        .where(rp.c.id == sa.any_(sa.bindparam(
            'ids', type_=sa.ARRAY(sa.Integer))))
        .order_by(_sql.physical_order(inv),
                  sa.func.hashint4(rp.c.id).op('&')(
                      sa.bindparam('mask', type_=sa.Integer)),
                  _sql.physical_order(rp).desc())))


def _unsuffixed(candidate):
    if candidate.__class__ is model.Alike:
        ids = candidate.ids
        return [ids[rank] for suffix, ranks in candidate.shape.mappings
                if suffix == '' for rank in ranks]
    return [rp_id for suffix, ids in candidate.mappings if suffix == ''
            for rp_id in ids]


def plan_of(candidates, root_of):
    """HASH_JOIN when the unsuffixed group's providers differ from one
    candidate to another or count two or more that are not roots, or,
    with no unsuffixed group, when the candidates span three trees or
    more; else BY_ID when they are in one tree and the unsuffixed group,
    if any, uses only its root; else HEAP."""
    first, non_roots, trees = None, set(), set()
    for candidate in candidates:
        used = frozenset(_unsuffixed(candidate))
        if first is None:
            first = used
        elif used != first:
            return HASH_JOIN
        non_roots.update(rp_id for rp_id in used if root_of[rp_id] != rp_id)
        if len(non_roots) > 1:
            return HASH_JOIN
        if len(trees) < 3:
            trees.update(root_of[rp_id] for rp_id in candidate.used_ids())
        elif not first:
            return HASH_JOIN  # no unsuffixed group, three trees
    if len(trees) > 2 and not first:
        return HASH_JOIN
    return BY_ID if len(trees) == 1 and not non_roots else HEAP


def scope_ids(scope, seen):
    """The ids of the providers ``scope`` summarises."""
    if scope.root_ids:
        return [rp_id for rp_id, p in seen.providers.items()
                if p.root_id in scope.root_ids]
    return sorted(scope.provider_ids)


def summaries(scope, seen, with_traits, places=None):
    """ProviderSummary per provider in scope, in provider id order (as
    upstream lists them on MariaDB) or by ``places`` ({id: place}), traits
    in upstream's order (provider_state)."""
    providers, entries = seen.providers, seen.entries
    inventories = seen.inventories
    empty = ()
    no_inventory = {}
    new, summary = tuple.__new__, summaries_mod.ProviderSummary
    # Providers sharing an inventory dict share their summary's
    # resources too (the renderer relies on it to build each once).
    resources_of = {}
    found = []
    for rp_id in scope_ids(scope, seen):
        rp = providers[rp_id]
        parent = providers.get(rp.parent_id)
        inventory = inventories.get(rp_id, no_inventory)
        resources = resources_of.get(id(inventory))
        if resources is None:
            resources = resources_of[id(inventory)] = {
                rc: (inv.capacity, inv.used)
                for rc, inv in inventory.items()}
        root = providers.get(rp.root_id)
        found.append(new(summary, (
            rp_id, rp.uuid, parent.uuid if parent else None,
            root.uuid if root else rp.uuid,
            resources,
            entries[rp_id].listed_traits if with_traits else empty)))
    found.sort(key=operator.itemgetter(0) if places is None
               else lambda summary: places[summary[0]])
    return found
