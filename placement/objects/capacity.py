"""The capacity of every provider, for the Prometheus capacity metrics.

One statement for the whole deployment, never one per provider: each
inventory row with its provider's name and generation, its class name
and the amount allocated from it (the values openstack-exporter reads
through GET /resource_providers and each provider's inventories and
usages).
"""
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import _sql


class ClassCapacity(typing.NamedTuple):
    """One provider's inventory of one class, and what is used of it."""
    provider_name: str
    resource_class: str
    total: int
    reserved: int
    allocation_ratio: float
    used: int
    generation: int


def select_capacity_stmt():
    """Every inventory row with its provider, class and usage.

    SELECT rp.name, rc.name, inv.total, inv.reserved,
           inv.allocation_ratio, COALESCE(usage.used, 0), rp.generation
    FROM inventories inv
    JOIN resource_providers rp ON rp.id = inv.resource_provider_id
    JOIN resource_classes rc ON rc.id = inv.resource_class_id
    LEFT JOIN (SELECT resource_provider_id, resource_class_id,
                      SUM(used) AS used
               FROM allocations
               GROUP BY resource_provider_id, resource_class_id) usage
      ON usage.resource_provider_id = inv.resource_provider_id
     AND usage.resource_class_id = inv.resource_class_id
    """
    inv = models.inventories
    rp = models.resource_providers
    rc = models.resource_classes
    usage = _sql.usage_subquery()
    return sa.select(
        rp.c.name, rc.c.name.label('resource_class'), inv.c.total,
        inv.c.reserved, inv.c.allocation_ratio,
        sa.func.coalesce(usage.c.used, 0).label('used'), rp.c.generation,
    ).select_from(_sql.inventories_with_usage(usage))


@db_api.operation
def list_capacity(ctx) -> typing.List[ClassCapacity]:
    """Every provider's capacity rows; one read, one statement."""
    with db_api.reader(ctx, snapshot=False) as conn:
        rows = conn.execute(select_capacity_stmt()).all()
        return [ClassCapacity(row[0], row[1], int(row[2]), int(row[3]),
                              float(row[4]), int(row[5]), int(row[6]))
                for row in rows]
