"""The reads of a candidates request: queries, ``conn`` first.

They run the statements of statements.py inside the caller's read
transaction and return plain data; they never begin or commit.
``fetch_snapshot`` reads one chunk of roots into a ``solver.model
.Snapshot``; the others look up ids and choose roots (chunks.py).
"""
import itertools
import typing

from placement.db import packed
from placement.objects.candidates import memory
from placement.objects.candidates import plan as plan_mod
from placement.objects.candidates import statements
from placement.solver import model


class Read(typing.NamedTuple):
    """What one chunk's read gives.

    snapshot: for the solver; entries: {provider id: memory.Entry} of
    its providers (their listed traits and raw inventories).
    """

    snapshot: model.Snapshot
    entries: typing.Mapping[int, memory.Entry]


# Keys of the inventory mappings a read builds: unique in the process,
# so that the chunks of one answer never share one by chance.
_MAPPING_KEYS = itertools.count(1)

# The first column of state_stmt's rows (lookups_stmt's are other letters).
_STATE_KINDS = (statements.PROVIDER, statements.USAGE)


def _lookups_stmt(query):
    return statements.lookups_stmt(*statements.lookups_slots(query))


def fetch_lookups(conn, query) -> plan_mod.Lookups:
    """Every id ``query`` names, in one statement (lookups_stmt).

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    rows = packed.fetch_rows(conn, _lookups_stmt(query),
                             statements.lookups_params(query),
                             statements.LOOKUPS_TYPES)
    return plan_mod.lookups_from_rows(rows, query)


def fetch_lookups_and_every_root(conn, query, plan):
    """(fetch_lookups' Lookups, the state rows of every root under
    ``plan``, for fetch_snapshot), in one statement
    (statements.lookups_and_state_stmt).

    Raises as fetch_lookups.
    """
    stmt = statements.lookups_and_state_stmt(
        plan, plan_mod.EVERY, *statements.lookups_slots(query))
    lookups, state_rows = [], []
    for row in packed.fetch_rows(conn, stmt, statements.lookups_params(query),
                                 statements.state_types(plan)):
        if row[0] in _STATE_KINDS:
            state_rows.append(row)
        else:
            lookups.append(row[:4])
    return plan_mod.lookups_from_rows(lookups, query), state_rows


def fetch_pinned_root(conn, rp_uuid):
    """The root id of the provider ``rp_uuid`` (-1 if there is none)."""
    row = conn.execute(statements.pinned_root_stmt(),
                       {'uuid': rp_uuid}).first()
    return -1 if row is None else (row.root_provider_id or row.id)


def fetch_range_end(conn, plan, low, size):
    """The id of the ``size``-th viable root after ``low``, or None when
    fewer remain."""
    row = conn.execute(statements.range_end_stmt(plan),
                       {'low': low, 'offset': size - 1}).first()
    return None if row is None else row.id


def fetch_viable_roots(conn, plan):
    """The ids of every viable root, in id order."""
    return conn.execute(statements.viable_roots_stmt(plan)).scalars().all()


def _chunk_params(chunk):
    if chunk.kind == plan_mod.RANGE:
        return {'low': chunk.low, 'high': chunk.high}
    if chunk.kind == plan_mod.LISTED:
        return {'root_ids': list(chunk.ids)}
    return {}


def fetch_snapshot(conn, plan, chunk, lookups, store,
                   state_rows=None) -> Read:
    """The Read of one chunk of roots (plus every sharing provider):
    providers, usage, inventories (from ``store``, loading what it
    lacks) and, unless the plan is flat, traits and the plan's
    aggregate links. ``state_rows``: the chunk's state rows under
    ``plan``, when read already (fetch_lookups_and_every_root).
    """
    params = _chunk_params(chunk)
    if state_rows is None:
        state_rows = packed.fetch_rows(
            conn, statements.state_stmt(plan, chunk.kind), params,
            statements.state_types(plan))
    rows, usage = [], {}
    for row in state_rows:
        if row[0] == statements.PROVIDER:
            rows.append(row[1:-2])
        else:
            usage[(row[1], row[-2])] = row[-1]
    providers = _providers(rows, plan.flat)
    entries = memory.entries(conn, store, rows)
    inventories, keys = _inventories(entries, usage, lookups.class_names)
    anchors = _anchors(chunk, providers)
    if plan.flat:
        return Read(model.Snapshot(providers=providers,
                                   inventories=inventories,
                                   anchors=anchors, inventory_keys=keys),
                    entries)
    traits = {rp_id: entry.traits for rp_id, entry in entries.items()
              if entry.traits}
    aggregates = _links(conn, plan, chunk, params)
    return Read(model.Snapshot(
        providers=providers, inventories=inventories, traits=traits,
        aggregates=aggregates, sharing=lookups.sharing_ids & set(providers),
        sharing_anchors=_sharing_anchors(providers, aggregates, lookups,
                                         plan),
        anchors=anchors, has_nested=plan.has_nested,
        inventory_keys=keys), entries)


def _anchors(chunk, providers):
    """The chunk's roots among ``providers``, in id order."""
    roots = [rp_id for rp_id, p in providers.items() if p.parent_id is None]
    if chunk.kind != plan_mod.EVERY:
        roots = [rp_id for rp_id in roots if chunk.holds(rp_id)]
    return tuple(sorted(roots))


def _providers(rows, flat):
    """{id: model.Provider} of the providers' rows."""
    # tuple.__new__ rather than the named tuple's own __new__, a Python
    # call that costs as much again (0.1 ms per thousand providers).
    new, provider = tuple.__new__, model.Provider
    if flat:
        return {row[0]: new(provider, (row[0], row[1], None, row[0]))
                for row in rows}
    return {row[0]: new(provider, (row[0], row[1], row[3], row[4] or row[0]))
            for row in rows}


def _inventories(entries, usage, class_names):
    """({provider id: {class name: model.Inventory}} of every class (the
    summaries need them all), with the amounts used; {provider id: key
    of its mapping}).

    Providers with equal inventories (memory's key) and equal amounts
    used share one mapping and its key, unique in the process
    (_MAPPING_KEYS): the solver tells alike trees apart by the key, and
    a thousand alike providers cost one build. Equal inventories are one
    model.Inventory.
    """
    inventory = _inventory_maker(usage)
    in_use = {rp_id for rp_id, _ in usage}
    # A class made after the lookups were read (PostgreSQL reads each
    # statement in a snapshot of its own) was not asked for: not listed.
    known = class_names.__contains__
    inventories, keys, alike = {}, {}, {}
    get_used, mapping_key = usage.get, _MAPPING_KEYS.__next__
    for rp_id, entry in entries.items():
        rows = entry.inventories
        if not rows:
            continue
        if rp_id in in_use:
            key = (entry.inventories_key,
                   tuple([get_used((rp_id, row[0]), 0) for row in rows]))
        else:
            key = entry.inventories_key
        found = alike.get(key)
        if found is None:
            found = alike[key] = (
                {class_names[row[0]]: inventory(rp_id, *row)
                 for row in rows if known(row[0])}, mapping_key())
        inventories[rp_id], keys[rp_id] = found
    return inventories, keys


def _inventory_maker(usage):
    """A function of one inventory row to its model.Inventory, with the
    amount used from ``usage``; equal ones are one instance."""
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


def _links(conn, plan, chunk, params):
    """{provider id: frozenset of aggregate names} of the plan's
    aggregates (link_aggregates) among the chunk's providers."""
    stmt = statements.links_stmt(plan, chunk.kind)
    if stmt is None:
        return {}
    names = {agg_id: name for name, agg_id in plan.link_aggregates}
    found = {}
    for rp_id, agg_id in conn.execute(stmt, params):
        found.setdefault(rp_id, set()).add(names[agg_id])
    return {rp_id: frozenset(items) for rp_id, items in found.items()}


def _sharing_anchors(providers, aggregates, lookups, plan):
    """{sharing provider id: roots of the trees sharing an aggregate
    with it}."""
    members = {}
    for rp_id, names in aggregates.items():
        if rp_id in providers:
            for name in names:
                members.setdefault(name, set()).add(providers[rp_id].root_id)
    name_of = {agg_id: name for name, agg_id in plan.link_aggregates}
    anchors = {}
    for sharing_id, agg_ids in lookups.sharing_aggs.items():
        roots = set()
        for agg_id in agg_ids:
            roots |= members.get(name_of[agg_id], set())
        anchors[sharing_id] = frozenset(roots)
    return anchors
