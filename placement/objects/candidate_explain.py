"""Explaining a candidates query over the stored data (issue 14).

One read transaction gathers a snapshot of *every* provider, with the
traits and the aggregates the query names, through the same reads as
GET /allocation_candidates (``allocation_candidate.gather``) but with no
filter pushed into SQL: the pure ``solver.explain`` then applies every
check itself, counting what each removes, and runs the solver for the
count. Unknown classes and traits raise as list_candidates does.
"""
import dataclasses
import time

from placement.db import api as db_api
from placement.objects import allocation_candidate as ac_obj
from placement.objects import provider_state
from placement.solver import explain as explain_mod
from placement.solver import reasons


@dataclasses.dataclass
class Result:
    """An Explanation, and the providers asked about (provider_report
    dicts, or None for an unknown uuid), in the order asked."""

    explanation: explain_mod.Explanation
    providers: list


@db_api.operation
def explain(ctx, query, options, provider_uuids=()):
    """The Result of ``query`` over the database of ``ctx`` (a context or
    a db_api.Database); one read transaction.
    """
    db = ctx if isinstance(ctx, db_api.Database) else ctx.db
    store = provider_state.store_for(db)
    with ac_obj.no_cyclic_gc(), db_api.reader(ctx) as conn:
        lookups = ac_obj._fetch_lookups(conn, query, store)
        snapshot, entries = _full_snapshot(conn, query, lookups)
    explanation = explain_mod.explain(snapshot, query, options)
    by_uuid = {p.uuid: p.id for p in snapshot.providers.values()}
    found = []
    for rp_uuid in provider_uuids:
        rp_id = by_uuid.get(rp_uuid)
        if rp_id is None:
            found.append(None)
            continue
        raw = _raw_inventory(entries.get(rp_id), lookups.class_names)
        found.append(reasons.provider_report(explanation, rp_id, raw))
    return Result(explanation, found)


# The log line of an empty answer is kept this long per query: a
# scheduler retrying the same request in a burst pays for one
# explanation (about half a second at 20,000 providers), not one each.
SUMMARY_TTL = 10.0
MAX_SUMMARIES = 256
_SUMMARIES = {}


def summary(ctx, query, options, now=time.monotonic):
    """The one-line summary of ``query`` (the log line of an empty
    answer), at most SUMMARY_TTL seconds old.
    """
    key = (query, options.max_candidates)
    found = _SUMMARIES.get(key)
    if found is not None and now() - found[0] < SUMMARY_TTL:
        return found[1]
    text = reasons.summary(explain(ctx, query, options).explanation)
    if len(_SUMMARIES) >= MAX_SUMMARIES:
        _SUMMARIES.clear()
    _SUMMARIES[key] = (now(), text)
    return text


def _full_snapshot(conn, query, lookups):
    """(Snapshot, entries) of every provider: the query without its
    filters scopes the reads to everything, and lookups that are never
    flat make gather read traits and the named aggregates too.
    """
    bare = ac_obj.without_filters(query)
    bare = dataclasses.replace(bare, groups=tuple(
        dataclasses.replace(g, in_tree=None) for g in bare.groups))
    unflat = dataclasses.replace(lookups, has_nested=True)
    snapshot, entries = ac_obj.gather(conn, bare, unflat)
    return dataclasses.replace(snapshot,
                               has_nested=lookups.has_nested), entries


def _raw_inventory(entry, class_names):
    """{class: (total, reserved, allocation_ratio)} of one provider."""
    if entry is None:
        return {}
    return {class_names[row[0]]: (row[1], row[2], row[3])
            for row in entry.inventories}
