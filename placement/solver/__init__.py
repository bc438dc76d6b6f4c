"""The allocation-candidate solver: pure, in-memory, no I/O.

Imports only the standard library and its own modules: no SQL, WebOb,
oslo or placement modules outside ``placement.solver``.

    candidates = solve(snapshot, query, options)
"""
from placement.solver import combine
from placement.solver import groups
from placement.solver import model
from placement.solver import order
from placement.solver import single


def match_groups(index, query):
    """Per group (query order): {anchor: matches}; None if a group has
    no match anywhere (then there is no candidate at all).
    """
    per_group = []
    for group in query.groups:
        if group.is_granular:
            matches = groups.granular_matches(index, group)
        else:
            matches = groups.unsuffixed_slots(index, group)
        if not matches:
            return None
        per_group.append(matches)
    return per_group


def viable_anchors(index, query, per_group):
    """The snapshot's anchors that every group can serve and whose root
    meets root_required, in snapshot order.
    """
    anchors = []
    for anchor in index.snapshot.anchors:
        if anchor not in index.snapshot.providers:
            continue
        if not all(anchor in matches for matches in per_group):
            continue
        if query.root_traits and not query.root_traits.is_satisfied_by(
                index.traits_of(anchor)):
            continue
        anchors.append(anchor)
    return anchors


def solve(snapshot, query, options=model.SolverOptions(), seen=None,
          count=None):
    """Return the candidates of ``query`` over ``snapshot`` as a list.

    Generation stops after ``count`` new candidates (default: the cap from
    limit and max_candidates). ``seen`` (a set) carries de-duplication
    across successive snapshots of one request.
    """
    if count is None:
        count = order.cap(query.limit, options.max_candidates)
    seen = set() if seen is None else seen
    # Uncapped, a randomized answer is every candidate in a uniformly
    # random order (order.shuffled, at the end): the order they are made
    # in does not matter, and they are made unshuffled, where alike
    # trees' walks are replayed (combine.Memo) and render alike.
    rng = options.rng if count is not None else None
    if single.applies(snapshot, query):
        # One candidate at most per anchor: both strategies give the
        # anchors' order.
        anchors = order.anchor_order(
            (a for a in snapshot.anchors if a in snapshot.providers), rng)
        found = single.stream(snapshot, query, anchors)
    else:
        index = groups.Index(snapshot)
        per_group = match_groups(index, query)
        if per_group is None:
            return []
        plan = combine.Plan(index, query)
        memo = combine.Memo(plan)
        anchors = order.anchor_order(
            viable_anchors(index, query, per_group), rng)

        def generator_for(anchor):
            return memo.walk(plan.slots_for(anchor, per_group, rng))

        found = order.stream(anchors, generator_for, options.strategy)
    # Without sharing providers every candidate lies in its anchor's tree
    # alone, and one anchor's walk never gives the same one twice: then
    # nothing can repeat, within this snapshot or across a request's
    # snapshots (whose anchors differ), and none need be hashed.
    candidates = order.take_unique(found, count, seen,
                                   unique=not snapshot.sharing)
    if options.rng is not None and count is None:
        candidates = order.shuffled(candidates, options.rng)
    return candidates
