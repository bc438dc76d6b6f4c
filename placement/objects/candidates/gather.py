"""gather(): what a candidates query can use, read chunk by chunk.

The one way the listing, explain and the reasons of an empty answer
read the database: look up the ids the query names (one statement),
plan (plan.py), then read each chunk of roots (chunks.py) into a
snapshot (fetch.py), in the caller's read (a transaction or not).
"""
import typing

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
    lookups = fetch.fetch_lookups(conn, query)
    plan = plan_mod.plan_for(query, lookups, filtered)
    store = memory.store_for(conn.engine)
    solver_query = plan_mod.solver_query(query, plan)
    if filtered:
        chunks = chunks_mod.chunks(conn, query, options, plan, lookups,
                                   found)
    else:
        chunks = [plan_mod.EVERY_ROOT]
    for chunk in chunks:
        read = fetch.fetch_snapshot(conn, plan, chunk, lookups, store)
        yield Gathered(read.snapshot, read.entries, solver_query,
                       lookups.class_names)
