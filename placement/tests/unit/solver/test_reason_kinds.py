"""reasons.reason_kinds: the reasons of an explanation by step kind."""
import unittest

from hypothesis import given

from placement.solver import explain
from placement.solver import reasons
from placement.tests.unit.solver import test_explain


class TestReasonKinds(unittest.TestCase):

    @test_explain.EXAMPLES
    @given(test_explain.problems())
    def test_each_removed_tree_counted_once_under_its_steps_kind(
            self, problem):
        snapshot, query = problem
        found = explain.explain(snapshot, query)
        kinds = reasons.reason_kinds(found)
        self.assertEqual(len(found.reasons), sum(kinds.values()))
        for position, at in found.reasons.values():
            kind = (at if position is None
                    else found.funnels[position].steps[at].kind)
            self.assertIn(kind, kinds)
