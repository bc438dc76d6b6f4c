"""Property tests of the explanation (solver.explain) on generated forests.

- its count is the solver's; the trees it keeps are exactly those whose
  walk gives a candidate (the solver asked about each root alone);
- an empty answer always names a step that removed something;
- every tree without a candidate gets a reason, and relaxing exactly the
  reason named (more inventory, the trait added, the aggregate joined,
  the query rule dropped), again and again, makes it give a candidate;
- every provider in no candidate (a child, a grandchild, a sharing
  provider, a root) gets, per group, the first check it fails, and
  relaxing exactly that check on that provider, again and again, makes
  it serve the group: the group alone then has a candidate that uses it.

What does not hold for a provider, and is not claimed: that passing a
group's checks puts it in a candidate of the whole query. Its tree may
fail another group or a rule across groups (the tree's reason says
which), and a tree that gives candidates may never pick it: its
capacity taken by another group, group_policy=isolate, same_subtree, or
the unsuffixed group's required traits, which the walk checks on the
providers it chooses together (a tree-level step, never a provider's).
That last one is why the unsuffixed group is asked alone without its
required and any-of traits. Nor can a provider ever pass a suffixed
group whose own trait filters contradict each other (a trait both
required and forbidden, or every trait of an any-of set forbidden): no
provider passes it, and relaxing only alternates between the two.
"""
import dataclasses
import unittest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement import solver
from placement.solver import explain
from placement.solver import groups
from placement.solver import model
from placement.solver import reasons
from placement.tests.unit.solver import strategies

EXAMPLES = settings(max_examples=100, deadline=None)
MAX_RELAXATIONS = 40


@st.composite
def problems(draw):
    snapshot = draw(strategies.forests())
    return snapshot, draw(strategies.queries(snapshot))


def has_candidate(snapshot, query, root):
    """The solver's own verdict on one root's tree."""
    alone = dataclasses.replace(snapshot, anchors=(root,))
    return bool(solver.solve(alone, dataclasses.replace(query, limit=None),
                             count=1))


class TestInventoryRules(unittest.TestCase):

    @given(st.integers(1, 6), st.integers(0, 6), st.integers(1, 3),
           st.integers(1, 6), st.integers(1, 3), st.integers(1, 8))
    def test_fits_is_every_rule(self, cap, used, low, high, step, amount):
        inv = model.Inventory(cap, used, low, high, step)
        self.assertEqual(inv.fits(amount),
                         all(inv.meets(rule, amount) for rule in model.RULES))


class TestExplanation(unittest.TestCase):

    @EXAMPLES
    @given(problems(), st.sampled_from((None, 1, 3)))
    def test_count_and_trees_are_the_solvers(self, problem, limit):
        snapshot, query = problem
        query = dataclasses.replace(query, limit=limit)
        found = explain.explain(snapshot, query)
        self.assertEqual(len(solver.solve(snapshot, query)), found.count)
        expected = [a for a in snapshot.anchors
                    if has_candidate(snapshot, query, a)]
        self.assertEqual(expected, found.viable)
        if found.count == 0:
            named = [r for f in found.funnels for r in f.results
                     if r.trees_removed]
            named += [r for r in found.cross
                      if r.trees_removed and r.step.kind != 'all_groups']
            self.assertTrue(named)
            self.assertNotIn('can serve', reasons.summary(found))

    @EXAMPLES
    @given(problems())
    def test_group_verdicts_are_the_solvers(self, problem):
        snapshot, query = problem
        found = explain.explain(snapshot, query)
        index = groups.Index(snapshot)
        for funnel in found.funnels:
            kept = {a for a, at in funnel.removed.items()
                    if at == explain.PASSED}
            if funnel.group.is_granular:
                matches = groups.granular_matches(index, funnel.group)
                self.assertEqual(set(matches) & set(snapshot.anchors), kept)
            else:
                matches = groups.unsuffixed_slots(index, funnel.group)
                # The group's traits are checked over its providers here
                # and over the chosen ones in the walk.
                self.assertLessEqual(kept, set(matches))

    @EXAMPLES
    @given(problems())
    def test_relaxing_the_reason_gives_a_candidate(self, problem):
        snapshot, query = problem
        found = explain.explain(snapshot, query)
        for root in found.roots:
            if root in found.viable:
                continue
            self._relax_until_served(snapshot, query, root)

    def _relax_until_served(self, snapshot, query, root):
        relaxed = {}
        for _ in range(MAX_RELAXATIONS):
            found = explain.explain(snapshot, query)
            reason = found.reasons.get(root)
            if reason is None:
                self.assertTrue(has_candidate(snapshot, query, root))
                return
            # Every reason has words and a provider report.
            self.assertTrue(reasons.tree_reason(found, *reason))
            report = reasons.provider_report(found, root)
            self.assertEqual('removed', report['tree']['result'])
            # A trait both required and forbidden of one provider (by two
            # groups, or a group and root_required) comes back each time
            # the data gives way: then the query does.
            position, at = reason
            key = (position, at if position is None
                   else found.funnels[position].steps[at])
            relaxed[key] = relaxed.get(key, 0) + 1
            if relaxed[key] > 2:
                query = drop_from_query(found, query, reason)
            else:
                snapshot, query = relax(found, snapshot, query, root,
                                        reason)
        self.fail('still no candidate for %s after %d relaxations'
                  % (root, MAX_RELAXATIONS))

    @EXAMPLES
    @given(problems())
    def test_relaxing_a_providers_reason_lets_it_serve(self, problem):
        snapshot, query = problem
        unlimited = dataclasses.replace(query, limit=None)
        used = {rp_id for c in solver.solve(snapshot, unlimited)
                for rp_id in c.used_ids()}
        for rp_id in snapshot.providers:
            if rp_id in used:
                continue
            for position, group in enumerate(query.groups):
                if contradicts_itself(group):
                    fails = explain.explain(snapshot, query).funnels[
                        position].fails
                    self.assertNotIn(explain.PASSED, fails[rp_id])
                    continue
                self._relax_provider_until_it_serves(
                    snapshot, query, rp_id, position)

    def _relax_provider_until_it_serves(self, snapshot, query, rp_id,
                                        position):
        for _ in range(MAX_RELAXATIONS):
            found = explain.explain(snapshot, query)
            funnel = found.funnels[position]
            checks = reasons.provider_report(
                found, rp_id)['groups'][position]['checks']
            failing = [t for t, check in enumerate(checks)
                       if check['result'] == 'fails']
            if not failing:
                self.assertTrue(serves_alone(snapshot, query, position,
                                             rp_id))
                return
            for track in failing:
                step = funnel.steps[funnel.fails[rp_id][track]]
                # The report names the check it fails, with words.
                self.assertEqual(step.kind, checks[track]['step'])
                self.assertTrue(checks[track]['text'])
                snapshot, query = relax_on_provider(
                    snapshot, query, position, step, rp_id)
        self.fail('provider %s still fails group %d after %d relaxations'
                  % (rp_id, position, MAX_RELAXATIONS))


def contradicts_itself(group):
    """A suffixed group that no provider can pass, whatever its traits."""
    traits = group.traits
    return group.is_granular and bool(
        traits.required & traits.forbidden
        or any(names <= traits.forbidden for names in traits.any_of))


def serves_alone(snapshot, query, position, rp_id):
    """Whether the group at ``position``, asked alone, has a candidate
    using ``rp_id``; the unsuffixed group without its tree-level traits
    (see the module's docstring), a resourceless group in a
    same_subtree of its own, as the grammar wants.
    """
    group = query.groups[position]
    if not group.is_granular:
        group = dataclasses.replace(group, traits=model.TraitFilter(
            forbidden=group.traits.forbidden))
    alone = dataclasses.replace(
        query, groups=(group,), group_policy='none', limit=None,
        same_subtrees=() if group.resources else ((group.suffix,),),
        root_traits=model.TraitFilter(), nested_aware=True)
    return any(rp_id in c.used_ids() for c in solver.solve(snapshot, alone))


def relax_on_provider(snapshot, query, position, step, rp_id):
    """(snapshot, query) with the failed ``step`` of the group at
    ``position`` lifted for ``rp_id``: on the provider, or for in_tree
    (a provider cannot move to another tree) in the query.
    """
    group = query.groups[position]
    if step.kind == 'in_tree':
        groups_ = list(query.groups)
        groups_[position] = dataclasses.replace(group, in_tree=None)
        return snapshot, dataclasses.replace(query, groups=tuple(groups_))
    edit = _Edit(snapshot)
    _relax_provider(edit, group, step, rp_id)
    return edit.snapshot(), query


# --- relaxing one reason ----------------------------------------------------

def relax(found, snapshot, query, root, reason):
    """(snapshot, query) with exactly the named reason lifted."""
    position, at = reason
    edit = _Edit(snapshot)
    pool = [p for p in snapshot.providers
            if root in found.index.anchors_of(p)]
    if position is None:
        return _relax_cross(found, edit, query, root, at, pool)
    funnel = found.funnels[position]
    step = funnel.steps[at]
    if step.kind == 'in_tree':
        groups_ = list(query.groups)
        groups_[position] = dataclasses.replace(funnel.group, in_tree=None)
        return snapshot, dataclasses.replace(query, groups=tuple(groups_))
    if step.tree_level:
        for rp_id in _contributors(funnel, pool):
            edit.add_trait(rp_id, _one_trait(step.subject))
        return edit.snapshot(), query
    # The provider of the pool that got furthest on the failing track.
    track = next(t for t in range(len(funnel.tracks))
                 if max(funnel.fails[p][t] for p in pool) == at)
    rp_id = next(p for p in pool if funnel.fails[p][track] == at)
    _relax_provider(edit, funnel.group, step, rp_id)
    return edit.snapshot(), query


def drop_from_query(found, query, reason):
    """``query`` without the trait or aggregate rule of ``reason``."""
    position, at = reason
    if position is None:
        return dataclasses.replace(query, root_traits=model.TraitFilter())
    group = found.funnels[position].group
    step = found.funnels[position].steps[at]
    traits = group.traits
    if step.kind == 'required':
        traits = dataclasses.replace(
            traits, required=traits.required - {step.subject})
    elif step.kind == 'forbidden':
        traits = dataclasses.replace(traits, forbidden=frozenset())
    elif step.kind == 'any_of':
        traits = dataclasses.replace(traits, any_of=tuple(
            s for s in traits.any_of if tuple(sorted(s)) != step.subject))
    aggregates = group.aggregates
    if step.kind == 'member_of':
        aggregates = dataclasses.replace(aggregates, required=())
    elif step.kind == 'forbidden_aggregates':
        aggregates = dataclasses.replace(aggregates, forbidden=frozenset())
    groups_ = list(query.groups)
    groups_[position] = dataclasses.replace(group, traits=traits,
                                            aggregates=aggregates)
    return dataclasses.replace(query, groups=tuple(groups_))


def _one_trait(subject):
    return subject if isinstance(subject, str) else subject[0]


def _contributors(funnel, pool):
    return [p for p in pool if max(funnel.fails[p]) == explain.PASSED]


def _relax_provider(edit, group, step, rp_id):
    kind, subject, amount = step.kind, step.subject, step.amount
    if kind == 'inventory':
        edit.set_inventory(rp_id, subject, model.Inventory(amount))
    elif kind == 'capacity':
        inv = edit.inventory(rp_id, subject)
        edit.set_inventory(rp_id, subject, dataclasses.replace(
            inv, capacity=inv.used + amount))
    elif kind in ('min_unit', 'max_unit', 'step_size'):
        value = {'min_unit': 1, 'max_unit': amount, 'step_size': 1}[kind]
        edit.set_inventory(rp_id, subject, dataclasses.replace(
            edit.inventory(rp_id, subject), **{kind: value}))
    elif kind == 'required':
        edit.add_trait(rp_id, subject)
    elif kind == 'any_of':
        # One of the set that the group does not also forbid.
        edit.add_trait(rp_id, next(
            (name for name in subject
             if name not in group.traits.forbidden), subject[0]))
    elif kind == 'forbidden':
        edit.traits[rp_id] = edit.traits.get(rp_id, frozenset()) - set(
            subject)
    elif kind == 'member_of':
        edit.aggregates[rp_id] = edit.aggregates.get(
            rp_id, frozenset()) | {entry[0] for entry in subject}
    elif kind == 'forbidden_aggregates':
        root = edit.providers[rp_id].root_id
        for who in (rp_id, root) if not group.is_granular else (rp_id,):
            edit.aggregates[who] = edit.aggregates.get(
                who, frozenset()) - set(subject)


def _relax_cross(found, edit, query, root, kind, pool):
    if kind == 'root_required':
        edit.traits[root] = (edit.traits.get(root, frozenset())
                             | query.root_traits.required) - (
            query.root_traits.forbidden)
    elif kind == 'combined':
        for rp_id in pool:
            for rc, inv in list(edit.inventories.get(rp_id, {}).items()):
                edit.set_inventory(rp_id, rc, dataclasses.replace(
                    inv, capacity=inv.capacity + 10,
                    max_unit=inv.max_unit + 10))
    elif kind == 'unsuffixed_traits':
        unsuffixed = next(f for f in found.funnels
                          if not f.group.is_granular)
        wanted = set(unsuffixed.group.traits.required) | {
            sorted(s)[0] for s in unsuffixed.group.traits.any_of}
        for rp_id in _contributors(unsuffixed, pool):
            for name in wanted:
                edit.add_trait(rp_id, name)
    elif kind == 'one_per_tree':
        return edit.snapshot(), dataclasses.replace(query, nested_aware=True)
    elif kind == 'isolate':
        return edit.snapshot(), dataclasses.replace(query,
                                                    group_policy='none')
    elif kind == 'same_subtree':
        return edit.snapshot(), dataclasses.replace(query, same_subtrees=())
    return edit.snapshot(), query


class _Edit:
    """Mutable copies of a snapshot's parts; snapshot() rebuilds it (with
    the sharing providers' anchors from the aggregates, as strategies
    makes them)."""

    def __init__(self, snapshot):
        self.base = snapshot
        self.providers = snapshot.providers
        self.inventories = {k: dict(v)
                            for k, v in snapshot.inventories.items()}
        self.traits = dict(snapshot.traits)
        self.aggregates = dict(snapshot.aggregates)

    def inventory(self, rp_id, rc):
        return self.inventories[rp_id][rc]

    def set_inventory(self, rp_id, rc, inv):
        self.inventories.setdefault(rp_id, {})[rc] = inv

    def add_trait(self, rp_id, name):
        self.traits[rp_id] = self.traits.get(rp_id, frozenset()) | {name}

    def snapshot(self):
        anchors = {}
        for s in self.base.sharing:
            mine = self.aggregates.get(s, frozenset())
            anchors[s] = frozenset(
                self.providers[p].root_id for p in self.providers
                if self.aggregates.get(p, frozenset()) & mine)
        # inventory_keys=None: keys made anew, by value, for the edited
        # inventories (the base's would call changed providers alike).
        return dataclasses.replace(
            self.base, inventories=self.inventories, inventory_keys=None,
            traits={k: frozenset(v) for k, v in self.traits.items()},
            aggregates={k: frozenset(v) for k, v in self.aggregates.items()},
            sharing_anchors=anchors)
