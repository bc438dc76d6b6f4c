"""Explaining a candidates query over the stored data (issue 14).

One read transaction gathers a snapshot of *every* provider, with the
traits and the aggregates the query names, through the same reads as
GET /allocation_candidates (``allocation_candidate.gather``) but with no
filter pushed into SQL: the pure ``solver.explain`` then applies every
check itself, counting what each removes, and runs the solver for the
count. Unknown classes and traits raise as list_candidates does.

The API's log line of an empty answer (summary_of) starts from what the
request read and reads only the rest, in one more transaction.
"""
import dataclasses

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import allocation_candidate as ac_obj
from placement.objects import gc_pause
from placement.objects import candidate_sql as sql
from placement.objects import provider_state
from placement.solver import explain as explain_mod
from placement.solver import model
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
    with gc_pause.no_cyclic_gc(), db_api.reader(ctx) as conn:
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


@db_api.operation
def summary_of(ctx, query, gathered, options):
    """The one-line summary of an empty answer to ``query`` (the API's
    log line), from what the request read (``gathered``, the result's
    ac_obj.Gathered) and, in one read transaction, the rest: the
    providers outside its scope with their usage (one statement), their
    inventories and traits (provider_state: none when remembered) and,
    if the query names aggregates or some provider shares, the links the
    request did not read (one statement). The request found no
    candidate, so the solver is not run again. Equal to the summary of
    ``explain`` on the same data.
    """
    return why_empty(ctx, query, gathered, options).summary


@dataclasses.dataclass(frozen=True)
class WhyEmpty:
    """Why an answer is empty: the one-line summary (summary_of) and
    {step kind: trees it removed} (reasons.reason_kinds)."""
    summary: str
    reasons: dict


@db_api.operation
def why_empty(ctx, query, gathered, options) -> WhyEmpty:
    """The WhyEmpty of an empty answer; reads as summary_of does."""
    with gc_pause.no_cyclic_gc():
        with db_api.reader(ctx) as conn:
            snapshot = _completed_snapshot(conn, query, gathered)
        explanation = explain_mod.explain(snapshot, query, options,
                                          solved=())
        return WhyEmpty(reasons.summary(explanation),
                        reasons.reason_kinds(explanation))


def _completed_snapshot(conn, query, gathered):
    """The Snapshot _full_snapshot reads, from ``gathered`` and the
    providers outside the scope the request read.
    """
    lookups = gathered.lookups
    flat = lookups.is_flat
    scope = ac_obj._scope_of(query, lookups, gathered.covered)
    outside = _outside_scope(scope.where, scope.binds, 'outside')
    providers, entries, usage = ac_obj._fetch_providers(
        conn, outside, lookups.store, flat)
    inventories = ac_obj._inventories(entries, usage, lookups.class_names)
    providers.update(gathered.providers)
    entries.update(gathered.entries)
    inventories.update(gathered.inventories)
    agg_ids = lookups.link_ids()
    # The request read the links of its scope, but none when flat.
    aggregates = ac_obj._fetch_named_links(
        conn, models.resource_provider_aggregates,
        models.resource_provider_aggregates.c.aggregate_id, agg_ids,
        _outside_scope(sa.true(), sql.Binds(), 'all') if flat else outside)
    if not flat:
        aggregates.update(gathered.aggregates)
    by_id = {value: key for key, value in agg_ids.items()}
    return model.Snapshot(
        providers=providers, inventories=inventories,
        traits={rp_id: entry.traits for rp_id, entry in entries.items()
                if entry.traits},
        aggregates=aggregates,
        sharing=lookups.sharing_ids & set(providers),
        sharing_anchors=ac_obj._sharing_anchors(providers, aggregates,
                                                lookups, by_id),
        anchors=ac_obj._anchors_of_chunk(ac_obj._Roots(), providers),
        has_nested=lookups.has_nested)


def _outside_scope(where, binds, tag):
    """An ac_obj._Scope of the providers *not* in ``where`` (a scope's
    term) or, tagged 'all', of every provider. CASE, not NOT: a term
    that is NULL for a provider (a NULL root id) leaves it out of the
    scope, so it is outside.
    """
    copy = sql.Binds()
    copy.values = dict(binds.values)
    copy.trace = list(binds.trace) + [tag]
    if tag == 'outside':
        where = sa.case((where, 0), else_=1) == 1
    return ac_obj._Scope(where, copy)


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
