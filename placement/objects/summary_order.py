"""provider_summaries of a candidates answer (summaries), and the order
MariaDB gives upstream on a small inventories table (small_table_order).

Upstream lists the summaries in the order its database returns the
providers with their inventories. On MariaDB that is provider id order,
except while the inventories table is small: then the table is scanned
whole and the providers come in the order of their first inventory row,
those without inventory last (in id order). PostgreSQL is not covered.
"""
import operator

import sqlalchemy as sa

from placement.db import models
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


def _scope_ids(scope, seen):
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
    for rp_id in _scope_ids(scope, seen):
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
