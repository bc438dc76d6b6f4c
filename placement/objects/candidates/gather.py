"""gather(): what a candidates query can use, read chunk by chunk.

The one way the listing, explain and the reasons of an empty answer
read the database: look up the ids the query names (one statement),
plan (plan.py), then read each chunk of roots (chunks.py) into a
snapshot (fetch.py), in the caller's read (a transaction or not).

``last_plans``: per reader engine, the last Plan of each filtered query
whose first chunk is every root, a memo of plan_for's last answer. A
scheduler asks the same queries again and again, and their plan only
changes when the ids they name or the deployment's sharing providers or
nesting do: the first chunk's read under the remembered plan goes with
the lookups, in one statement (fetch.fetch_lookups_and_every_root), and
is used only when the fresh lookups give that plan again; otherwise the
chunk is read anew. Correctness never rests on the memo. Figures: 1,000
flat providers, tools/profile candidates (contributor guide, Caches).
"""
import typing
import weakref

from placement.objects.candidates import chunks as chunks_mod
from placement.objects.candidates import fetch
from placement.objects.candidates import memory
from placement.objects.candidates import plan as plan_mod
from placement.solver import model


class Gathered(typing.NamedTuple):
    """One chunk's read: fetch.Read's snapshot and entries, the query
    the solver gets over it (plan.solver_query: without the filters SQL
    applied exactly) and {class id: name} of every class."""

    snapshot: model.Snapshot
    entries: typing.Mapping[int, memory.Entry]
    solver_query: model.CandidateQuery
    class_names: typing.Mapping[int, str]


def gather(conn, query: model.CandidateQuery, options: model.SolverOptions,
           found: typing.Sequence = (), filtered: bool = True
           ) -> typing.Iterator[Gathered]:
    """Yield the Gathered chunks of ``query``, each read only when asked
    for: stop iterating once enough candidates are found.

    ``found``: the caller's list of candidates so far (its length sizes
    random draws). ``filtered=False`` (explain): one chunk of every
    provider, no filter pushed into SQL, traits and the named
    aggregates read, so that the caller can apply every check itself.

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    memo = None
    if filtered and chunks_mod.every_root_first(query, options):
        memo = last_plans(conn.engine)
    guess = None if memo is None else memo.get(query)
    if guess is None:
        lookups, state_rows = fetch.fetch_lookups(conn, query), None
    else:
        lookups, state_rows = fetch.fetch_lookups_and_every_root(
            conn, query, guess)
    plan = plan_mod.plan_for(query, lookups, filtered)
    if memo is not None and plan != guess:
        if len(memo) >= LAST_PLANS:
            memo.clear()
        memo[query] = plan
    store = memory.store_for(conn.engine)
    solver_query = plan_mod.solver_query(query, plan)
    if filtered:
        chunks = chunks_mod.chunks(conn, query, options, plan, lookups,
                                   found)
    else:
        chunks = [plan_mod.EVERY_ROOT]
    for chunk in chunks:
        if plan != guess or chunk != plan_mod.EVERY_ROOT:
            state_rows = None
        read = fetch.fetch_snapshot(conn, plan, chunk, lookups, store,
                                    state_rows)
        state_rows = None
        yield Gathered(read.snapshot, read.entries, solver_query,
                       lookups.class_names)


# Plans remembered per engine (last_plans); cleared when full.
LAST_PLANS = 256
# {reader engine: {CandidateQuery: its last Plan}}
_LAST_PLANS = weakref.WeakKeyDictionary()


def last_plans(engine) -> dict:
    """{query: its last Plan} of the queries read through ``engine``."""
    found = _LAST_PLANS.get(engine)
    if found is None:
        found = _LAST_PLANS[engine] = {}
    return found
