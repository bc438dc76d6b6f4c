"""Generation order, caps and de-duplication."""
import collections
import itertools
import random
import unittest

from placement.solver import order


class TestOrder(unittest.TestCase):

    def test_cap_is_the_smaller_of_limit_and_max(self):
        self.assertIsNone(order.cap(None, -1))
        self.assertEqual(3, order.cap(3, -1))
        self.assertEqual(2, order.cap(3, 2))
        self.assertEqual(0, order.cap(None, 0))

    def test_breadth_first_round_robins(self):
        gens = {'a': [1, 2, 3], 'b': [4], 'c': [5, 6]}
        found = list(order.stream('abc', lambda k: iter(gens[k]),
                                  order.BREADTH_FIRST))
        self.assertEqual([1, 4, 5, 2, 6, 3], found)

    def test_depth_first_chains(self):
        gens = {'a': [1, 2], 'b': [3]}
        found = list(order.stream('ab', lambda k: iter(gens[k]),
                                  order.DEPTH_FIRST))
        self.assertEqual([1, 2, 3], found)

    def test_take_unique_stops_pulling_once_full(self):
        pulled = []

        def source():
            for n in (1, 1, 2, 3, 4):
                pulled.append(n)
                yield n
        seen = set()
        self.assertEqual([1, 2], order.take_unique(source(), 2, seen))
        self.assertEqual([1, 1, 2], pulled)
        self.assertEqual({1, 2}, seen)

    def test_take_unique_skips_what_earlier_chunks_saw(self):
        self.assertEqual([3], order.take_unique(iter([1, 3]), None, {1}))

    def test_shuffled_is_a_permutation(self):
        items = list(range(1000))
        found = order.shuffled(items, random.Random(1))
        self.assertEqual(items, sorted(found))
        self.assertNotEqual(items, found)
        self.assertEqual(list(range(1000)), items)  # left as it was
        self.assertEqual([], order.shuffled([], random.Random(1)))
        self.assertEqual([7], order.shuffled([7], random.Random(1)))

    def test_shuffled_gives_every_order_alike(self):
        # 6 orders of 3 items over 6,000 draws: about 1,000 each; a
        # count outside 800..1,200 is beyond six standard deviations.
        rng = random.Random(5)
        counts = collections.Counter(
            tuple(order.shuffled(['a', 'b', 'c'], rng))
            for _ in range(6000))
        self.assertEqual(set(itertools.permutations('abc')), set(counts))
        for found in counts.values():
            self.assertTrue(800 < found < 1200, counts)
