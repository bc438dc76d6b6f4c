"""Shared SQL fragments: one home for each expression several builders use.

Builders here return SQLAlchemy expressions and do no I/O.
"""
import datetime

import sqlalchemy as sa

from placement.db import models


def utcnow():
    """The timestamp stored in created_at/updated_at (naive UTC)."""
    return datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)


def capacity_expr(inv=models.inventories):
    """(total - reserved) * allocation_ratio, as a float expression.

    The Python home of the same rule is ``solver.model.capacity``.
    """
    return (inv.c.total - inv.c.reserved) * inv.c.allocation_ratio


def usage_subquery(name='usage'):
    """SELECT resource_provider_id, resource_class_id, SUM(used) AS used
    FROM allocations GROUP BY resource_provider_id, resource_class_id
    """
    alloc = models.allocations
    return sa.select(
        alloc.c.resource_provider_id,
        alloc.c.resource_class_id,
        sa.func.sum(alloc.c.used).label('used'),
    ).group_by(alloc.c.resource_provider_id,
               alloc.c.resource_class_id).subquery(name)
