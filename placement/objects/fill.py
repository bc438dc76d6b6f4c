"""Free capacity by request shape: the reads behind /metrics and
``placement-manage capacity``.

One read for the whole fleet, every shape at once: the candidates
reads of one unfiltered chunk of every provider (candidates.gather's
explain mode: a handful of statements, the providers' inventories and
traits from the per-process memory), then each shape's fill in memory
(solver.fill); and four statements more: the roots (names, uuids),
their aggregates, the capacity and usage of each tree by class, and
the usage of each project by class. Never a statement per provider.
When a shape names something that does not exist, each shape is read
on its own instead (a candidates request's filtered reads), so that
the others still count.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.db import packed
from placement import exception
from placement.objects import _sql
from placement.objects.candidates import gather as gather_mod
from placement.objects.candidates import plan as plan_mod
from placement.solver import fill as fill_mod
from placement.solver import model


@dataclasses.dataclass(frozen=True)
class Root:
    """A tree: its root provider's uuid and name, and the uuids of the
    aggregates the root is in (sorted)."""

    uuid: str
    name: str
    aggregates: typing.Tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ShapeFill:
    """One shape's counts: {root id: solver.fill.TreeFill} of the trees
    it reached (absent: 0), or ``error`` (an unknown class or trait, as
    the exception the API turns into its 400)."""

    name: str
    trees: typing.Mapping[int, fill_mod.TreeFill]
    error: typing.Optional[Exception] = None

    @property
    def total(self) -> int:
        return sum(tree.count for tree in self.trees.values())


@dataclasses.dataclass(frozen=True)
class Fleet:
    """What one scrape reports.

    roots: {root id: Root}; shapes: ShapeFill per shape, in the order
    given; trees: ((root id, class, capacity, used), ...), each tree's
    sum over its providers; projects: ((project external id, class,
    used), ...).
    """

    roots: typing.Mapping[int, Root]
    shapes: typing.Tuple[ShapeFill, ...]
    trees: typing.Tuple[typing.Tuple[int, str, int, int], ...] = ()
    projects: typing.Tuple[typing.Tuple[str, str, int], ...] = ()


def select_roots_stmt():
    """SELECT id, uuid, name FROM resource_providers
    WHERE parent_provider_id IS NULL ORDER BY id"""
    rp = models.resource_providers
    return (sa.select(rp.c.id, rp.c.uuid, rp.c.name)
            .where(rp.c.parent_provider_id.is_(None)).order_by(rp.c.id))


def select_root_aggregates_stmt():
    """SELECT rpa.resource_provider_id, agg.uuid
    FROM resource_provider_aggregates rpa
    JOIN placement_aggregates agg ON agg.id = rpa.aggregate_id
    JOIN resource_providers rp ON rp.id = rpa.resource_provider_id
    WHERE rp.parent_provider_id IS NULL"""
    rpa, agg = (models.resource_provider_aggregates,
                models.placement_aggregates)
    rp = models.resource_providers
    return (sa.select(rpa.c.resource_provider_id, agg.c.uuid)
            .select_from(rpa.join(agg, agg.c.id == rpa.c.aggregate_id)
                         .join(rp, rp.c.id == rpa.c.resource_provider_id))
            .where(rp.c.parent_provider_id.is_(None)))


def select_tree_inventory_stmt():
    """Each inventory row with its tree's root, class and usage (summed
    per tree in Python, where the capacity rule lives).

    SELECT COALESCE(rp.root_provider_id, rp.id), rc.name, inv.total,
           inv.reserved, inv.allocation_ratio, COALESCE(usage.used, 0)
    FROM inventories inv
    JOIN resource_providers rp ON rp.id = inv.resource_provider_id
    JOIN resource_classes rc ON rc.id = inv.resource_class_id
    LEFT JOIN (SELECT resource_provider_id, resource_class_id,
                      SUM(used) AS used FROM allocations
               GROUP BY resource_provider_id, resource_class_id) usage
      ON usage.resource_provider_id = inv.resource_provider_id
     AND usage.resource_class_id = inv.resource_class_id
    """
    inv, rp = models.inventories, models.resource_providers
    rc, usage = models.resource_classes, _sql.usage_subquery()
    return sa.select(
        sa.func.coalesce(rp.c.root_provider_id, rp.c.id), rc.c.name,
        inv.c.total, inv.c.reserved, inv.c.allocation_ratio,
        sa.func.coalesce(usage.c.used, 0),
    ).select_from(_sql.inventories_with_usage(usage))


def select_project_usage_stmt():
    """SELECT p.external_id, rc.name, SUM(a.used)
    FROM allocations a
    JOIN consumers c ON c.uuid = a.consumer_id
    JOIN projects p ON p.id = c.project_id
    JOIN resource_classes rc ON rc.id = a.resource_class_id
    GROUP BY p.external_id, rc.name ORDER BY p.external_id, rc.name"""
    alloc, cons = models.allocations, models.consumers
    proj, rc = models.projects, models.resource_classes
    return (sa.select(proj.c.external_id, rc.c.name,
                      sa.func.sum(alloc.c.used))
            .select_from(alloc.join(cons, cons.c.uuid == alloc.c.consumer_id)
                         .join(proj, proj.c.id == cons.c.project_id)
                         .join(rc, rc.c.id == alloc.c.resource_class_id))
            .group_by(proj.c.external_id, rc.c.name)
            .order_by(proj.c.external_id, rc.c.name))


# The whole-fleet statements, built once (packed.fetch_rows caches their
# packed form by statement).
_ROOTS, _ROOT_AGGREGATES = select_roots_stmt(), select_root_aggregates_stmt()
_TREE_INVENTORY = select_tree_inventory_stmt()
_INT, _TEXT = packed.INT, packed.TEXT


def fetch_roots(conn) -> typing.Dict[int, Root]:
    """{root id: Root} of every tree, in id order (two statements)."""
    aggregates = {}
    for rp_id, agg_uuid in packed.fetch_rows(conn, _ROOT_AGGREGATES, {},
                                             (_INT, _TEXT)):
        aggregates.setdefault(rp_id, []).append(agg_uuid)
    return {row[0]: Root(row[1], row[2],
                         tuple(sorted(aggregates.get(row[0], ()))))
            for row in packed.fetch_rows(conn, _ROOTS, {},
                                         (_INT, _TEXT, _TEXT), order_by=0)}


def fetch_trees(conn):
    """((root id, class, capacity, used), ...) summed per tree, in
    root id then class order."""
    sums = {}
    capacity = model.capacity
    # The ratio, a float, reads as a JSON number when packed.
    for root_id, rc, total, reserved, ratio, used in packed.fetch_rows(
            conn, _TREE_INVENTORY, {},
            (_INT, _TEXT, _INT, _INT, _INT, _INT)):
        found = sums.get((root_id, rc))
        if found is None:
            found = sums[(root_id, rc)] = [0, 0]
        found[0] += capacity(int(total), int(reserved), float(ratio))
        found[1] += int(used)
    return tuple((root_id, rc, capacity, used) for (root_id, rc),
                 (capacity, used) in sorted(sums.items()))


def fetch_projects(conn):
    return tuple((row[0], row[1], int(row[2]))
                 for row in conn.execute(select_project_usage_stmt()))


def fetch_shape_fill(conn, name, query) -> ShapeFill:
    """The counts of one shape (module docstring); an unknown class or
    trait is the ShapeFill's error."""
    query = dataclasses.replace(query, limit=None)
    trees = {}
    try:
        for part in gather_mod.gather(conn, query, fill_mod.FILL_OPTIONS):
            trees.update(fill_mod.fill(part.snapshot, part.solver_query))
    except plan_mod.NothingMatches:
        return ShapeFill(name, {})
    except (exception.ResourceClassNotFound,
            exception.TraitNotFound) as exc:
        return ShapeFill(name, {}, exc)
    return ShapeFill(name, {root_id: tree for root_id, tree in
                            trees.items() if tree.count})


def fetch_fleet_fills(conn, shapes):
    """The ShapeFill of every shape ((name, query), ...) over one read
    of the whole fleet: one unfiltered snapshot (candidates.gather's
    explain mode: every provider, its traits, the links of every
    aggregate a shape names and of the sharing providers) that each
    shape is counted on. None when a shape names a class or trait that
    does not exist, or aggregates none of which do (then each shape is
    read on its own, fetch_shape_fill, and says which)."""
    queries = [dataclasses.replace(query, limit=None) for _, query in shapes]
    try:
        reading = gather_mod.start(conn, _union(queries),
                                   fill_mod.FILL_OPTIONS, filtered=False)
        part = gather_mod.read(conn, reading, plan_mod.EVERY_ROOT)
    except (plan_mod.NothingMatches, exception.ResourceClassNotFound,
            exception.TraitNotFound):
        return None
    found = []
    for (name, _), query in zip(shapes, queries):
        trees = fill_mod.fill(part.snapshot, query)
        found.append(ShapeFill(name, {root_id: tree for root_id, tree in
                                      trees.items() if tree.count}))
    return tuple(found)


def _union(queries):
    """A query naming every class, trait and aggregate of ``queries``
    (for the lookups of one read; never solved)."""
    groups, required, forbidden = [], set(), set()
    for number, query in enumerate(queries):
        groups += [dataclasses.replace(group, suffix='%d_%s' % (
            number, group.suffix), in_tree=None) for group in query.groups]
        required |= query.root_traits.required
        forbidden |= query.root_traits.forbidden
    return model.CandidateQuery(
        groups=tuple(groups), root_traits=model.TraitFilter(
            frozenset(required), frozenset(forbidden - required)))


@db_api.operation
def count_fleet(ctx, shapes, with_usage: bool = True) -> Fleet:
    """The Fleet of ``shapes`` ((name, model.CandidateQuery), ...); one
    read (a snapshot: every shape counts on the same usage).
    ``with_usage``: also the trees' and projects' sums."""
    with db_api.reader(ctx) as conn:
        found = fetch_fleet_fills(conn, shapes) if shapes else ()
        if found is None:
            found = tuple(fetch_shape_fill(conn, name, query)
                          for name, query in shapes)
        roots = fetch_roots(conn)
        if not with_usage:
            return Fleet(roots, found)
        return Fleet(roots, found, fetch_trees(conn), fetch_projects(conn))
