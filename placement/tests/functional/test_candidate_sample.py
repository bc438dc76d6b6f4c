"""Randomized candidates with a limit are a uniform sample of every one.

With randomize_allocation_candidates, a limited answer is drawn without
reading every viable root (ids are drawn at random from the id range, see
candidates.chunks, its random draws). These tests make many requests with
a seeded generator, on every backend, and check what the documentation
promises of "a random sampling of the full result set": every viable root
turns up, none that is not viable ever does, and no root turns up far
more or less often than the others (a chi-square bound). Deterministic:
fixed seeds, no timing.
"""
import collections
import random
import unittest

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.handlers import querystring
from placement import microversion
from placement.objects.candidates import listing as ac_obj
from placement.solver import model
from placement.testing import app as app_fixture
from placement.testing import candidate_trees as ct

MV = microversion.Version(1, 39)
REQUESTS = 400


def _query(text):
    params = {}
    for part in text.split('&'):
        key, value = part.split('=', 1)
        params.setdefault(key, []).append(value)
    return querystring.parse_candidate_query(params, MV)


def _chi_square(counts, keys):
    """Pearson's statistic of ``counts`` over ``keys`` against equal
    frequencies.
    """
    total = sum(counts[k] for k in keys)
    expected = total / len(keys)
    return sum((counts[k] - expected) ** 2 / expected for k in keys)


def _bound(categories):
    """A chi-square bound far in the tail (about 6 standard deviations
    above the mean of categories - 1 degrees of freedom): a fair sampler
    stays under it for every seed one would try, a sampler favouring a
    root after a gap of ids, or the low ids, does not.
    """
    df = categories - 1
    return df + 6 * (2 * df) ** .5


def _flat_tree(count, viable):
    """``count`` compute nodes; those for which ``viable(i)`` have
    CUSTOM_T1.
    """
    return [ct.Node('cn%d' % i, inventory={'VCPU': 4},
                    traits=['CUSTOM_T1'] if viable(i) else [])
            for i in range(count)]


def _nested_tree(rng, count):
    """``count`` trees of one to six providers: a root (DISK_GB) and
    children with VCPU, some of them with CUSTOM_T1. Trees of various
    sizes leave gaps of various widths between root ids.
    """
    nodes = []
    for t in range(count):
        root = 'cn%d' % t
        nodes.append(ct.Node(root, inventory={'DISK_GB': 100}))
        for c in range(rng.randint(0, 5)):
            nodes.append(ct.Node(
                '%s_c%d' % (root, c), root, {'VCPU': 2},
                traits=['CUSTOM_T1'] if rng.random() < .5 else []))
    return nodes


def _delete(db, names):
    """Delete the providers ``names`` (no links, no allocations)."""
    rp = models.resource_providers
    with db_api.transaction(db) as conn:
        for table in (models.inventories, models.resource_provider_traits):
            conn.execute(sa.delete(table).where(
                table.c.resource_provider_id.in_(
                    sa.select(rp.c.id).where(rp.c.name.in_(names)))))
        mine = rp.c.name.in_(names)
        # A root refers to itself: clear that before the delete.
        conn.execute(sa.update(rp).where(mine).values(root_provider_id=None))
        conn.execute(sa.delete(rp).where(mine))


class TestRandomSample(unittest.TestCase):

    def _sample(self, placement, query, seed, requests=REQUESTS):
        """{root uuid: times it anchored a candidate} over ``requests``
        limited requests, and the number of requests that read every
        remaining viable root (the fallback, chunks, its REST cursor: the
        one statement ordered by provider id without a LIMIT).
        """
        rng = random.Random(seed)
        options = model.SolverOptions(rng=rng)
        counts = collections.Counter()
        fallbacks = []

        def count(conn, cursor, statement, *args):
            if ('ORDER BY resource_providers.id' in statement
                    and 'LIMIT' not in statement):
                fallbacks.append(statement)
        sa.event.listen(placement.db.alone, 'before_cursor_execute', count)
        self.addCleanup(sa.event.remove, placement.db.alone,
                        'before_cursor_execute', count)
        for _ in range(requests):
            result = ac_obj.list_candidates(placement.db, query, options)
            self.assertEqual(query.limit, len(result.candidates))
            roots = set()
            for candidate in result.candidates:
                rp_ids = {rp_id for rp_id, _, _ in candidate.allocations}
                roots |= {s.root_uuid for s in result.summaries
                          if s.id in rp_ids}
            counts.update(roots)
        return counts, len(fallbacks)

    def _check(self, counts, viable):
        self.assertEqual(set(viable), set(counts),
                         'every viable root, and only those')
        statistic = _chi_square(counts, viable)
        self.assertLess(statistic, _bound(len(viable)),
                        sorted(counts.values()))

    def test_flat_with_gaps(self):
        def check(placement):
            tree = _flat_tree(300, lambda i: i % 3 != 0)
            uuids = ct.build(placement.db, tree)
            # A wide gap of ids: cn180 follows 80 deleted providers.
            _delete(placement.db, ['cn%d' % i for i in range(100, 180)])
            viable = [uuids['cn%d' % i] for i in range(300)
                      if i % 3 and not 100 <= i < 180]
            query = _query('resources=VCPU:1&required=CUSTOM_T1&limit=3')
            counts, fallbacks = self._sample(placement, query, 1)
            self._check(counts, viable)
            self.assertEqual(0, fallbacks, 'every root was drawn by id')
        app_fixture.on_each_backend(self, check)

    def test_rare_roots_fall_back_to_reading_the_rest(self):
        def check(placement):
            rare = {7, 90, 91, 150, 222, 223, 224, 299}
            uuids = ct.build(placement.db,
                             _flat_tree(300, lambda i: i in rare))
            viable = [uuids['cn%d' % i] for i in sorted(rare)]
            query = _query('resources=VCPU:1&required=CUSTOM_T1&limit=5')
            counts, fallbacks = self._sample(placement, query, 2, 300)
            self._check(counts, viable)
            self.assertGreater(fallbacks, 0)
        app_fixture.on_each_backend(self, check)

    def test_nested_trees_of_various_sizes(self):
        def check(placement):
            tree = _nested_tree(random.Random(3), 120)
            uuids = ct.build(placement.db, tree)
            has_t1 = {node.parent for node in tree
                      if 'CUSTOM_T1' in node.traits}
            viable = [uuids[name] for name in sorted(has_t1)]
            query = _query('resources=DISK_GB:10'
                           '&resources1=VCPU:1&required1=CUSTOM_T1&limit=2')
            counts, _ = self._sample(placement, query, 4)
            self._check(counts, viable)
        app_fixture.on_each_backend(self, check)
