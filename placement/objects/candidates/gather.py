"""What a candidates query can use, read chunk by chunk.

The one way the listing, explain and the reasons of an empty answer
read the database, in the caller's read (a transaction or not):
``start`` looks up the ids the query names (one statement) and plans
(plan.py); then the caller's loop asks chunks.next_chunk for each chunk
of roots in turn and ``read`` reads it into a snapshot (fetch.py).

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

from placement.db import api as db_api
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


class Reading(typing.NamedTuple):
    """What ``start`` found, for ``read`` and chunks.start: the query's
    lookups (plan.Lookups) and Plan, the query the solver gets, the
    providers' memory (memory.Store), and the state rows of every root
    under ``plan`` when they came with the lookups (else None)."""

    lookups: plan_mod.Lookups
    plan: plan_mod.Plan
    solver_query: model.CandidateQuery
    store: memory.Store
    every_root_rows: typing.Optional[list]


def start(conn, query: model.CandidateQuery, options: model.SolverOptions,
          filtered: bool = True) -> Reading:
    """The Reading of ``query``: its lookups and plan.

    ``filtered=False`` (explain): the plan reads every provider in one
    chunk (plan.EVERY_ROOT), no filter pushed into SQL, traits and the
    named aggregates read, so that the caller can apply every check
    itself.

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    memo = None
    if filtered and chunks_mod.every_root_first(query, options):
        memo = last_plans(db_api.data_source(conn))
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
    return Reading(lookups, plan, plan_mod.solver_query(query, plan),
                   memory.store_for(db_api.data_source(conn)),
                   state_rows if plan == guess else None)


def read(conn, reading: Reading, chunk: plan_mod.Chunk) -> Gathered:
    """The Gathered of one chunk of ``reading``'s roots."""
    rows = (reading.every_root_rows if chunk == plan_mod.EVERY_ROOT
            else None)
    found = fetch.fetch_snapshot(conn, reading.plan, chunk, reading.lookups,
                                 reading.store, rows)
    return Gathered(found.snapshot, found.entries, reading.solver_query,
                    reading.lookups.class_names)


def gather(conn, query: model.CandidateQuery,
           options: model.SolverOptions) -> typing.List[Gathered]:
    """Every chunk of ``query``, read (for a caller that needs them all,
    as the fill of free capacity: with no cap, one chunk).

    Raises as ``start``.
    """
    reading = start(conn, query, options)
    cursor = chunks_mod.start(conn, query, options, reading.plan,
                              reading.lookups)
    parts = []
    while True:
        chunk, cursor = chunks_mod.next_chunk(conn, reading.plan, cursor, 0)
        if chunk is None:
            return parts
        parts.append(read(conn, reading, chunk))


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
