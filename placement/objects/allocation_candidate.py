"""Allocation candidates: gather what a request can use, solve, summarise.

One read transaction: one query for every id the request names, then a
fixed set of queries per *chunk of roots* (their SQL is in
``candidate_sql``) builds a ``solver.model.Snapshot``: whole trees that can
hold every required trait and aggregate (tree-level filters in SQL, exact
in a flat deployment, where the solver then skips them), their usage, and
the aggregate links the request names. Inventories and traits come from
``provider_state``, which reads only providers whose generation it has
not seen. The pure solver does the rest. Without a cap every root is one
chunk; with ``limit`` (depth-first, the default) roots are read in growing
id ranges until enough candidates exist, or, randomizing, drawn at random
ids (_random_chunks), so a small limit costs the same at any deployment
size. Summaries come from the same reads.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import candidate_lookups
from placement.objects import candidate_sql as sql
from placement.objects import gc_pause
from placement.objects import provider_state
from placement.objects import summary_order
from placement import solver
from placement.solver import model
from placement.solver import order
from placement.solver import summaries as summaries_mod

FIRST_CHUNK = 16
CHUNK_GROWTH = 4
FIRST_CHUNK_PER_CANDIDATE = 2
IN_BATCH = 2000
# Random chunks (see _random_chunks): the first draw of ids, per candidate
# wanted and at least; at most this many draws, and never past this share
# of the id range, before the rest is read.
PROBE_PER_CANDIDATE = 4
PROBE_FIRST = 64
PROBE_ROUNDS = 4
PROBE_SHARE = .5

_RP = models.resource_providers
_RPA = models.resource_provider_aggregates
# For candidate_explain and the tests.
_Lookups = candidate_lookups.Lookups
_fetch_lookups = candidate_lookups.fetch


@dataclasses.dataclass(frozen=True)
class CandidateResult:
    """What GET /allocation_candidates renders.

    uuids: {provider id: uuid} for every provider in the candidates;
    summaries: ProviderSummary per provider to list.
    """

    candidates: typing.Tuple[model.Candidate, ...]
    uuids: typing.Mapping[int, str]
    summaries: typing.Tuple[summaries_mod.ProviderSummary, ...]
    gathered: typing.Optional['Gathered'] = None  # an empty answer's


@dataclasses.dataclass(frozen=True)
class _Roots:
    """A chunk of roots: the id range (low, high] or an explicit list.

    low=None and high=None with ids=None means every root.
    """

    low: typing.Optional[int] = None
    high: typing.Optional[int] = None
    ids: typing.Optional[typing.Tuple[int, ...]] = None


@db_api.operation
def list_candidates(ctx, query: model.CandidateQuery,
                    options: model.SolverOptions,
                    summary_classes_all: bool = True,
                    with_traits: bool = True) -> CandidateResult:
    """Find the candidates of ``query``; one read transaction.

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    store = provider_state.store_for(
        ctx if isinstance(ctx, db_api.Database) else ctx.db)
    with gc_pause.no_cyclic_gc(), db_api.reader(
            ctx, snapshot=db_api.AS_ISOLATED) as conn:
        lookups, first = _first_read(conn, query, options, store)
        candidates, seen = _solve_in_chunks(conn, query, options, lookups,
                                            first)
        heap_ordered = conn.dialect.name in sql.HEAP_ORDER_DIALECTS
        root_of = {rp_id: p.root_id for rp_id, p in seen.providers.items()}
        scope = summaries_mod.scope(candidates, root_of, query.nested_aware)
        if heap_ordered and not lookups.is_flat:
            inventory_order = summary_order.postgresql_order(
                conn, candidates, summary_order.scope_ids(scope, seen),
                root_of)
        else:
            inventory_order = summary_order.small_table_order(
                conn, seen.entries)
    places = None
    if heap_ordered:
        # The providers as read (sql.state_stmt's heap_order).
        places = {rp_id: place for place, rp_id in enumerate(seen.providers)}
    summaries = summary_order.summaries(scope, seen, with_traits, places)
    if inventory_order is not None:
        summaries.sort(key=lambda s: inventory_order.get(
            s.id, summary_order.NO_ROW))
    if query.in_tree_uuids:
        # Upstream's order with in_tree: the trees of sharing providers
        # after the others (else, provider id order throughout).
        summaries.sort(key=lambda s: root_of[s.id] in lookups.sharing_roots)
    if not summary_classes_all:
        classes = query.resource_classes
        summaries = [summaries_mod.restrict_classes(s, classes)
                     for s in summaries]
    uuids = {rp_id: p.uuid for rp_id, p in seen.providers.items()}
    return CandidateResult(tuple(candidates), uuids, tuple(summaries),
                           None if candidates else seen)


@dataclasses.dataclass
class Gathered:
    """What the chunks read (no links when flat), the _Roots covering
    them (the one chunk, or every root: several end at the cap or last)
    and how many candidates they gave so far (random draws size by it)."""

    lookups: _Lookups
    providers: dict = dataclasses.field(default_factory=dict)
    inventories: dict = dataclasses.field(default_factory=dict)
    entries: dict = dataclasses.field(default_factory=dict)
    aggregates: dict = dataclasses.field(default_factory=dict)
    covered: _Roots = _Roots()
    candidates: int = 0


def _solve_in_chunks(conn, query, options, lookups, first=None):
    """Solve chunk by chunk; ``first``: the state rows of the first,
    when _first_read read them."""
    cap = order.cap(query.limit, options.max_candidates)
    seen, found, dedup = Gathered(lookups), [], set()
    solver_query = without_filters(query) if lookups.is_flat else query
    for chunk, roots in enumerate(
            _chunks(conn, query, options, lookups, cap, seen)):
        seen.covered = roots if chunk == 0 else _Roots()
        snapshot, entries = gather(conn, query, lookups, roots,
                                   first if chunk == 0 else None)
        count = None if cap is None else cap - len(found)
        found += solver.solve(snapshot, solver_query, options, dedup, count)
        seen.candidates = len(found)
        seen.providers.update(snapshot.providers)
        seen.inventories.update(snapshot.inventories)
        seen.entries.update(entries)
        seen.aggregates.update(snapshot.aggregates)
        if cap is not None and len(found) >= cap:
            break
    return found, seen


def _first_read(conn, query, options, store):
    """(Lookups, the state rows of the first chunk or None).

    When the first chunk is every root and the store has a hint for the
    query, the lookups come with the state rows of that chunk as the
    hint would build its statement (candidate_lookups): one round trip
    instead of two. Those rows are kept only if the fresh lookups give
    the same statement.
    """
    hint = None
    if _first_chunk_is_every_root(query, options):
        hint = candidate_lookups.hint(store, query)
    if hint is None:
        lookups, first = candidate_lookups.fetch(conn, query, store), None
    else:
        found, first = candidate_lookups.split_rows(
            _fetch_state(conn, _scope_of(query, hint, _Roots()), hint.is_flat,
                         query))
        lookups = candidate_lookups.from_rows(found, query, store)
        if _shape_key(query, lookups) != _shape_key(query, hint):
            first = None
    candidate_lookups.remember(store, query, lookups)
    return lookups, first


def _first_chunk_is_every_root(query, options):
    """What _chunks yields first is _Roots() (every root)."""
    if any(not group.is_granular and group.in_tree
           for group in query.groups):
        return False
    return (options.strategy == order.BREADTH_FIRST
            or order.cap(query.limit, options.max_candidates) is None)


def without_filters(query):
    """The query minus trait, aggregate and root filters, for a flat
    deployment where SQL (candidate_sql.tree_terms) already applied them
    exactly.
    """
    groups = tuple(dataclasses.replace(
        group, traits=model.TraitFilter(),
        aggregates=model.AggregateFilter()) for group in query.groups)
    return dataclasses.replace(query, groups=groups,
                               root_traits=model.TraitFilter())


# --- chunks of roots -----------------------------------------------------

def _chunks(conn, query, options, lookups, cap, tally):
    """Yield the _Roots to gather, in anchor order."""
    pinned = _pinned_root(conn, query)
    if pinned is not None:
        yield _Roots(ids=(pinned,))
        return
    if cap is None or options.strategy == order.BREADTH_FIRST:
        yield _Roots()
        return
    if options.rng is not None:
        yield from _random_chunks(conn, query, lookups, options.rng, cap,
                                  tally)
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


def _range_end(conn, query, lookups, low, size):
    """The highest root id of the next ``size`` roots after ``low``;
    None when fewer remain (the chunk is then open-ended). The statement
    and its binds are built once per shape (sql.cached): building the
    root filter took a quarter of a limit=10 request's CPU.
    """
    def build():
        binds = sql.Binds()
        where = sql.root_filter(binds, query, lookups)
        after = None if low is None else binds.value(low, 'low')
        if after is not None:
            where.append(_RP.c.id > after)
        offset = binds.value(size - 1, 'offset')
        stmt = sql.cached(binds.key('range_end'), lambda: (
            sa.select(_RP.c.id).where(*where).order_by(_RP.c.id)
            .offset(offset).limit(1)))
        return stmt, binds.values, offset.key, after is not None and after.key
    stmt, values, offset, after = sql.cached(
        ('range_end binds', low is None) + _shape_key(query, lookups), build)
    params = dict(values)
    params[offset] = size - 1
    if after:
        params[after] = low
    row = conn.execute(stmt, params).first()
    return None if row is None else row.id


def _random_chunks(conn, query, lookups, rng, cap, tally):
    """Chunks of roots in a uniformly random order, without reading them
    all: ids are drawn at random, never twice, from the providers' id
    range, and a chunk of drawn ids gathers only those that are viable
    roots (in_scope's tree terms). Every viable root is then as likely as
    any other to come next, whatever the gaps between ids, and a small
    limit costs the same at any deployment size.

    Each draw is sized from what the earlier ones gave (``tally``). When
    the draws would cover much of the range, or after PROBE_ROUNDS, the
    viable roots not drawn yet are read and shuffled instead.
    """
    low, high = lookups.id_range
    if low is None:
        return
    span, drawn = high - low + 1, set()
    size = min(max(PROBE_FIRST, cap * PROBE_PER_CANDIDATE), IN_BATCH)
    for _ in range(PROBE_ROUNDS):
        if len(drawn) + size > span * PROBE_SHARE:
            break
        yield _Roots(ids=_draw(rng, low, span, drawn, size))
        size = _next_draw(size, len(drawn), cap - tally.candidates,
                          tally.candidates)
    yield from _shuffled_rest(conn, query, lookups, rng, drawn)


def _draw(rng, low, span, drawn, size):
    """``size`` ids of [low, low + span) not in ``drawn`` (which gains
    them), uniformly at random; ``drawn`` must leave most of the range.
    """
    random, picked = rng.random, []
    while len(picked) < size:
        rp_id = low + int(random() * span)
        if rp_id not in drawn:
            drawn.add(rp_id)
            picked.append(rp_id)
    return tuple(picked)


def _next_draw(size, drawn, needed, found):
    """How many ids to draw next: enough, at the rate of candidates per
    id drawn so far, for the ``needed`` candidates, with half again to
    spare; CHUNK_GROWTH times more while none were found.
    """
    if found <= 0:
        wanted = size * CHUNK_GROWTH
    else:
        wanted = int(needed * drawn * 1.5 / found) + 1
    return min(max(wanted, PROBE_FIRST), IN_BATCH)


def _shuffled_rest(conn, query, lookups, rng, drawn):
    """Chunks of the viable roots not in ``drawn``, in random order."""
    binds = sql.Binds()
    where = sql.root_filter(binds, query, lookups, False)
    ids = [row.id for row in conn.execute(
        sa.select(_RP.c.id).where(*where).order_by(_RP.c.id),
        binds.values) if row.id not in drawn]
    rng.shuffle(ids)
    start, size = 0, FIRST_CHUNK
    while start < len(ids):
        yield _Roots(ids=tuple(ids[start:start + size]))
        start, size = start + size, min(size * CHUNK_GROWTH, IN_BATCH)


def _anchors_of_chunk(roots, providers):
    if roots.ids is not None:
        ids = frozenset(roots.ids)
        found = [rp_id for rp_id in ids if rp_id in providers
                 and providers[rp_id].parent_id is None]
    else:
        found = [p.id for p in providers.values() if p.parent_id is None
                 and (roots.low is None or p.id > roots.low)
                 and (roots.high is None or p.id <= roots.high)]
    return tuple(sorted(found))


# --- the snapshot --------------------------------------------------------

def gather(conn, query, lookups, roots=_Roots(), rows=None):
    """(Snapshot, {provider id: provider_state.Entry}) of one chunk of
    roots (plus every sharing provider); ``rows``: its state rows, when
    read already.
    """
    scope = _scope_of(query, lookups, roots)
    providers, entries, usage = _fetch_providers(
        conn, scope, lookups.store, lookups.is_flat, rows)
    inventories = _inventories(entries, usage, lookups.class_names)
    if lookups.is_flat:
        return model.Snapshot(
            providers=providers, inventories=inventories,
            anchors=_anchors_of_chunk(roots, providers)), entries
    traits = {rp_id: entry.traits for rp_id, entry in entries.items()
              if entry.traits}
    agg_ids = lookups.link_ids()
    aggregates = _fetch_named_links(conn, _RPA, _RPA.c.aggregate_id,
                                    agg_ids, scope)
    by_id = {value: key for key, value in agg_ids.items()}
    anchors = _sharing_anchors(providers, aggregates, lookups, by_id)
    return model.Snapshot(
        providers=providers, inventories=inventories, traits=traits,
        aggregates=aggregates, sharing=lookups.sharing_ids & set(providers),
        sharing_anchors=anchors, anchors=_anchors_of_chunk(roots, providers),
        has_nested=lookups.has_nested), entries


class _Scope(typing.NamedTuple):
    """The WHERE term on ``rp`` of the providers in scope, and its binds."""

    where: typing.Any
    binds: sql.Binds

    def rows(self, conn, kind, build, types, params=None):
        """sql.rows of the statement ``build(where)``."""
        return sql.rows(conn, self.binds.key(*kind),
                        lambda: build(self.where),
                        self.binds.values if params is None
                        else dict(self.binds.values, **params), types)


_LISTED = _Roots(ids=())


def _shape_key(query, lookups):
    """Everything sql.in_scope and sql.root_filter read but the chunk."""
    return (query, lookups.is_flat, lookups.sharing_ids,
            lookups.sharing_roots, frozenset(lookups.trait_ids.items()),
            frozenset(lookups.agg_ids.items()))


def _scope_of(query, lookups, roots):
    """The _Scope of a chunk, built once per set of what decides it.

    Building the SQLAlchemy expression of a nested query's scope costs
    about 0.2 ms, and a scheduler asks the same questions again and
    again. The key is everything sql.in_scope reads; the binds' values
    are shared and only ever read.
    """
    listed = roots.ids is not None

    def build():
        binds = sql.Binds()
        return _Scope(sql.in_scope(binds, query, lookups, roots), binds)
    found = sql.cached(
        ('scope', _LISTED if listed else roots) + _shape_key(query, lookups),
        build)
    if listed:
        # One expression for every list of roots (random chunks draw a
        # new one each time); this list is its ROOT_IDS value.
        found = _Scope(found.where, found.binds.with_value(
            sql.ROOT_IDS, sorted(roots.ids)))
    return found


def _fetch_state(conn, scope, flat, lookups_of=None):
    """The rows of sql.state_stmt over ``scope``; with ``lookups_of`` (a
    query), that query's lookups too, in the same statement
    (candidate_lookups.with_state_stmt).
    """
    heap_order = conn.dialect.name in sql.HEAP_ORDER_DIALECTS
    types = sql.FLAT_STATE_TYPES if flat else sql.STATE_TYPES
    if lookups_of is None:
        return scope.rows(
            conn, ('state', flat, heap_order),
            lambda where: sql.state_stmt(where, flat, heap_order), types)
    kinds = candidate_lookups.kinds(lookups_of)
    return scope.rows(
        conn, ('state and lookups', flat, heap_order) + kinds,
        lambda where: candidate_lookups.with_state_stmt(
            sql.state_stmt(where, flat, heap_order), *kinds, len(types)),
        types, candidate_lookups.params(lookups_of))


def _fetch_providers(conn, scope, store, flat=False, rows=None):
    """({id: model.Provider}, {id: provider_state.Entry},
    {(id, class id): amount used}) of the providers in scope, read in one
    statement (_fetch_state) unless ``rows`` holds its rows already.

    Usage is not joined to the providers: that would need a GROUP BY over
    every provider column, a temporary table that costs MariaDB more than
    the second arm of the UNION.
    """
    if rows is None:
        rows = _fetch_state(conn, scope, flat)
    usage, found = {}, []
    for row in rows:
        if row[1] is None:
            usage[(row[0], row[3])] = int(row[2])
        else:
            found.append(row)
    # tuple.__new__ rather than the named tuple's own __new__, a Python
    # call that costs as much again (0.1 ms per thousand providers).
    new, provider = tuple.__new__, model.Provider
    if flat:
        providers = {row[0]: new(provider, (row[0], row[1], None, row[0]))
                     for row in found}
    else:
        providers = {row[0]: new(provider, (row[0], row[1], row[3],
                                            row[4] or row[0]))
                     for row in found}
    return providers, provider_state.entries(conn, store, found), usage


def _inventories(entries, usage, class_names):
    """{provider id: {class name: model.Inventory}} of every class (the
    summaries need them all; the solver looks only at the classes asked
    for), with the amounts used.
    """
    inventory = _inventory_maker(usage)
    in_use = {rp_id for rp_id, _ in usage}
    inventories, alike, unused = {}, {}, {}
    for rp_id, entry in entries.items():
        rows = entry.inventories
        if not rows:
            continue
        # Providers with equal inventories share one dict: the solver's
        # Memo tells alike trees apart by its identity. Unused ones are
        # found by their rows (one interned tuple per distinct set, see
        # provider_state), the others by what was built.
        if rp_id not in in_use:
            found = unused.get(id(rows))
            if found is None:
                found = unused[id(rows)] = {
                    class_names[row[0]]: inventory(rp_id, *row)
                    for row in rows}
        else:
            found = {class_names[row[0]]: inventory(rp_id, *row)
                     for row in rows}
            key = tuple([(rc, id(inv)) for rc, inv in found.items()])
            found = alike.setdefault(key, found)
        inventories[rp_id] = found
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


def _fetch_named_links(conn, table, key_column, ids_by_name, scope):
    """{provider id: frozenset of names} for links (traits or aggregates)
    among ``ids_by_name`` of the providers in scope (sql.links_stmt).
    """
    if not ids_by_name:
        return {}
    names = {value: key for key, value in ids_by_name.items()}
    found = {}
    for rp_id, key in scope.rows(
            conn, ('links', table.name),
            lambda where: sql.links_stmt(table, key_column, where),
            sql.LINK_TYPES, {'link_ids': sorted(names)}):
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
