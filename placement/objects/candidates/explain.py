"""Why a candidates query gives the answer it gives, over the stored data.

Both operations read (gather.py) one snapshot of *every* provider,
with no filter pushed into SQL, in one read transaction; the pure
``solver.explain`` then applies every check itself, counting what each
removes. ``explain`` serves ``placement-manage allocation_candidates
explain``; ``why_empty`` gives the reasons of an empty answer (the
API's log line, and what a metric may count). Unknown classes and
traits raise as list_candidates does.
"""
import dataclasses
import typing

from placement.db import api as db_api
from placement.objects.candidates import gather as gather_mod
from placement.objects.candidates import plan as plan_mod
from placement.solver import explain as explain_mod
from placement.solver import model
from placement.solver import reasons as reasons_mod


@dataclasses.dataclass
class Result:
    """An Explanation, and the providers asked about (provider_report
    dicts, or None for an unknown uuid), in the order asked."""

    explanation: explain_mod.Explanation
    providers: list


@dataclasses.dataclass(frozen=True)
class EmptyAnswer:
    """Why a query has no candidate.

    summary: one line, as the command's summary says it (the API logs
    it); reasons: ((step kind, trees it removed), ...), most first. A
    step kind is one of solver.explain's (a group's check: 'inventory',
    'capacity', 'min_unit', 'max_unit', 'step_size', 'required',
    'any_of', 'forbidden', 'member_of', 'forbidden_aggregates',
    'in_tree'; across groups: 'all_groups', 'root_required', 'combined',
    'one_per_tree', 'unsuffixed_traits', 'isolate', 'same_subtree'):
    a small fixed set, fit for a metric's label.
    """

    summary: str
    reasons: typing.Tuple[typing.Tuple[str, int], ...]


def _gather_everything(conn, query, options):
    """What gather reads of every provider for ``query``, in ``conn``."""
    # Without the listing's order of name checks (plan.check_names): an
    # explanation names the unknown names, whatever a group before them
    # would have matched.
    query = dataclasses.replace(query, name_checks=())
    reading = gather_mod.start(conn, query, options, filtered=False)
    return gather_mod.read(conn, reading, plan_mod.EVERY_ROOT)


@db_api.operation
def explain(ctx, query: model.CandidateQuery,
            options: model.SolverOptions, provider_uuids=()) -> Result:
    """The Result of ``query`` over the database of ``ctx`` (a context or
    a db_api.Database); one read transaction.
    """
    with db_api.reader(ctx) as conn:
        part = _gather_everything(conn, query, options)
    explanation = explain_mod.explain(part.snapshot, query, options)
    by_uuid = {p.uuid: p.id for p in part.snapshot.providers.values()}
    found = []
    for rp_uuid in provider_uuids:
        rp_id = by_uuid.get(rp_uuid)
        if rp_id is None:
            found.append(None)
            continue
        raw = _raw_inventory(part.entries.get(rp_id), part.class_names)
        found.append(reasons_mod.provider_report(explanation, rp_id, raw))
    return Result(explanation, found)


@db_api.operation
def why_empty(ctx, query: model.CandidateQuery,
              options: model.SolverOptions) -> EmptyAnswer:
    """The EmptyAnswer of ``query``, for a caller whose answer to it was
    empty (the solver is not run again); one read transaction. Its
    summary equals ``explain``'s on the same data.
    """
    with db_api.reader(ctx) as conn:
        part = _gather_everything(conn, query, options)
    explanation = explain_mod.explain(part.snapshot, query, options,
                                      solved=())
    return EmptyAnswer(reasons_mod.summary(explanation),
                       _reason_kinds(explanation))


def _reason_kinds(explanation):
    """((step kind, trees removed), ...), most first, then by kind."""
    counts = reasons_mod.reason_kinds(explanation)
    return tuple(sorted(counts.items(), key=lambda item: (-item[1],
                                                          item[0])))


def _raw_inventory(entry, class_names):
    """{class: (total, reserved, allocation_ratio)} of one provider."""
    if entry is None:
        return {}
    return {class_names[row[0]]: (row[1], row[2], row[3])
            for row in entry.inventories}
