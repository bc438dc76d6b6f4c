"""Property tests: the solver against the brute-force oracle."""
import dataclasses
import random
import unittest
from unittest import mock

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement import solver
from placement.solver import combine
from placement.solver import model
from placement.solver import single
from placement.tests.unit.solver import oracle
from placement.tests.unit.solver import strategies

EXAMPLES = settings(max_examples=150, deadline=None)


@st.composite
def problems(draw):
    snapshot = draw(strategies.forests())
    return snapshot, draw(strategies.queries(snapshot))


@st.composite
def flat_problems(draw):
    snapshot = draw(strategies.forests(flat=True))
    return snapshot, draw(strategies.one_group_queries(snapshot))


class TestSingleProviderShortcut(unittest.TestCase):
    """single.py answers exactly as the general walk, in the same order."""

    @EXAMPLES
    @given(flat_problems(), st.sampled_from((None, 1, 2, 5)))
    def test_same_as_the_walk(self, problem, limit):
        snapshot, query = problem
        self.assertTrue(single.applies(snapshot, query))
        query = dataclasses.replace(query, limit=limit)
        shortcut = solver.solve(snapshot, query)
        # Claiming nesting turns the shortcut off and changes nothing
        # else for one-provider trees.
        walked = solver.solve(dataclasses.replace(snapshot, has_nested=True),
                              query)
        self.assertEqual(walked, shortcut)
        if limit is None:
            self.assertEqual(set(shortcut), oracle.candidates(snapshot, query))


def _copies(snapshot, count):
    """``count`` copies of every tree of ``snapshot`` (no sharing), the
    copies' providers using the very inventory dicts of the originals, as
    alike providers do in a real snapshot.
    """
    providers, inventories, traits, aggregates = {}, {}, {}, {}
    for copy in range(count):
        offset = copy * 100

        def moved(rp_id):
            return None if rp_id is None else rp_id + offset
        for rp in snapshot.providers.values():
            rp_id = moved(rp.id)
            providers[rp_id] = model.Provider(
                rp_id, '%s-%d' % (rp.uuid, copy), moved(rp.parent_id),
                moved(rp.root_id))
            if rp.id in snapshot.inventories:
                inventories[rp_id] = snapshot.inventories[rp.id]
            traits[rp_id] = snapshot.traits.get(rp.id, frozenset())
            aggregates[rp_id] = snapshot.aggregates.get(rp.id, frozenset())
    return model.Snapshot(
        providers=providers, inventories=inventories, traits=traits,
        aggregates=aggregates,
        anchors=tuple(sorted(p.id for p in providers.values()
                             if p.parent_id is None)),
        has_nested=snapshot.has_nested)


class TestMemo(unittest.TestCase):
    """Alike trees walked once and replayed give what walking each gives,
    in the same order.
    """

    @EXAMPLES
    @given(problems(), st.integers(3, 4))
    def test_replay_is_the_walk(self, problem, count):
        # A walk is recorded at its key's second sighting and replayed
        # from the third.
        snapshot, query = problem
        copied = _copies(snapshot, count)
        found = solver.solve(copied, query)
        with mock.patch.object(
                combine.Memo, 'walk',
                lambda memo, slots: combine.walk_anchor(memo.plan, slots)):
            walked = solver.solve(copied, query)
        self.assertEqual(walked, found)
        self.assertEqual(set(found), oracle.candidates(copied, query))


class TestAgainstOracle(unittest.TestCase):

    @EXAMPLES
    @given(problems())
    def test_unlimited_result_equals_oracle(self, problem):
        snapshot, query = problem
        found = solver.solve(snapshot, query)
        self.assertEqual(len(found), len(set(found)))
        self.assertEqual(set(found), oracle.candidates(snapshot, query))

    @EXAMPLES
    @given(problems(), st.integers(1, 4))
    def test_limit_gives_a_prefix(self, problem, limit):
        snapshot, query = problem
        full = solver.solve(snapshot, query)
        limited = solver.solve(
            snapshot, model.CandidateQuery(**{**query.__dict__,
                                              'limit': limit}))
        self.assertEqual(full[:limit], limited)

    @EXAMPLES
    @given(problems(), st.integers(1, 4))
    def test_max_candidates_caps_breadth_first(self, problem, cap):
        snapshot, query = problem
        options = model.SolverOptions(max_candidates=cap,
                                      strategy='breadth-first')
        found = solver.solve(snapshot, query, options)
        self.assertLessEqual(len(found), cap)
        self.assertLessEqual(set(found), oracle.candidates(snapshot, query))

    @EXAMPLES
    @given(problems(), st.integers(0, 99))
    def test_randomized_is_a_subset_and_reproducible(self, problem, seed):
        snapshot, query = problem
        query = model.CandidateQuery(**{**query.__dict__, 'limit': 2})
        first = solver.solve(snapshot, query,
                             model.SolverOptions(rng=random.Random(seed)))
        again = solver.solve(snapshot, query,
                             model.SolverOptions(rng=random.Random(seed)))
        self.assertEqual(first, again)
        self.assertLessEqual(len(first), 2)
        self.assertLessEqual(set(first), oracle.candidates(snapshot, query))

    @EXAMPLES
    @given(problems(), st.integers(0, 99))
    def test_randomized_unlimited_is_every_candidate_reordered(
            self, problem, seed):
        snapshot, query = problem
        first = solver.solve(snapshot, query,
                             model.SolverOptions(rng=random.Random(seed)))
        again = solver.solve(snapshot, query,
                             model.SolverOptions(rng=random.Random(seed)))
        self.assertEqual(first, again)
        self.assertEqual(len(set(first)), len(first))
        self.assertEqual(set(first), oracle.candidates(snapshot, query))


class TestCandidateInvariants(unittest.TestCase):
    """Direct checks of each rule on every candidate."""

    @EXAMPLES
    @given(problems())
    def test_every_candidate_respects_capacity_and_policy(self, problem):
        snapshot, query = problem
        for candidate in solver.solve(snapshot, query):
            self._check_capacity(snapshot, candidate)
            self._check_groups(snapshot, query, candidate)

    def _check_capacity(self, snapshot, candidate):
        for rp_id, rc, amount in candidate.allocations:
            inv = snapshot.inventories[rp_id][rc]
            self.assertLessEqual(inv.used + amount, inv.capacity)
            self.assertLessEqual(amount, inv.max_unit)

    def _check_groups(self, snapshot, query, candidate):
        mappings = dict(candidate.mappings)
        granular = [mappings[g.suffix][0] for g in query.groups if g.suffix]
        if query.group_policy == 'isolate':
            self.assertEqual(len(granular), len(set(granular)))
        for group in query.groups:
            for rp_id in mappings[group.suffix]:
                traits = snapshot.traits.get(rp_id, frozenset())
                self.assertFalse(group.traits.forbidden & traits)
                if group.suffix:
                    self.assertTrue(group.traits.is_satisfied_by(traits))
                    self.assertTrue(group.aggregates.is_satisfied_by(
                        snapshot.aggregates.get(rp_id, frozenset())))
