"""Allocation candidates: gather what a request can use, solve, summarise.

One read transaction. A fixed set of queries per *chunk of roots* builds a
``solver.model.Snapshot``: whole trees that can hold every required trait
and aggregate (tree-level filters in SQL, exact in a flat deployment, where
the solver then skips them), their inventories and usage, and only the
trait and aggregate links the request names. The pure solver does the rest.
Without a cap every root is one chunk; with ``limit`` (depth-first, the
default) roots are read in growing id ranges until enough candidates
exist, so a small limit costs the same at any deployment size. Summaries
come from the same reads plus one query for the traits of their providers.
"""
import contextlib
import dataclasses
import functools
import gc
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement import exception
from placement.objects import provider_state
from placement import solver
from placement.solver import model
from placement.solver import order
from placement.solver import summaries as summaries_mod

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
FIRST_CHUNK = 16
CHUNK_GROWTH = 4
FIRST_CHUNK_PER_CANDIDATE = 2
IN_BATCH = 2000

_RP = models.resource_providers
_INV = models.inventories
_RPT = models.resource_provider_traits
_RPA = models.resource_provider_aggregates


@dataclasses.dataclass(frozen=True)
class CandidateResult:
    """What GET /allocation_candidates renders.

    uuids: {provider id: uuid} for every provider in the candidates;
    summaries: ProviderSummary per provider to list.
    """

    candidates: typing.Tuple[model.Candidate, ...]
    uuids: typing.Mapping[int, str]
    summaries: typing.Tuple[summaries_mod.ProviderSummary, ...]


@dataclasses.dataclass(frozen=True)
class _Lookups:
    """Ids of what the query names, and the sharing providers."""

    rc_ids: typing.Mapping[str, int]
    class_names: typing.Mapping[int, str]
    trait_ids: typing.Mapping[str, int]
    agg_ids: typing.Mapping[str, int]
    sharing_ids: frozenset
    sharing_roots: frozenset
    sharing_aggs: typing.Mapping[int, frozenset]
    has_nested: bool
    store: provider_state.Store

    @property
    def is_flat(self):
        """Every tree is one provider and none shares: a candidate uses
        its anchor alone, so tree-level SQL filters are exact.
        """
        return not self.has_nested and not self.sharing_ids


@dataclasses.dataclass(frozen=True)
class _Roots:
    """A chunk of roots: the id range (low, high] or an explicit list.

    low=None and high=None with ids=None means every root.
    """

    low: typing.Optional[int] = None
    high: typing.Optional[int] = None
    ids: typing.Optional[typing.Tuple[int, ...]] = None


def list_candidates(ctx, query: model.CandidateQuery,
                    options: model.SolverOptions,
                    summary_classes_all: bool = True,
                    with_traits: bool = True) -> CandidateResult:
    """Find the candidates of ``query``; one read transaction.

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    store = provider_state.store_for(
        ctx if isinstance(ctx, db_api.Database) else ctx.db)
    with no_cyclic_gc(), db_api.reader(ctx) as conn:
        lookups = _fetch_lookups(conn, query, store)
        candidates, seen = _solve_in_chunks(conn, query, options, lookups)
    root_of = {rp_id: p.root_id for rp_id, p in seen.providers.items()}
    scope = summaries_mod.scope(candidates, root_of, query.nested_aware)
    summaries = _summaries(scope, seen, with_traits)
    if not summary_classes_all:
        classes = query.resource_classes
        summaries = [summaries_mod.restrict_classes(s, classes)
                     for s in summaries]
    uuids = {rp_id: p.uuid for rp_id, p in seen.providers.items()}
    return CandidateResult(tuple(candidates), uuids, tuple(summaries))


@contextlib.contextmanager
def no_cyclic_gc():
    """Pause the cyclic garbage collector while a request builds many
    small objects (rows, candidates): its full passes over a large heap
    cost about a third of the time of a big answer. Reference counting
    still frees everything; the collector resumes afterwards. Nests: only
    the outermost user that found it enabled turns it back on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclasses.dataclass
class _Seen:
    """Providers and their inventories (every class) of all chunks."""

    providers: dict = dataclasses.field(default_factory=dict)
    inventories: dict = dataclasses.field(default_factory=dict)
    entries: dict = dataclasses.field(default_factory=dict)


def _solve_in_chunks(conn, query, options, lookups):
    cap = order.cap(query.limit, options.max_candidates)
    seen, found, dedup = _Seen(), [], set()
    solver_query = without_filters(query) if lookups.is_flat else query
    for roots in _chunks(conn, query, options, lookups, cap):
        snapshot, entries = gather(conn, query, lookups, roots)
        count = None if cap is None else cap - len(found)
        found += solver.solve(snapshot, solver_query, options, dedup, count)
        seen.providers.update(snapshot.providers)
        seen.inventories.update(snapshot.inventories)
        seen.entries.update(entries)
        if cap is not None and len(found) >= cap:
            break
    return found, seen


def without_filters(query):
    """The query minus trait, aggregate and root filters, for a flat
    deployment where SQL (tree_terms) already applied them exactly.
    """
    groups = tuple(dataclasses.replace(
        group, traits=model.TraitFilter(),
        aggregates=model.AggregateFilter()) for group in query.groups)
    return dataclasses.replace(query, groups=groups,
                               root_traits=model.TraitFilter())


# --- lookups -------------------------------------------------------------

def _fetch_lookups(conn, query, store):
    """Every id the request needs, in one round trip (see _lookup_rows)."""
    class_names, trait_ids, agg_ids = {}, {}, {}
    sharing_ids, sharing_roots, sharing_aggs = set(), set(), {}
    has_nested = False
    params = {'trait_names': sorted(query.trait_names),
              'agg_uuids': sorted(query.aggregate_uuids)}
    stmt = _lookup_rows(bool(query.trait_names),
                        bool(query.aggregate_uuids))
    for kind, row_id, text, extra in conn.execute(stmt, params):
        if kind == 'c':
            class_names[row_id] = text
        elif kind == 't':
            trait_ids[text] = row_id
        elif kind == 'a':
            agg_ids[text] = row_id
        elif kind == 's':
            sharing_ids.add(row_id)
            sharing_roots.add(extra or row_id)
        elif kind == 'g':
            sharing_aggs.setdefault(row_id, set()).add(extra)
        elif kind == 'n':
            has_nested = row_id is not None
    rc_ids = _class_ids(class_names, query.resource_classes)
    missing = sorted(query.trait_names - set(trait_ids))
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))
    return _Lookups(rc_ids, class_names, trait_ids,
                    agg_ids, frozenset(sharing_ids),
                    frozenset(sharing_roots),
                    {k: frozenset(v) for k, v in sharing_aggs.items()},
                    has_nested, store)


@functools.lru_cache(maxsize=None)
def _lookup_rows(with_traits, with_aggregates):
    """One UNION ALL of (kind, id, text, extra) rows:

    c: every resource class (id, name); t: the traits named in the
    expanding parameter trait_names (id, name); a: the aggregates in
    agg_uuids (id, uuid); s: the sharing providers (id, root id); g:
    their aggregates (provider id, aggregate id); n: one provider with a
    parent, if any (id).

    Built once per shape: a fresh statement costs about a millisecond of
    construction and cache-key work per request.
    """
    rc, trait = models.resource_classes, models.traits
    agg = models.placement_aggregates

    def kind(letter):
        return sa.literal_column("'%s'" % letter).label('kind')

    # Typed NULLs: PostgreSQL types a column of a UNION from its arms,
    # and bare NULLs on both sides of an arm would make it text.
    no_text, no_id = sa.cast(sa.null(), sa.String), sa.cast(sa.null(),
                                                            sa.Integer)
    sharing = (_RPT.join(trait, trait.c.id == _RPT.c.trait_id))
    arms = [sa.select(kind('c'), rc.c.id, rc.c.name, no_id)]
    if with_traits:
        arms.append(sa.select(kind('t'), trait.c.id, trait.c.name, no_id)
                    .where(trait.c.name.in_(
                        sa.bindparam('trait_names', expanding=True))))
    if with_aggregates:
        arms.append(sa.select(kind('a'), agg.c.id, agg.c.uuid, no_id)
                    .where(agg.c.uuid.in_(
                        sa.bindparam('agg_uuids', expanding=True))))
    arms.append(
        sa.select(kind('s'), _RP.c.id, no_text, _RP.c.root_provider_id)
        .select_from(_RP.join(sharing, _RPT.c.resource_provider_id
                              == _RP.c.id))
        .where(trait.c.name == SHARING_TRAIT))
    arms.append(
        sa.select(kind('g'), _RPA.c.resource_provider_id, no_text,
                  _RPA.c.aggregate_id)
        .select_from(_RPA.join(sharing, _RPT.c.resource_provider_id
                               == _RPA.c.resource_provider_id))
        .where(trait.c.name == SHARING_TRAIT))
    arms.append(sa.select(
        kind('n'),
        sa.select(_RP.c.id).where(_RP.c.parent_provider_id.isnot(None))
        .limit(1).scalar_subquery(), no_text, no_id))
    return sa.union_all(*arms)


def _class_ids(class_names, wanted):
    """{name: id} of the ``wanted`` classes out of every class (one read
    serves both); ResourceClassNotFound names the first missing one,
    alphabetically, as rc_obj.fetch_ids_by_name does.
    """
    ids = {name: rc_id for rc_id, name in class_names.items()}
    missing = sorted(set(wanted) - set(ids))
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])
    return {name: ids[name] for name in wanted}


# --- chunks of roots -----------------------------------------------------

def _chunks(conn, query, options, lookups, cap):
    """Yield the _Roots to gather, in anchor order."""
    pinned = _pinned_root(conn, query)
    if pinned is not None:
        yield _Roots(ids=(pinned,))
        return
    if cap is None or options.strategy == order.BREADTH_FIRST:
        yield _Roots()
        return
    if options.rng is not None:
        yield from _random_chunks(conn, query, lookups, options.rng)
        return
    low, size = None, max(FIRST_CHUNK, cap * FIRST_CHUNK_PER_CANDIDATE)
    while True:
        high = _range_end(conn, query, lookups, low, size)
        yield _Roots(low=low, high=high)
        if high is None:
            return
        low, size = high, size * CHUNK_GROWTH


def _pinned_root(conn, query):
    """The root of the unsuffixed group's in_tree (-1 if unknown)."""
    for group in query.groups:
        if not group.is_granular and group.in_tree:
            row = conn.execute(sa.select(_RP.c.id, _RP.c.root_provider_id)
                               .where(_RP.c.uuid == group.in_tree)).first()
            return -1 if row is None else (row.root_provider_id or row.id)
    return None


def _tree_has(table, key_column, ids, root_column, correlated,
              flat=False):
    """True when some provider of the tree rooted at ``root_column`` has a
    link (trait or aggregate) among ``ids``; ``flat`` (no provider has a
    parent, so every tree is its root alone) asks the links directly.

    root IN (SELECT rp.root_provider_id FROM <links> l
             JOIN resource_providers rp ON rp.id = l.resource_provider_id
             WHERE l.<key> IN (:ids))
    or, ``correlated`` (walking roots in id order with a LIMIT):
    (SELECT 1 FROM <links> l JOIN resource_providers t
     ON t.id = l.resource_provider_id
     WHERE t.root_provider_id = root AND l.<key> IN (:ids) LIMIT 1)
    IS NOT NULL
    """
    if flat:
        return _root_links(table, key_column, ids, root_column, correlated)
    if not correlated:
        return root_column.in_(
            sa.select(_RP.c.root_provider_id)
            .select_from(table.join(
                _RP, _RP.c.id == table.c.resource_provider_id))
            .where(key_column.in_(sorted(ids))))
    tree = _RP.alias('tree_rp')
    # A scalar subquery, not EXISTS: MariaDB turns EXISTS into a
    # semi-join that materialises every matching link (O(providers))
    # before the outer LIMIT; this form is checked root by root.
    return sa.select(sa.literal(1)).select_from(
        table.join(tree, tree.c.id == table.c.resource_provider_id)).where(
        tree.c.root_provider_id == root_column,
        key_column.in_(sorted(ids))).limit(1).scalar_subquery().isnot(None)


def _root_links(table, key_column, ids, root_column, correlated):
    """The provider ``root_column`` itself has a link among ``ids``.

    root IN (SELECT l.resource_provider_id FROM <links> l
             WHERE l.<key> IN (:ids)), or the scalar form.
    """
    if not correlated:
        return root_column.in_(
            sa.select(table.c.resource_provider_id)
            .where(key_column.in_(sorted(ids))))
    return sa.select(sa.literal(1)).select_from(table).where(
        table.c.resource_provider_id == root_column,
        key_column.in_(sorted(ids))).limit(1).scalar_subquery().isnot(None)


def _root_has(ids, root_column, correlated):
    """The root itself has one of the traits ``ids``.

    root IN (SELECT rpt.resource_provider_id FROM resource_provider_traits
             rpt WHERE rpt.trait_id IN (:ids)), or the scalar form.
    """
    return _root_links(_RPT, _RPT.c.trait_id, ids, root_column, correlated)


def tree_terms(query, lookups, root_column, correlated=False):
    """WHERE terms on a root id that every viable tree meets.

    root_required is checked on the root itself. Without sharing
    providers, every provider a candidate uses is in the anchor's tree,
    so the tree must also hold each required trait (or one of an any-of
    set) and each required aggregate of every group somewhere.
    """
    trait_ids, agg_ids = lookups.trait_ids, lookups.agg_ids
    terms = []
    for name in sorted(query.root_traits.required):
        terms.append(_root_has([trait_ids[name]], root_column, correlated))
    if query.root_traits.forbidden:
        terms.append(~_root_has(
            [trait_ids[n] for n in query.root_traits.forbidden],
            root_column, correlated))
    if lookups.sharing_ids:
        return terms
    flat = lookups.is_flat
    if flat:
        terms += _forbidden_terms(query, lookups, root_column, correlated)
    for group in query.groups:
        wanted = [[trait_ids[n]] for n in sorted(group.traits.required)]
        wanted += [[trait_ids[n] for n in any_of]
                   for any_of in group.traits.any_of]
        for ids in wanted:
            terms.append(_tree_has(_RPT, _RPT.c.trait_id, ids, root_column,
                                   correlated, flat))
        for any_of in group.aggregates.required:
            ids = [agg_ids[u] for u in any_of if u in agg_ids]
            terms.append(_tree_has(_RPA, _RPA.c.aggregate_id, ids,
                                   root_column, correlated, flat))
    return terms


def _forbidden_terms(query, lookups, root_column, correlated):
    """Flat deployments only: no tree holding a forbidden trait or
    aggregate of any group (its one provider would serve that group).
    """
    terms = []
    for group in query.groups:
        if group.traits.forbidden:
            terms.append(~_root_links(
                _RPT, _RPT.c.trait_id,
                [lookups.trait_ids[n] for n in group.traits.forbidden],
                root_column, correlated))
        ids = [lookups.agg_ids[u] for u in group.aggregates.forbidden
               if u in lookups.agg_ids]
        if ids:
            terms.append(~_root_links(_RPA, _RPA.c.aggregate_id, ids,
                                      root_column, correlated))
    return terms


def _root_filter(query, lookups, correlated=True):
    """The roots that may anchor a candidate (see tree_terms); by default
    checked root by root in id order so that a LIMIT stops the scan early.
    """
    return [_RP.c.parent_provider_id.is_(None),
            *tree_terms(query, lookups, _RP.c.id, correlated)]


def _range_end(conn, query, lookups, low, size):
    """The highest root id of the next ``size`` roots after ``low``;
    None when fewer remain (the chunk is then open-ended).
    """
    stmt = sa.select(_RP.c.id).where(*_root_filter(query, lookups))
    if low is not None:
        stmt = stmt.where(_RP.c.id > low)
    stmt = stmt.order_by(_RP.c.id).offset(size - 1).limit(1)
    row = conn.execute(stmt).first()
    return None if row is None else row.id


def _random_chunks(conn, query, lookups, rng):
    ids = [row.id for row in conn.execute(
        sa.select(_RP.c.id).where(*_root_filter(query, lookups, False))
        .order_by(_RP.c.id))]
    rng.shuffle(ids)
    start, size = 0, FIRST_CHUNK
    while start < len(ids):
        yield _Roots(ids=tuple(ids[start:start + size]))
        start, size = start + size, min(size * CHUNK_GROWTH, IN_BATCH)


def _in_roots(roots, column):
    """A WHERE term limiting ``column`` (a root id) to the chunk; None
    when the chunk is every root.
    """
    if roots.ids is not None:
        return column.in_(roots.ids)
    terms = []
    if roots.low is not None:
        terms.append(column > roots.low)
    if roots.high is not None:
        terms.append(column <= roots.high)
    return sa.and_(*terms) if terms else None


def _anchors_of_chunk(roots, providers):
    found = sorted(p.id for p in providers.values() if p.parent_id is None
                   and _root_in(roots, p.id))
    return tuple(found)


def _root_in(roots, root_id):
    if roots.ids is not None:
        return root_id in roots.ids
    return ((roots.low is None or root_id > roots.low)
            and (roots.high is None or root_id <= roots.high))


# --- the snapshot --------------------------------------------------------

def gather(conn, query, lookups, roots=_Roots()):
    """(Snapshot, {provider id: provider_state.Entry}) of one chunk of
    roots (plus every sharing provider).
    """
    in_scope = _in_scope(query, lookups, roots)
    providers, entries, usage = _fetch_providers(
        conn, in_scope, lookups.store, lookups.is_flat)
    inventories = _inventories(entries, usage, lookups.class_names)
    if lookups.is_flat:
        return model.Snapshot(
            providers=providers, inventories=inventories,
            anchors=_anchors_of_chunk(roots, providers)), entries
    traits = {rp_id: entry.traits for rp_id, entry in entries.items()
              if entry.traits}
    agg_ids = dict(lookups.agg_ids)
    named = set(agg_ids.values())
    for agg_id in set().union(*lookups.sharing_aggs.values()) - named:
        agg_ids['#%d' % agg_id] = agg_id
    aggregates = _fetch_named_links(conn, _RPA, _RPA.c.aggregate_id,
                                    agg_ids, in_scope)
    by_id = {value: key for key, value in agg_ids.items()}
    anchors = _sharing_anchors(providers, aggregates, lookups, by_id)
    return model.Snapshot(
        providers=providers, inventories=inventories, traits=traits,
        aggregates=aggregates, sharing=lookups.sharing_ids & set(providers),
        sharing_anchors=anchors, anchors=_anchors_of_chunk(roots, providers),
        has_nested=lookups.has_nested), entries


def _in_scope(query, lookups, roots):
    """WHERE term on ``rp``: providers of the chunk's viable trees, and
    every sharing provider (with its root).
    """
    # Flat: every provider is its own root (whatever root_provider_id
    # holds), and a term on rp.id lets the links be asked directly.
    root = _RP.c.id if lookups.is_flat else _RP.c.root_provider_id
    terms = tree_terms(query, lookups, root)
    chunk = _in_roots(roots, root)
    if chunk is not None:
        terms.append(chunk)
    trees = sa.and_(sa.true(), *terms)
    sharing = sorted(lookups.sharing_ids | lookups.sharing_roots)
    return sa.or_(trees, _RP.c.id.in_(sharing)) if sharing else trees


def _fetch_providers(conn, in_scope, store, flat=False):
    """({id: model.Provider}, {id: provider_state.Entry},
    {(id, class id): amount used}) of the providers in scope.

    SELECT rp.id, rp.uuid, rp.generation, rp.parent_provider_id,
           rp.root_provider_id FROM resource_providers rp WHERE <in_scope>

    ``flat``: every provider is its own root (whatever the tree columns
    hold), so they are not read. Usage is a query of its own: joined in
    here it would need a GROUP BY over every column, a temporary table
    that costs MariaDB more than the extra round trip.
    """
    columns = [_RP.c.id, _RP.c.uuid, _RP.c.generation]
    if not flat:
        columns += [_RP.c.parent_provider_id, _RP.c.root_provider_id]
    rows = conn.execute(sa.select(*columns).where(in_scope)).all()
    if flat:
        providers = {row[0]: model.Provider(row[0], row[1], None, row[0])
                     for row in rows}
        keys = rows
    else:
        providers = {row[0]: model.Provider(row[0], row[1], row[3],
                                            row[4] or row[0])
                     for row in rows}
        keys = [row[:3] for row in rows]
    usage = _fetch_usage(conn, in_scope) if providers else {}
    return providers, provider_state.entries(conn, store, keys), usage


def _fetch_usage(conn, in_scope):
    """{(provider id, class id): amount used} of the providers in scope
    that have allocations.

    SELECT a.resource_provider_id, a.resource_class_id, SUM(a.used)
    FROM allocations a
    JOIN resource_providers rp ON rp.id = a.resource_provider_id
    WHERE <in_scope> GROUP BY a.resource_provider_id, a.resource_class_id
    """
    alloc = models.allocations
    stmt = (sa.select(alloc.c.resource_provider_id,
                      alloc.c.resource_class_id, sa.func.sum(alloc.c.used))
            .select_from(alloc.join(
                _RP, _RP.c.id == alloc.c.resource_provider_id))
            .where(in_scope)
            .group_by(alloc.c.resource_provider_id,
                      alloc.c.resource_class_id))
    return {(rp_id, rc_id): int(used)
            for rp_id, rc_id, used in conn.execute(stmt)}


def _inventories(entries, usage, class_names):
    """{provider id: {class name: model.Inventory}} of every class (the
    summaries need them all; the solver looks only at the classes asked
    for), with the amounts used.
    """
    inventory = _inventory_maker(usage)
    inventories = {}
    for rp_id, entry in entries.items():
        if entry.inventories:
            inventories[rp_id] = {
                class_names[row[0]]: inventory(rp_id, *row)
                for row in entry.inventories}
    return inventories


def _inventory_maker(usage):
    """A function of one inventory row to its model.Inventory (with the
    amount used from ``usage``); equal inventories share one immutable
    instance, which spares building the same frozen dataclass for every
    alike provider.
    """
    made = {}
    capacity = model.capacity

    def inventory(rp_id, rc_id, total, reserved, ratio, low, high, step):
        used = usage.get((rp_id, rc_id), 0)
        key = (total, reserved, ratio, low, high, step, used)
        found = made.get(key)
        if found is None:
            found = made[key] = model.Inventory(
                capacity(total, reserved, ratio), used, low, high, step)
        return found
    return inventory


def _fetch_named_links(conn, table, key_column, ids_by_name, in_scope):
    """{provider id: frozenset of names} for links (traits or aggregates)
    among ``ids_by_name`` of the providers in scope.

    SELECT l.resource_provider_id, l.<key> FROM <links> l
    JOIN resource_providers rp ON rp.id = l.resource_provider_id
    WHERE l.<key> IN (:ids) AND <in_scope>
    """
    if not ids_by_name:
        return {}
    names = {value: key for key, value in ids_by_name.items()}
    stmt = (sa.select(table.c.resource_provider_id, key_column)
            .select_from(table.join(
                _RP, _RP.c.id == table.c.resource_provider_id))
            .where(key_column.in_(sorted(names)), in_scope))
    found = {}
    for rp_id, key in conn.execute(stmt):
        found.setdefault(rp_id, set()).add(names[key])
    return {rp_id: frozenset(items) for rp_id, items in found.items()}


def _sharing_anchors(providers, aggregates, lookups, name_of_agg):
    """{sharing provider id: roots of trees sharing an aggregate with it}."""
    members = {}
    for rp_id, names in aggregates.items():
        if rp_id in providers:
            for name in names:
                members.setdefault(name, set()).add(providers[rp_id].root_id)
    anchors = {}
    for sharing_id, agg_ids in lookups.sharing_aggs.items():
        roots = set()
        for agg_id in agg_ids:
            roots |= members.get(name_of_agg[agg_id], set())
        anchors[sharing_id] = frozenset(roots)
    return anchors


# --- provider summaries --------------------------------------------------

def _scope_ids(scope, seen):
    if scope.root_ids:
        return [rp_id for rp_id, p in seen.providers.items()
                if p.root_id in scope.root_ids]
    return sorted(scope.provider_ids)


def _summaries(scope, seen, with_traits):
    """ProviderSummary per provider in scope, in uuid order."""
    providers, entries = seen.providers, seen.entries
    empty = frozenset()
    found = []
    for rp_id in _scope_ids(scope, seen):
        rp = providers[rp_id]
        parent = providers.get(rp.parent_id)
        found.append(summaries_mod.ProviderSummary(
            rp_id, rp.uuid, parent.uuid if parent else None,
            providers[rp.root_id].uuid if rp.root_id in providers
            else rp.uuid,
            {rc: (inv.capacity, inv.used)
             for rc, inv in seen.inventories.get(rp_id, {}).items()},
            entries[rp_id].traits if with_traits else empty))
    return sorted(found, key=lambda s: s.uuid)
