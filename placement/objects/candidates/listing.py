"""GET /allocation_candidates as an operation: gather, solve, summarise.

One read: one loop (_search) asks chunks.next_chunk for chunk after
chunk of roots, reads each (gather.read), and runs the solver over it
until the cap (limit, max_allocation_candidates) is reached. The
summaries come from the same reads, in provider id order.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement import exception
from placement.objects.candidates import chunks as chunks_mod
from placement.objects.candidates import gather as gather_mod
from placement.objects.candidates import plan as plan_mod
from placement import solver
from placement.solver import model
from placement.solver import order
from placement.solver import summaries as summaries_mod


@dataclasses.dataclass(frozen=True)
class CandidateResult:
    """What GET /allocation_candidates renders.

    candidates: in the order clients act on (the solver's: anchors by
    root id, or at random when randomizing); uuids: {provider id: uuid}
    of every provider read; summaries: one ProviderSummary per provider
    to list, in provider id order.
    """

    candidates: typing.Tuple[model.Candidate, ...]
    uuids: typing.Mapping[int, str]
    summaries: typing.Tuple[summaries_mod.ProviderSummary, ...]


# The answer of a query that matches nothing.
_NOTHING = CandidateResult((), {}, ())


@dataclasses.dataclass
class _Seen:
    """What the chunks read, merged."""

    providers: dict = dataclasses.field(default_factory=dict)
    inventories: dict = dataclasses.field(default_factory=dict)
    inventory_keys: dict = dataclasses.field(default_factory=dict)
    entries: dict = dataclasses.field(default_factory=dict)

    def add(self, part):
        self.providers.update(part.snapshot.providers)
        self.inventories.update(part.snapshot.inventories)
        self.inventory_keys.update(part.snapshot.inventory_keys)
        self.entries.update(part.entries)


@db_api.operation
def list_candidates(ctx, query: model.CandidateQuery,
                    options: model.SolverOptions,
                    summary_classes_all: bool = True,
                    with_traits: bool = True) -> CandidateResult:
    """Find the candidates of ``query``; one read.

    summary_classes_all: the summaries list every class of a provider
    (else only the classes asked for); with_traits: they list traits.
    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    seen = _Seen()
    # Each statement may read a snapshot of its own (as PostgreSQL's READ
    # COMMITTED gives anyway): the reads are written for it (a class
    # newer than the lookups is not listed, memory.py's generations, a
    # chunk's bounds are ids), and then no transaction is opened or
    # ended around them (db.api.reader): a round trip fewer on MariaDB,
    # two on PostgreSQL.
    with db_api.reader(ctx, snapshot=False) as conn:
        try:
            found = _search(conn, query, options, seen)
        except plan_mod.NothingMatches:
            return _NOTHING
        except (exception.ResourceClassNotFound,
                exception.TraitNotFound) as exc:
            if not (_no_root_qualifies(conn, query.root_traits)
                    or _one_matches_nothing(
                        conn, query, options,
                        getattr(exc, 'groups_before', ()))):
                raise
            return _NOTHING
    uuids = {rp_id: p.uuid for rp_id, p in seen.providers.items()}
    summaries = _summaries(found, seen, uuids, query.nested_aware,
                           with_traits)
    if not summary_classes_all:
        summaries = [summaries_mod.restrict_classes(s, query.resource_classes)
                     for s in summaries]
    return CandidateResult(tuple(found), uuids, tuple(summaries))


def _search(conn, query, options, seen) -> list:
    """The candidates of ``query`` up to its cap (limit,
    max_allocation_candidates): the one loop of a request's reads. Each
    chunk of roots is chosen (chunks.next_chunk) given the candidates
    found so far, read (gather.read), solved, and added to ``seen``."""
    cap = order.cap(query.limit, options.max_candidates)
    reading = gather_mod.start(conn, query, options)
    cursor = chunks_mod.start(conn, query, options, reading.plan,
                              reading.lookups)
    found, dedup = [], set()
    while cap is None or len(found) < cap:
        chunk, cursor = chunks_mod.next_chunk(conn, reading.plan, cursor,
                                              len(found))
        if chunk is None:
            break
        part = gather_mod.read(conn, reading, chunk)
        count = None if cap is None else cap - len(found)
        found += solver.solve(part.snapshot, part.solver_query, options,
                              dedup, count)
        seen.add(part)
    return found


def _one_matches_nothing(conn, query, options, suffixes) -> bool:
    """Whether one of the groups ``suffixes`` of ``query``, each asked
    alone, has no candidate: the reference service searches group by
    group, and answers empty at the first group that matches nothing,
    before it reads a later group's unknown name."""
    by_suffix = {group.suffix: group for group in query.groups}
    for suffix in suffixes:
        group = by_suffix[suffix]
        if not group.resources:
            continue
        alone = model.CandidateQuery(groups=(group,), limit=1,
                                     root_traits=query.root_traits,
                                     nested_aware=query.nested_aware)
        if not _search(conn, alone, options, _Seen()):
            return True
    return False


def _no_root_qualifies(conn, root_traits) -> bool:
    """Whether no root has the traits of root_required (all of the
    required, none of the forbidden), each of them a known trait: the
    reference service then answers empty before it reads the groups'
    names. Asked only when a group names an unknown class or trait."""
    names = set(root_traits.required) | set(root_traits.forbidden)
    if not names:
        return False
    traits = models.traits
    ids = dict(conn.execute(sa.select(traits.c.name, traits.c.id).where(
        traits.c.name.in_(sorted(names)))).all())
    if len(ids) < len(names):
        return False
    rp, rpt = models.resource_providers, models.resource_provider_traits

    def has(name):
        return sa.exists().where(rpt.c.resource_provider_id == rp.c.id,
                                 rpt.c.trait_id == ids[name])
    stmt = sa.select(rp.c.id).where(
        rp.c.id == rp.c.root_provider_id,
        *[has(name) for name in sorted(root_traits.required)],
        *[~has(name) for name in sorted(root_traits.forbidden)]).limit(1)
    return conn.execute(stmt).first() is None


def _summaries(candidates, seen, uuids, nested_aware, with_traits):
    """ProviderSummary per provider in the candidates' scope
    (summaries.scope), in provider id order; ``uuids``: id -> uuid of
    every provider read."""
    providers, inventories = seen.providers, seen.inventories
    root_of = {rp_id: p.root_id for rp_id, p in providers.items()}
    scope = summaries_mod.scope(candidates, root_of, nested_aware)
    if scope.root_ids:
        ids = sorted(rp_id for rp_id, root_id in root_of.items()
                     if root_id in scope.root_ids)
    else:
        ids = sorted(scope.provider_ids)
    no_inventory, empty = {}, ()
    new, summary = tuple.__new__, summaries_mod.ProviderSummary
    uuid_of, entries = uuids.get, seen.entries
    key_of = seen.inventory_keys.get
    # Providers sharing an inventory key (fetch: unique in the process;
    # 0 for none) share their summary's resources and its key too (the
    # renderer builds each once).
    resources_of = {}
    found = []
    for rp_id in ids:
        rp = providers[rp_id]
        key = key_of(rp_id, 0)
        resources = resources_of.get(key)
        if resources is None:
            resources = resources_of[key] = summaries_mod.Resources({
                rc: (inv.capacity, inv.used) for rc, inv in
                inventories.get(rp_id, no_inventory).items()}, key)
        found.append(new(summary, (
            rp_id, rp.uuid, uuid_of(rp.parent_id),
            uuid_of(rp.root_id) or rp.uuid, resources,
            entries[rp_id].listed_traits if with_traits else empty)))
    return found
