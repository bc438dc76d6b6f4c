"""Why a candidates query gives the answer it gives: the funnel. Pure.

    explanation = explain(snapshot, query, options)

Over a snapshot of every provider (no filter pushed into SQL), each
request group gets a funnel of *steps* in the solver's order: the
provider checks of ``groups`` (inventory, the capacity rules of
``model.Inventory.meets``, traits, aggregates, in_tree) and, for the
unsuffixed group, the traits its providers must hold between them. A
step reports the providers and the trees (anchor roots) that remain and
how many it removed. A provider *remains* while it can still serve the
group (for the unsuffixed group: one of its classes); a tree remains
while, for the group (each class of the unsuffixed group), one provider
it may use (its own or a sharing one) remains.

Then the cross-group steps: trees where every group found a provider,
root_required, and the walk's own rules (combine), each added to the
ones before: groups together within capacity, one provider per tree
(before 1.29), the unsuffixed group's traits on the providers chosen,
group_policy=isolate, same_subtree. The trees left are exactly those
whose walk gives a candidate; the cut by limit / max_candidates ends.
"""
import collections
import dataclasses
import sys
import typing

from placement import solver
from placement.solver import combine
from placement.solver import groups as groups_mod
from placement.solver import model
from placement.solver import order

PASSED = sys.maxsize
RESOURCE_KINDS = ('inventory',) + model.RULES
# Candidates counted at most, to tell what a limit cut.
COUNT_BOUND = 100000
_EMPTY = frozenset()
_NO_INVENTORY = {}


class Step(typing.NamedTuple):
    """One check. subject: class, trait, tuple of names, or uuid."""

    kind: str
    subject: typing.Any = None
    amount: typing.Optional[int] = None
    tree_level: bool = False


@dataclasses.dataclass
class StepResult:
    """What one step left: providers / trees remaining and removed
    (providers None for a step on trees); most_free: the largest free
    amount among the providers a capacity step looked at.
    """

    step: Step
    trees: int
    trees_removed: int
    providers: typing.Optional[int] = None
    providers_removed: typing.Optional[int] = None
    most_free: typing.Optional[int] = None
    candidates: typing.Optional[int] = None
    note: typing.Optional[int] = None


@dataclasses.dataclass
class GroupFunnel:
    """One group's funnel and, per provider and anchor, where it left.

    fails: {provider id: (step index per track)}; removed: {anchor: step
    index} (PASSED when it serves the group); tracks: the classes of the
    unsuffixed group's tracks, or (None,) for a suffixed group.
    """

    group: model.RequestGroup
    steps: typing.List[Step]
    results: typing.List[StepResult]
    tracks: tuple
    fails: dict
    removed: dict


@dataclasses.dataclass
class Explanation:
    """Everything the command and the log line report."""

    query: model.CandidateQuery
    snapshot: model.Snapshot
    count: int
    total: int
    cap: typing.Optional[int]
    funnels: typing.List[GroupFunnel]
    cross: typing.List[StepResult]
    # {anchor: (group position or None, step index or cross kind)}
    reasons: dict
    candidates: list
    index: typing.Any = None

    @property
    def roots(self):
        return [a for a in self.snapshot.anchors
                if a in self.snapshot.providers]

    @property
    def viable(self):
        return [a for a in self.roots if a not in self.reasons]


def group_steps(group):
    """The steps of one group, in the order they are checked."""
    granular = group.is_granular
    steps = [Step('considered')]
    for kind in RESOURCE_KINDS:
        for rc, amount in group.resources:
            steps.append(Step(kind, rc, amount))
    traits, aggs = group.traits, group.aggregates
    required = [Step('required', name, tree_level=not granular)
                for name in sorted(traits.required)]
    any_of = [Step('any_of', tuple(sorted(names)), tree_level=not granular)
              for names in traits.any_of]
    rest = []
    if traits.forbidden:
        rest.append(Step('forbidden', tuple(sorted(traits.forbidden))))
    if aggs.required:
        rest.append(Step('member_of', tuple(tuple(sorted(e))
                                            for e in aggs.required)))
    if aggs.forbidden:
        rest.append(Step('forbidden_aggregates',
                         tuple(sorted(aggs.forbidden))))
    if group.in_tree:
        rest.append(Step('in_tree', group.in_tree))
    if granular:
        forbidden = rest[:1] if traits.forbidden else []
        return steps + required + forbidden + any_of + rest[len(forbidden):]
    return steps + rest + required + any_of


class _Checker:
    """Provider checks of one group, each verdict reached once per
    distinct inventory dict / trait set (alike providers share them).
    """

    def __init__(self, index, group, steps):
        self.index, self.group, self.steps = index, group, steps
        classes = [rc for rc, _ in group.resources]
        self.tracks = tuple(classes) if not group.is_granular else (None,)
        if not self.tracks:
            self.tracks = (None,)
        self.tree_root = (index.tree_root_of_uuid(group.in_tree)
                          if group.in_tree else None)
        self._by_inventory, self._by_aggs = {}, {}
        self.most_free = {}
        self._agg_steps = [(at, step) for at, step in enumerate(steps)
                           if step.kind in ('member_of',
                                            'forbidden_aggregates')]
        self._in_tree_at = next((at for at, step in enumerate(steps)
                                 if step.kind == 'in_tree'), PASSED)

    def all_fails(self, alike):
        """{provider id: (first failing step index per track)}, PASSED
        where none; one tuple per distinct verdict. ``alike``: the
        providers by what the checks read of them (alike_providers).
        """
        found = dict.fromkeys(self.index.snapshot.providers)
        for (inventory, traits), ids in alike.values():
            found.update(dict.fromkeys(ids, self._fails(inventory, traits)))
        if self._agg_steps or self.tree_root is not None:
            known = self._by_inventory
            for rp_id, fails in found.items():
                other = self._other_fail(rp_id)
                if other != PASSED:
                    found[rp_id] = known.setdefault(
                        (fails, other),
                        tuple(min(f, other) for f in fails))
        return found

    def _fails(self, inventory, traits):
        by_traits = self._first(traits, ('required', 'forbidden', 'any_of'))
        return tuple(min(self._resource_fail(inventory, track), by_traits)
                     for track in self.tracks)

    def _resource_fail(self, inventory, track):
        for at, step in enumerate(self.steps):
            if step.kind not in RESOURCE_KINDS or (
                    track is not None and step.subject != track):
                continue
            inv = inventory.get(step.subject)
            if step.kind == 'inventory':
                if inv is None:
                    return at
                continue
            if not inv.meets(step.kind, step.amount):
                if step.kind == 'capacity':
                    # The largest free amount among those short of it.
                    self.most_free[at] = max(
                        self.most_free.get(at, inv.free), inv.free)
                return at
        return PASSED

    def _first(self, traits, kinds):
        for at, step in enumerate(self.steps):
            if step.kind in kinds and not step.tree_level and not (
                    trait_ok(step, traits)):
                return at
        return PASSED

    def _other_fail(self, rp_id):
        """The first aggregate or in_tree step failed (those come last:
        the in_tree one after the aggregate ones)."""
        index = self.index
        if self._agg_steps:
            mine = index.aggregates_of(rp_id)
            root = (None if self.group.is_granular
                    else index.aggregates_of(index.root_of(rp_id)))
            at = self._by_aggs.get((mine, root))
            if at is None:
                at = self._by_aggs[(mine, root)] = next(
                    (at for at, step in self._agg_steps
                     if not self.aggregates_ok(step, rp_id)), PASSED)
            if at != PASSED:
                return at
        if (self.tree_root is not None
                and index.root_of(rp_id) != self.tree_root):
            return self._in_tree_at
        return PASSED

    def aggregates_ok(self, step, rp_id):
        """member_of of a suffixed group on the provider; of the
        unsuffixed one on the provider or its root (groups module).
        """
        index, aggs = self.index, self.group.aggregates
        mine = index.aggregates_of(rp_id)
        if self.group.is_granular:
            if step.kind == 'forbidden_aggregates':
                return not (aggs.forbidden & mine)
            return all(any_of & mine for any_of in aggs.required)
        root = index.aggregates_of(index.root_of(rp_id))
        if step.kind == 'forbidden_aggregates':
            return not (aggs.forbidden & (mine | root))
        return groups_mod.member_of_rp_or_root(
            model.AggregateFilter(aggs.required), mine, root)


def trait_ok(step, traits):
    if step.kind == 'required':
        return step.subject in traits
    if step.kind == 'forbidden':
        return not (set(step.subject) & traits)
    return bool(set(step.subject) & traits)


def alike_providers(snapshot):
    """{key: ((inventory, traits), [provider ids])}: the providers that
    share one inventory key and one trait set (alike ones do), which
    every provider check of a group reads, grouped once for all groups.
    """
    inventories, all_traits = snapshot.inventories, snapshot.traits
    inventory_keys = snapshot.inventory_keys
    alike = {}
    for rp_id in snapshot.providers:
        inventory = inventories.get(rp_id, _NO_INVENTORY)
        traits = all_traits.get(rp_id, _EMPTY)
        key = (inventory_keys.get(rp_id), traits)
        found = alike.get(key)
        if found is None:
            alike[key] = ((inventory, traits), [rp_id])
        else:
            found[1].append(rp_id)
    return alike


def _pools(index):
    """{anchor: [provider ids it may use]} of every provider."""
    pools = collections.defaultdict(list)
    for rp_id in index.snapshot.providers:
        for anchor in index.anchors_of(rp_id):
            pools[anchor].append(rp_id)
    return pools


def group_funnel(index, group, anchors, pools, alike=None):
    """The GroupFunnel of ``group`` over ``anchors`` (``alike``: the
    snapshot's alike_providers, if the caller has them).
    """
    steps = group_steps(group)
    checker = _Checker(index, group, steps)
    fails = checker.all_fails(alike_providers(index.snapshot)
                              if alike is None else alike)
    removed, cache, by_verdicts = {}, {}, {}
    tree_level = any(step.tree_level for step in steps)
    tracks = range(len(checker.tracks))
    for anchor in anchors:
        pool = pools.get(anchor, ())
        if len(pool) == 1:  # a tree of one provider, nothing shared
            at = min(fails[pool[0]])
        else:
            # Alike trees have equal verdicts: decided once for them.
            verdicts = tuple([fails[p] for p in pool])
            at = by_verdicts.get(verdicts)
            if at is None:
                at = by_verdicts[verdicts] = min(
                    max((found[t] for found in verdicts), default=0)
                    for t in tracks)
        if at == PASSED and tree_level:
            at = _tree_fail(index, steps, pool, fails, cache)
        removed[anchor] = at
    results = _results(steps, checker.tracks, fails, removed,
                       checker.most_free)
    return GroupFunnel(group, steps, results, checker.tracks, fails,
                       removed)


def _tree_fail(index, steps, pool, fails, cache):
    """The unsuffixed group's traits, held between the providers that
    can serve it (the walk checks the chosen ones: see cross steps).
    ``cache``: verdicts by trait set, for trees of one provider.
    """
    if len(pool) == 1:
        traits = index.traits_of(pool[0])
        found = cache.get(traits)
        if found is None:
            found = cache[traits] = _tree_fail(index, steps, pool * 2,
                                               fails, cache)
        return found
    traits = set()
    for rp_id in pool:
        if max(fails[rp_id]) == PASSED:
            traits |= index.traits_of(rp_id)
    for at, step in enumerate(steps):
        if step.tree_level and not trait_ok(step, traits):
            return at
    return PASSED


def _results(steps, tracks, fails, removed, most_free):
    """StepResults. The providers of a step on one class of the
    unsuffixed group are those that can still give that class; of the
    group's other steps, those that can still give one of its classes.
    """
    distinct = collections.Counter(fails.values())
    left_at = collections.Counter()
    track_at = [collections.Counter() for _ in tracks]
    for found, count in distinct.items():
        left_at[max(found)] += count
        for t, at in enumerate(found):
            track_at[t][at] += count
    trees_at = collections.Counter(removed.values())
    providers, trees = len(fails), len(removed)
    per_track = [providers] * len(tracks)
    results = []
    for at, step in enumerate(steps):
        result = StepResult(step, trees - trees_at[at], trees_at[at],
                            most_free=most_free.get(at))
        trees -= trees_at[at]
        for t in range(len(tracks)):
            per_track[t] -= track_at[t][at]
        providers -= left_at[at]
        if step.tree_level:
            pass
        elif step.subject in tracks and step.kind in RESOURCE_KINDS:
            t = tracks.index(step.subject)
            result.providers = per_track[t]
            result.providers_removed = track_at[t][at]
        else:
            result.providers = providers
            result.providers_removed = left_at[at]
        results.append(result)
    return results


# --- across the groups -------------------------------------------------------

def _walk_variants(query, snapshot):
    """[(kind, query)]: the walk's rules added one at a time, each
    query adding one rule to the one before; the last is ``query``.
    """
    unsuffixed = next((g for g in query.groups if not g.is_granular), None)
    collective = bool(unsuffixed and (unsuffixed.traits.required
                                      or unsuffixed.traits.any_of))
    plain_groups = tuple(
        dataclasses.replace(g, traits=model.TraitFilter(
            forbidden=g.traits.forbidden)) if g is unsuffixed else g
        for g in query.groups)
    current = dataclasses.replace(
        query, groups=plain_groups, group_policy=None, same_subtrees=(),
        nested_aware=True)
    variants = []
    if len(query.groups) > 1:
        variants.append(('combined', current))
    if not query.nested_aware and snapshot.has_nested:
        current = dataclasses.replace(current, nested_aware=False)
        variants.append(('one_per_tree', current))
    if collective:
        current = dataclasses.replace(current, groups=query.groups)
        variants.append(('unsuffixed_traits', current))
    granular = sum(1 for g in query.groups if g.is_granular)
    if query.group_policy == 'isolate' and granular > 1:
        current = dataclasses.replace(current, group_policy='isolate')
        variants.append(('isolate', current))
    if query.same_subtrees:
        current = dataclasses.replace(current,
                                      same_subtrees=query.same_subtrees)
        variants.append(('same_subtree', current))
    return variants


def _walk_steps(index, query, funnels, anchors, pools, reasons):
    """Cross steps of the walk's rules; records each removed anchor.

    A tree that passes the last variant (the query itself) passes every
    one before it, which asks less: only the others are walked again,
    to find the first rule they break.
    """
    variants = [(kind, _Exists(index, variant, funnels, pools))
                for kind, variant in _walk_variants(query, index.snapshot)]
    if not variants:
        return anchors, []
    full = variants[-1][1]
    failing = [a for a in anchors if not full(a)]
    first = {}
    for kind, exists in variants[:-1]:
        for anchor in failing:
            if anchor in first:
                continue
            if kind == 'unsuffixed_traits' and _one_contributor(
                    query, exists.matches(anchor)):
                continue  # the group's own check was exact
            if not exists(anchor):
                first[anchor] = kind
    results, left = [], len(anchors)
    for kind, _ in variants:
        removed = [a for a in failing if first.get(a, variants[-1][0])
                   == kind]
        for anchor in removed:
            reasons[anchor] = (None, kind)
        left -= len(removed)
        results.append(StepResult(Step(kind), left, len(removed)))
    gone = set(failing)
    return [a for a in anchors if a not in gone], results


class _Exists:
    """Whether one anchor's walk under ``query`` gives a candidate;
    decided once per walk signature (alike trees, see combine.Memo).
    """

    def __init__(self, index, query, funnels, pools):
        self.plan = combine.Plan(index, query)
        self.memo = combine.Memo(self.plan)
        self.funnels, self.pools = funnels, pools
        self.verdicts = {}

    def matches(self, anchor):
        return _matches(self.funnels, self.pools[anchor])

    def __call__(self, anchor):
        slots = self.plan.slots_for(anchor, self.matches(anchor))
        _, key = self.memo.signature(slots)
        found = self.verdicts.get(key)
        if found is None:
            found = self.verdicts[key] = next(
                combine.walk_anchor(self.plan, slots), None) is not None
        return found


def _matches(funnels, pool):
    """Per group, what groups.granular_matches / unsuffixed_slots give
    one anchor (the providers of its pool that pass), as slots_for
    reads them: {anchor: ...} is not needed for a single anchor.
    """
    found = []
    for funnel in funnels:
        fails = funnel.fails
        per_track = [[p for p in pool if fails[p][t] == PASSED]
                     for t in range(len(funnel.tracks))]
        found.append(_Only(per_track[0] if funnel.group.is_granular
                           else per_track))
    return found


class _Only:
    """A mapping giving the same value for any anchor."""

    def __init__(self, value):
        self.value = value

    def __getitem__(self, anchor):
        return self.value


def _one_contributor(query, matches):
    for group, found in zip(query.groups, matches):
        if not group.is_granular:
            return len({p for options in found.value for p in options}) == 1
    return True


def _served(funnels, anchors, reasons):
    """Anchors every group serves; the others get their first reason
    (in group order)."""
    kept = []
    for anchor in anchors:
        for position, funnel in enumerate(funnels):
            at = funnel.removed[anchor]
            if at != PASSED:
                reasons[anchor] = (position, at)
                break
        else:
            kept.append(anchor)
    return kept


def _sharing_note(index, anchors):
    """How many of ``anchors`` a sharing provider of another tree serves."""
    snapshot = index.snapshot
    reached = set()
    for rp_id in snapshot.sharing:
        if rp_id in snapshot.providers:
            reached.update(a for a in index.anchors_of(rp_id)
                           if a != index.root_of(rp_id))
    return len(reached.intersection(anchors))


def explain(snapshot, query, options=model.SolverOptions(), solved=None):
    """The Explanation of ``query`` over ``snapshot`` (every provider).

    solved: the candidates the solver found for ``query`` without its
    cap, when the caller has them already (an empty answer's: none);
    otherwise they are found again here, up to COUNT_BOUND.
    """
    index = groups_mod.Index(snapshot)
    anchors = [a for a in snapshot.anchors if a in snapshot.providers]
    pools = _pools(index)
    alike = alike_providers(snapshot)
    funnels = [group_funnel(index, group, anchors, pools, alike)
               for group in query.groups]
    reasons = {}
    served = _served(funnels, anchors, reasons)
    cross = [StepResult(Step('all_groups'), len(served),
                        len(anchors) - len(served))]
    if query.root_traits:
        kept = [a for a in served
                if query.root_traits.is_satisfied_by(index.traits_of(a))]
        for anchor in set(served) - set(kept):
            reasons[anchor] = (None, 'root_required')
        cross.append(StepResult(Step('root_required'), len(kept),
                                len(served) - len(kept)))
        served = kept
    served, walked = _walk_steps(index, query, funnels, served, pools,
                                 reasons)
    cross += walked
    if snapshot.sharing:
        cross.append(StepResult(Step('sharing'), len(served), 0,
                                note=_sharing_note(index, served)))
    cap = order.cap(query.limit, options.max_candidates)
    plain = dataclasses.replace(options, rng=None)
    bound = COUNT_BOUND if cap is None else max(cap, COUNT_BOUND)
    found = (solve_all(snapshot, query, plain, bound) if solved is None
             else list(solved))
    count = len(found) if cap is None else min(cap, len(found))
    cross.append(StepResult(Step('limit', cap), len(served), 0,
                            candidates=count, note=len(found)))
    return Explanation(query, snapshot, count, len(found), cap, funnels,
                       cross, reasons, found[:count], index)


def solve_all(snapshot, query, options, bound):
    """Up to ``bound`` candidates, without the query's limit."""
    unlimited = dataclasses.replace(query, limit=None)
    return solver.solve(snapshot, unlimited,
                        dataclasses.replace(options, max_candidates=-1),
                        count=bound)
