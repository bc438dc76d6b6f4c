"""The audit's queries: one builder and one fetcher per check.

Builders (``select_*_stmt``) return statements and do no I/O; fetchers
(``fetch_*``, ``conn`` first) run one statement each and return
``Finding`` values. None begins or commits: ``objects.audit`` runs them
all in its one read transaction. The rules they apply are documented in
``objects.audit``; the capacity rule is ``_sql.capacity_expr`` (SQL) and
``solver.model.capacity`` (Python), never written again here.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.db import models
from placement.objects import _sql
from placement.objects import audit_trees
from placement.solver import model


@dataclasses.dataclass(frozen=True)
class Finding:
    """One inconsistency. ``subject`` is the provider or consumer uuid
    (None only for allocations against a provider row that is gone);
    ``details`` holds the facts, JSON-ready, keys per check."""

    check: str
    subject: typing.Optional[str]
    details: dict


_RP = models.resource_providers
_INV = models.inventories
_ALLOC = models.allocations
_RC = models.resource_classes
_CONSUMER = models.consumers


def has_rows(table, column, value):
    """EXISTS (SELECT 1 FROM <table> WHERE <column> = <value>)"""
    return sa.exists(sa.select(sa.literal(1)).select_from(table)
                     .where(table.c[column] == value))


# --- providers: capacity and inventory --------------------------------------

def _over_capacity_from(columns):
    """SELECT <columns> FROM inventories inv
    JOIN (SELECT resource_provider_id, resource_class_id, SUM(used) AS used
          FROM allocations GROUP BY 1, 2) usage
      ON usage.resource_provider_id = inv.resource_provider_id
     AND usage.resource_class_id = inv.resource_class_id
    JOIN resource_providers rp ON rp.id = inv.resource_provider_id
    LEFT JOIN resource_classes rc ON rc.id = inv.resource_class_id
    WHERE usage.used > (inv.total - inv.reserved) * inv.allocation_ratio
    """
    usage = _sql.usage_subquery()
    return sa.select(*columns(usage)).select_from(
        _INV.join(usage, sa.and_(
            usage.c.resource_provider_id == _INV.c.resource_provider_id,
            usage.c.resource_class_id == _INV.c.resource_class_id))
        .join(_RP, _RP.c.id == _INV.c.resource_provider_id)
        .outerjoin(_RC, _RC.c.id == _INV.c.resource_class_id)
    ).where(usage.c.used > _sql.capacity_expr(_INV))


def select_over_capacity_stmt():
    """Each (provider, class) whose usage exceeds its capacity."""
    return _over_capacity_from(lambda usage: (
        _RP.c.uuid, _INV.c.resource_class_id, _RC.c.name, _INV.c.total,
        _INV.c.reserved, _INV.c.allocation_ratio, usage.c.used,
    )).order_by(_RP.c.uuid, _INV.c.resource_class_id)


def count_over_capacity_stmt():
    """How many providers have at least one class over capacity."""
    return _over_capacity_from(lambda usage: (
        sa.func.count(sa.distinct(_INV.c.resource_provider_id)),))


def _class_name(row):
    return row.name if row.name is not None else '#%d' % row.resource_class_id


def fetch_over_capacity(conn) -> typing.List[Finding]:
    findings = []
    for row in conn.execute(select_over_capacity_stmt()):
        ratio = float(row.allocation_ratio)
        capacity = model.capacity(row.total, row.reserved, ratio)
        if int(row.used) <= capacity:
            continue
        findings.append(Finding('over_capacity', row.uuid, {
            'resource_class': _class_name(row), 'used': int(row.used),
            'capacity': capacity, 'total': row.total,
            'reserved': row.reserved, 'allocation_ratio': ratio}))
    return findings


def select_allocations_without_inventory_stmt():
    """SELECT a.resource_provider_id, rp.uuid, a.resource_class_id,
           rc.name, a.consumer_id, a.used
    FROM allocations a
    LEFT JOIN inventories inv
      ON inv.resource_provider_id = a.resource_provider_id
     AND inv.resource_class_id = a.resource_class_id
    LEFT JOIN resource_providers rp ON rp.id = a.resource_provider_id
    LEFT JOIN resource_classes rc ON rc.id = a.resource_class_id
    WHERE inv.id IS NULL
    """
    return sa.select(
        _ALLOC.c.resource_provider_id, _RP.c.uuid,
        _ALLOC.c.resource_class_id, _RC.c.name, _ALLOC.c.consumer_id,
        _ALLOC.c.used,
    ).select_from(
        _ALLOC.outerjoin(_INV, sa.and_(
            _INV.c.resource_provider_id == _ALLOC.c.resource_provider_id,
            _INV.c.resource_class_id == _ALLOC.c.resource_class_id))
        .outerjoin(_RP, _RP.c.id == _ALLOC.c.resource_provider_id)
        .outerjoin(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
    ).where(_INV.c.id.is_(None)).order_by(
        _ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
        _ALLOC.c.consumer_id)


def fetch_allocations_without_inventory(conn) -> typing.List[Finding]:
    """One finding per (provider, class), with its consumers; when the
    provider row itself is gone, its id as ``missing_provider_id``."""
    grouped = {}
    for row in conn.execute(select_allocations_without_inventory_stmt()):
        key = (row.resource_provider_id, row.resource_class_id)
        if key not in grouped:
            details = {'resource_class': _class_name(row), 'used': 0,
                       'consumers': []}
            if row.uuid is None:
                details['missing_provider_id'] = row.resource_provider_id
            grouped[key] = Finding('allocation_without_inventory', row.uuid,
                                   details)
        details = grouped[key].details
        details['used'] += row.used
        if row.consumer_id not in details['consumers']:
            details['consumers'].append(row.consumer_id)
    return list(grouped.values())


# --- consumers ---------------------------------------------------------------

def select_empty_consumers_stmt():
    """SELECT c.uuid, c.generation, p.external_id, u.external_id
    FROM consumers c LEFT JOIN projects p ON p.id = c.project_id
    LEFT JOIN users u ON u.id = c.user_id
    WHERE NOT EXISTS (SELECT 1 FROM allocations a
                      WHERE a.consumer_id = c.uuid)
    """
    projects, users = models.projects, models.users
    return sa.select(
        _CONSUMER.c.uuid, _CONSUMER.c.generation,
        projects.c.external_id.label('project_id'),
        users.c.external_id.label('user_id'),
    ).select_from(
        _CONSUMER
        .outerjoin(projects, projects.c.id == _CONSUMER.c.project_id)
        .outerjoin(users, users.c.id == _CONSUMER.c.user_id)
    ).where(~has_rows(_ALLOC, 'consumer_id', _CONSUMER.c.uuid)
            ).order_by(_CONSUMER.c.uuid)


def fetch_empty_consumers(conn) -> typing.List[Finding]:
    return [Finding('empty_consumer', row.uuid, {
        'generation': row.generation, 'project_id': row.project_id,
        'user_id': row.user_id})
        for row in conn.execute(select_empty_consumers_stmt())]


def select_incomplete_consumers_stmt():
    """SELECT a.consumer_id, COUNT(*), COUNT(DISTINCT a.resource_provider_id)
    FROM allocations a LEFT JOIN consumers c ON c.uuid = a.consumer_id
    WHERE c.id IS NULL GROUP BY a.consumer_id
    """
    return sa.select(
        _ALLOC.c.consumer_id,
        sa.func.count().label('allocations'),
        sa.func.count(sa.distinct(_ALLOC.c.resource_provider_id))
        .label('providers'),
    ).select_from(_ALLOC.outerjoin(
        _CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
    ).where(_CONSUMER.c.id.is_(None)).group_by(
        _ALLOC.c.consumer_id).order_by(_ALLOC.c.consumer_id)


def fetch_incomplete_consumers(conn) -> typing.List[Finding]:
    return [Finding('incomplete_consumer', row.consumer_id, {
        'allocations': row.allocations, 'resource_providers': row.providers})
        for row in conn.execute(select_incomplete_consumers_stmt())]


def select_consumers_without_owner_stmt():
    """SELECT c.uuid, c.project_id, c.user_id, p.id, u.id FROM consumers c
    LEFT JOIN projects p ON p.id = c.project_id
    LEFT JOIN users u ON u.id = c.user_id
    WHERE p.id IS NULL OR u.id IS NULL
    """
    projects, users = models.projects, models.users
    return sa.select(
        _CONSUMER.c.uuid, _CONSUMER.c.project_id, _CONSUMER.c.user_id,
        projects.c.id.label('project_row'), users.c.id.label('user_row'),
    ).select_from(
        _CONSUMER
        .outerjoin(projects, projects.c.id == _CONSUMER.c.project_id)
        .outerjoin(users, users.c.id == _CONSUMER.c.user_id)
    ).where(sa.or_(projects.c.id.is_(None), users.c.id.is_(None))
            ).order_by(_CONSUMER.c.uuid)


def fetch_consumers_without_owner(conn) -> typing.List[Finding]:
    findings = []
    for row in conn.execute(select_consumers_without_owner_stmt()):
        if row.project_row is None:
            findings.append(Finding('consumer_project_missing', row.uuid,
                                    {'project_internal_id': row.project_id}))
        if row.user_row is None:
            findings.append(Finding('consumer_user_missing', row.uuid,
                                    {'user_internal_id': row.user_id}))
    return findings


# --- trees and generations ---------------------------------------------------

def fetch_tree_problems(conn) -> typing.List[Finding]:
    """SELECT id, uuid, parent_provider_id, root_provider_id
    FROM resource_providers; then the links are checked in memory."""
    links = [audit_trees.Link(*row) for row in conn.execute(sa.select(
        _RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id,
        _RP.c.root_provider_id))]
    return [Finding(problem.check, problem.uuid, problem.details)
            for problem in audit_trees.find_problems(links)]


def select_provider_generation_problems_stmt():
    """Providers whose generation is NULL, negative, or 0 although rows
    exist that only a generation-bumping write makes.

    SELECT rp.uuid, rp.generation, EXISTS(inv), EXISTS(traits),
           EXISTS(allocations)
    FROM resource_providers rp
    WHERE rp.generation IS NULL OR rp.generation < 0
       OR (rp.generation = 0 AND (EXISTS(inv) OR EXISTS(traits)
                                  OR EXISTS(allocations)))

    Aggregates prove nothing: before 1.19 their PUT does not bump.
    """
    proofs = (
        has_rows(_INV, 'resource_provider_id', _RP.c.id)
        .label('inventories'),
        has_rows(models.resource_provider_traits, 'resource_provider_id',
                 _RP.c.id).label('traits'),
        has_rows(_ALLOC, 'resource_provider_id', _RP.c.id)
        .label('allocations'),
    )
    return sa.select(_RP.c.uuid, _RP.c.generation, *proofs).where(
        sa.or_(_RP.c.generation.is_(None), _RP.c.generation < 0,
               sa.and_(_RP.c.generation == 0, sa.or_(*proofs)))
    ).order_by(_RP.c.uuid)


def fetch_provider_generation_problems(conn) -> typing.List[Finding]:
    findings = []
    for row in conn.execute(select_provider_generation_problems_stmt()):
        if row.generation is None:
            findings.append(Finding('provider_generation_null', row.uuid, {}))
            continue
        proof = [name for name in ('inventories', 'traits', 'allocations')
                 if row._mapping[name]]
        findings.append(Finding('provider_generation_backwards', row.uuid, {
            'generation': row.generation,
            'minimum': 1 if proof else 0, 'proof': proof}))
    return findings


def select_consumer_generation_problems_stmt():
    """Consumers whose generation is negative, or 0 although one of their
    allocation rows was created after the consumer row: a write that
    adds allocations to an existing consumer increments its generation.

    SELECT c.uuid, c.generation, c.created_at,
           (SELECT MAX(a.created_at) FROM allocations a
            WHERE a.consumer_id = c.uuid) AS last_allocation
    FROM consumers c
    WHERE c.generation < 0
       OR (c.generation = 0 AND EXISTS (
             SELECT 1 FROM allocations a WHERE a.consumer_id = c.uuid
             AND a.created_at > c.created_at))
    """
    later = sa.exists(sa.select(sa.literal(1)).select_from(_ALLOC).where(
        _ALLOC.c.consumer_id == _CONSUMER.c.uuid,
        _ALLOC.c.created_at > _CONSUMER.c.created_at))
    last = (sa.select(sa.func.max(_ALLOC.c.created_at))
            .where(_ALLOC.c.consumer_id == _CONSUMER.c.uuid)
            .scalar_subquery().label('last_allocation'))
    return sa.select(
        _CONSUMER.c.uuid, _CONSUMER.c.generation, _CONSUMER.c.created_at,
        last,
    ).where(sa.or_(_CONSUMER.c.generation < 0,
                   sa.and_(_CONSUMER.c.generation == 0, later))
            ).order_by(_CONSUMER.c.uuid)


def _iso(when):
    return when.isoformat() if when is not None else None


def fetch_consumer_generation_problems(conn) -> typing.List[Finding]:
    findings = []
    for row in conn.execute(select_consumer_generation_problems_stmt()):
        later = (row.last_allocation is not None
                 and row.created_at is not None
                 and row.last_allocation > row.created_at)
        findings.append(Finding('consumer_generation_backwards', row.uuid, {
            'generation': row.generation, 'minimum': 1 if later else 0,
            'created_at': _iso(row.created_at),
            'last_allocation_created_at': _iso(row.last_allocation)}))
    return findings
