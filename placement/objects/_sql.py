"""Shared SQL fragments: one home for each expression several builders use.

Builders here return SQLAlchemy expressions and do no I/O. The few
queries (``conn`` first) that several entities share sit at the end; they
never begin or commit.
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


def inventories_with_usage(usage):
    """inventories JOIN resource_providers JOIN resource_classes LEFT
    JOIN ``usage`` (usage_subquery) on the inventory's provider and
    class: the FROM of a read of each inventory row with its provider,
    class name and amount used."""
    inv, rp = models.inventories, models.resource_providers
    rc = models.resource_classes
    return (inv.join(rp, rp.c.id == inv.c.resource_provider_id)
            .join(rc, rc.c.id == inv.c.resource_class_id)
            .outerjoin(usage, sa.and_(
                usage.c.resource_provider_id == inv.c.resource_provider_id,
                usage.c.resource_class_id == inv.c.resource_class_id)))


def used_scalar(inv):
    """The amount of ``inv``'s class already allocated from its provider.

    (SELECT COALESCE(SUM(a.used), 0) FROM allocations a
     WHERE a.resource_provider_id = inv.resource_provider_id
       AND a.resource_class_id = inv.resource_class_id)
    """
    alloc = models.allocations
    return (sa.select(sa.func.coalesce(sa.func.sum(alloc.c.used), 0))
            .where(alloc.c.resource_provider_id == inv.c.resource_provider_id,
                   alloc.c.resource_class_id == inv.c.resource_class_id)
            .scalar_subquery())


# The largest value an inventory's max_unit can hold (a 32-bit column).
MAX_UNIT = 2 ** 31 - 1


def amount_literal(amount):
    """``amount`` as a bound BIGINT, for the fit rules below. An amount
    above MAX_UNIT fits nowhere (max_unit >= amount fails), so it is
    bound as MAX_UNIT + 1: the same answer, and a value every backend and
    driver can bind (a filter beyond 64 bits is a valid query)."""
    return sa.literal(min(amount, MAX_UNIT + 1), sa.BigInteger)


def provider_fits_clause(provider_id_col, rc_id, amount):
    """True when the provider in ``provider_id_col`` itself can give
    ``amount`` of class ``rc_id``: capacity, min_unit, max_unit, step_size.

    EXISTS (SELECT 1 FROM inventories inv
            WHERE inv.resource_provider_id = rp.id
              AND inv.resource_class_id = :rc_id
              AND (<used_scalar>) + :amount
                  <= (inv.total - inv.reserved) * inv.allocation_ratio
              AND inv.min_unit <= :amount AND inv.max_unit >= :amount
              AND :amount % inv.step_size = 0)
    """
    inv = models.inventories.alias('fit_inv')
    amount = amount_literal(amount)
    return sa.exists(
        sa.select(sa.literal(1)).select_from(inv)
        .where(inv.c.resource_provider_id == provider_id_col,
               inv.c.resource_class_id == rc_id,
               used_scalar(inv) + amount <= capacity_expr(inv),
               inv.c.min_unit <= amount,
               inv.c.max_unit >= amount,
               amount % inv.c.step_size == 0))


def fitting_providers_subquery(rc_id, amount):
    """The ids of the providers that can give ``amount`` of ``rc_id``
    (the rules of ``provider_fits_clause``), as one set: for a filter
    over every provider, where the correlated form looks up each
    provider's usage on its own (a third more time at 1,000 providers,
    MariaDB and PostgreSQL alike).

    SELECT inv.resource_provider_id FROM inventories inv
    LEFT JOIN (SELECT resource_provider_id, SUM(used) AS used
               FROM allocations WHERE resource_class_id = :rc_id
               GROUP BY resource_provider_id) u
      ON u.resource_provider_id = inv.resource_provider_id
    WHERE inv.resource_class_id = :rc_id
      AND COALESCE(u.used, 0) + :amount <= <capacity> AND <units>
    """
    inv = models.inventories.alias('fit_inv')
    alloc = models.allocations
    used = (sa.select(alloc.c.resource_provider_id,
                      sa.func.sum(alloc.c.used).label('used'))
            .where(alloc.c.resource_class_id == rc_id)
            .group_by(alloc.c.resource_provider_id).subquery('fit_used'))
    amount = amount_literal(amount)
    return (sa.select(inv.c.resource_provider_id)
            .select_from(inv.outerjoin(
                used, used.c.resource_provider_id
                == inv.c.resource_provider_id))
            .where(inv.c.resource_class_id == rc_id,
                   sa.func.coalesce(used.c.used, 0) + amount
                   <= capacity_expr(inv),
                   inv.c.min_unit <= amount,
                   inv.c.max_unit >= amount,
                   amount % inv.c.step_size == 0))


# --- queries shared by several entities -------------------------------------

def fetch_ids_by_name(conn, table, names):
    """({name: id} of the ``names`` in ``table``, the missing names sorted).

    SELECT name, id FROM <table> WHERE name IN (:names)
    """
    names = set(names)
    # A name no database can hold (a lone surrogate, which a JSON map key
    # may spell) is missing without asking the database.
    storable = [name for name in names if encodable(name)]
    if not storable:
        return {}, sorted(names)
    rows = conn.execute(sa.select(table.c.name, table.c.id)
                        .where(table.c.name.in_(sorted(storable))))
    found = {row.name: row.id for row in rows}
    return found, sorted(names - set(found))


def encodable(name):
    try:
        name.encode('utf-8')
    except UnicodeEncodeError:
        return False
    return True


def fetch_linked_ids(conn, link_table, column, provider_id) -> set:
    """The ids in ``column`` of one provider's rows of ``link_table``
    (resource_provider_traits, resource_provider_aggregates)."""
    return {row[0] for row in conn.execute(
        sa.select(link_table.c[column])
        .where(link_table.c.resource_provider_id == provider_id))}


def replace_links(conn, link_table, column, provider_id, current, wanted):
    """Turn one provider's ids ``current`` in ``link_table`` into ``wanted``:
    delete the stale rows, insert the new ones (in id order)."""
    stale = current - wanted
    if stale:
        conn.execute(link_table.delete().where(
            link_table.c.resource_provider_id == provider_id,
            link_table.c[column].in_(sorted(stale))))
    added = sorted(wanted - current)
    if added:
        now = utcnow()
        # One multi-row INSERT (executemany).
        conn.execute(link_table.insert(), [
            {'resource_provider_id': provider_id, column: linked_id,
             'created_at': now} for linked_id in added])
