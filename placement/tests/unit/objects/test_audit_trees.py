"""The tree-link rules of the audit, on small in-memory forests."""
import unittest

from placement.objects import audit_trees as trees


def links(*rows):
    """(id, parent id, root id) -> Link with uuid 'rp<id>'."""
    return [trees.Link(rp_id, 'rp%d' % rp_id, parent, root)
            for rp_id, parent, root in rows]


def found(*rows):
    return [(problem.check, problem.uuid, problem.details)
            for problem in trees.find_problems(links(*rows))]


class TreeProblemsTests(unittest.TestCase):

    def test_consistent_forest_has_no_problem(self):
        self.assertEqual([], found((1, None, 1), (2, 1, 1), (3, 2, 1),
                                   (4, None, 4), (5, 4, 4)))

    def test_missing_root_id(self):
        self.assertEqual([(trees.ROOT_MISSING, 'rp2', {})],
                         found((1, None, 1), (2, 1, None)))

    def test_parentless_provider_pointing_at_another_root(self):
        self.assertEqual([(trees.ROOT_NOT_OWN_ROOT, 'rp2', {
            'root_provider_uuid': 'rp1', 'root_provider_id': 1})],
            found((1, None, 1), (2, None, 1)))

    def test_root_id_of_a_row_that_does_not_exist(self):
        self.assertEqual([(trees.ROOT_NOT_OWN_ROOT, 'rp1', {
            'root_provider_uuid': None, 'root_provider_id': 9})],
            found((1, None, 9)))

    def test_parent_row_that_does_not_exist(self):
        self.assertEqual([(trees.PARENT_MISSING, 'rp2',
                           {'parent_provider_id': 7})],
                         found((1, None, 1), (2, 7, 1)))

    def test_parent_in_another_tree(self):
        self.assertEqual([(trees.PARENT_IN_OTHER_TREE, 'rp2', {
            'parent_provider_uuid': 'rp3', 'root_provider_uuid': 'rp1',
            'parent_root_provider_uuid': 'rp3'})],
            found((1, None, 1), (2, 3, 1), (3, None, 3)))

    def test_child_of_a_rootless_parent_is_not_blamed_twice(self):
        self.assertEqual([(trees.ROOT_MISSING, 'rp1', {})],
                         found((1, None, None), (2, 1, 1)))

    def test_cycle_reported_once_from_its_smallest_id(self):
        # 5 -> 3 -> 4 -> 5 is a cycle; 6 hangs below it.
        self.assertEqual([(trees.CYCLE, 'rp3',
                           {'cycle': ['rp3', 'rp4', 'rp5']})],
                         found((3, 4, 3), (4, 5, 3), (5, 3, 3), (6, 5, 3)))

    def test_provider_that_is_its_own_parent(self):
        self.assertEqual([(trees.CYCLE, 'rp1', {'cycle': ['rp1']})],
                         found((1, 1, 1)))

    def test_two_cycles_and_a_broken_link_in_id_order(self):
        problems = found((1, 2, 1), (2, 1, 1), (3, 4, 3), (4, 3, 3),
                         (5, None, 1))
        self.assertEqual([(trees.ROOT_NOT_OWN_ROOT, 'rp5'),
                          (trees.CYCLE, 'rp1'), (trees.CYCLE, 'rp3')],
                         [problem[:2] for problem in problems])

    def test_long_chain_is_walked_without_recursion(self):
        chain = [(1, None, 1)] + [(i, i - 1, 1) for i in range(2, 5001)]
        self.assertEqual([], found(*chain))
