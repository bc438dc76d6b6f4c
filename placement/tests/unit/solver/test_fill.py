"""solver.fill: the claims in a row, against claiming one at a time.

The naive count asks the solver for the first candidate of the whole
snapshot, claims it once, and asks again: what a brute force through
the API does. fill() must give the same count per tree, and never more
than the best order of claims an exhaustive search finds. A worked
example shows where first-candidate fill is not that best.
"""
import dataclasses
import unittest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement import solver
from placement.solver import fill
from placement.solver import model
from placement.tests.unit.solver import strategies

EXAMPLES = settings(max_examples=150, deadline=None)
MAX_CLAIMS = 200


@st.composite
def problems(draw):
    snapshot = draw(strategies.forests())
    # The API refuses a query without resources (nothing to count).
    query = draw(strategies.queries(snapshot).filter(
        lambda query: query.resource_classes))
    return snapshot, query


def _claimed(snapshot, candidate):
    """``snapshot`` with ``candidate`` allocated once more."""
    inventories = dict(snapshot.inventories)
    for rp_id, rc, amount in candidate.allocations:
        resources = dict(inventories[rp_id])
        resources[rc] = dataclasses.replace(
            resources[rc], used=resources[rc].used + amount)
        inventories[rp_id] = resources
    return dataclasses.replace(snapshot, inventories=inventories,
                               inventory_keys=None)


def naive(snapshot, query):
    counts = {}
    for _ in range(MAX_CLAIMS):
        found = solver.solve(snapshot, query, fill.FILL_OPTIONS, count=1)
        if not found:
            return counts
        root = fill.tree_of(found[0], snapshot)
        counts[root] = counts.get(root, 0) + 1
        snapshot = _claimed(snapshot, found[0])
    raise AssertionError('more than %d claims' % MAX_CLAIMS)


def best(snapshot, query, budget):
    """The most claims any order reaches (exhaustive), or None past
    ``budget`` solves."""
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    most = 0
    for candidate in solver.solve(snapshot, query, fill.FILL_OPTIONS):
        deeper = best(_claimed(snapshot, candidate), query, budget)
        if deeper is None:
            return None
        most = max(most, 1 + deeper)
    return most


def counts_of(snapshot, query):
    return {root: tree.count
            for root, tree in fill.fill(snapshot, query).items()
            if tree.count}


class FillTest(unittest.TestCase):

    @EXAMPLES
    @given(problems())
    def test_same_counts_as_claiming_one_at_a_time(self, problem):
        snapshot, query = problem
        self.assertEqual(naive(snapshot, query), counts_of(snapshot, query))

    @EXAMPLES
    @given(problems())
    def test_never_more_than_the_best_order(self, problem):
        snapshot, query = problem
        most = best(snapshot, query, [300])
        if most is not None:
            self.assertLessEqual(sum(counts_of(snapshot, query).values()),
                                 most)

    def test_first_candidate_fill_can_leave_room_unused(self):
        # One host, two NUMA nodes of 4 and 2 VCPUs; the shape asks 1
        # VCPU and 2 VCPUs from two different nodes. The first
        # candidate takes the 1 from the first node and the 2 from the
        # second: 3 VCPUs left on the first node, none on the second,
        # and nothing more fits. The other way round (2 from the first,
        # 1 from the second), twice, uses all six.
        providers = {1: model.Provider(1, 'cn', None, 1),
                     2: model.Provider(2, 'n0', 1, 1),
                     3: model.Provider(3, 'n1', 1, 1)}
        snapshot = model.Snapshot(
            providers=providers,
            inventories={2: {'VCPU': model.Inventory(4)},
                         3: {'VCPU': model.Inventory(2)}},
            anchors=(1,), has_nested=True)
        query = model.CandidateQuery(
            groups=(model.RequestGroup('1', (('VCPU', 1),)),
                    model.RequestGroup('2', (('VCPU', 2),))),
            group_policy='isolate')
        self.assertEqual({1: 1}, counts_of(snapshot, query))
        self.assertEqual(2, best(snapshot, query, [1000]))
