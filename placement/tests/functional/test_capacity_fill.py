"""Free capacity by shape (objects.fill) against real claims, per backend.

Hypothesis draws a small fleet (testing.capacity_fleets: flat and
nested hosts, a sharing pool, reserved, ratios, min/max unit, steps,
amounts already used) and two shapes. For each shape in turn the count
is read (over one unfiltered read of the fleet, and over the filtered
reads of the shape alone, which must agree), then a brute force claims
through the API, the first candidate after the other, until nothing
fits: the count of every tree and the total must be what the claims
reached (the second shape counts on the usage the first one's claims
left).
"""
import os
import unittest

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.handlers import capacity_shape
from placement.objects import fill
from placement.testing import app as app_fixture
from placement.testing import candidate_trees as ct
from placement.testing import capacity_fleets as fleets
from placement.testing import concurrency

EXAMPLES = int(os.environ.get('CAPACITY_FILL_EXAMPLES', 15))
_TABLES = ('allocations', 'consumers', 'inventories',
           'resource_provider_traits', 'resource_provider_aggregates',
           'placement_aggregates')


def _empty(db):
    with db_api.transaction(db) as conn:
        for table in _TABLES:
            conn.execute(sa.delete(getattr(models, table)))
        conn.execute(sa.update(models.resource_providers).values(
            parent_provider_id=None, root_provider_id=None))
        conn.execute(sa.delete(models.resource_providers))


def _providers(db):
    """{uuid: (id, root id)} and the ids of sharing providers."""
    rp, rpt, traits = (models.resource_providers,
                       models.resource_provider_traits, models.traits)
    with db_api.reader(db) as conn:
        found = {row.uuid: (row.id, row.root_provider_id or row.id)
                 for row in conn.execute(sa.select(rp))}
        sharing = set(conn.execute(
            sa.select(rpt.c.resource_provider_id)
            .select_from(rpt.join(traits, traits.c.id == rpt.c.trait_id))
            .where(traits.c.name == ct.SHARES)).scalars())
    return found, sharing


def _per_tree(claims, providers, sharing):
    """{root id: claims}, each claim counted as solver.fill.tree_of
    does: the root of its first provider (by id) not a sharing one,
    else of its first provider."""
    counts = {}
    for claim in claims:
        ids = sorted(providers[rp_uuid] for rp_uuid in claim)
        own = [pair for pair in ids if pair[0] not in sharing] or ids
        root = own[0][1]
        counts[root] = counts.get(root, 0) + 1
    return counts


class FillAgreesWithClaims(unittest.TestCase):

    def _check(self, name):
        backend = concurrency.backend(name)
        if backend is None:
            self.skipTest('%s not available' % name)
        placement = app_fixture.PlacementApp(backend)
        self.addCleanup(placement.cleanup)
        with db_api.transaction(placement.db) as conn:
            conn.execute(sa.insert(models.traits), [
                {'name': name} for name in (fleets.FPGA_TRAIT, fleets.GOLD)])

        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(fleets.fleets(), st.lists(fleets.shapes(), min_size=2,
                                         max_size=2))
        def check(tree, queries):
            _empty(placement.db)
            for name in fleets.AGGS:
                os.environ.pop('%s_UUID' % name, None)
            ct.build(placement.db, tree)
            aggs = {agg: os.environ.get('%s_UUID' % agg, '') for agg in
                    fleets.AGGS}
            for number, text in enumerate(queries):
                if '$AGGA' in text and not aggs['AGGA']:
                    continue
                text = fleets.with_uuids(text, aggs)
                self._agree(placement, 's%d' % number, text)
        check()

    def _agree(self, placement, name, text):
        shape = capacity_shape.parse_query(name, text)
        counted = fill.count_fleet(placement.db, [(name, shape.query)],
                                   with_usage=False).shapes[0]
        self.assertIsNone(counted.error)
        # The filtered reads of one shape (the fallback) count the same.
        with db_api.reader(placement.db) as conn:
            alone = fill.fetch_shape_fill(conn, name, shape.query)
        self.assertEqual(counted, alone)
        claims = fleets.claim_until_full(placement.app, text)
        providers, sharing = _providers(placement.db)
        reached = _per_tree(claims, providers, sharing)
        self.assertEqual(
            reached, {root_id: tree.count
                      for root_id, tree in counted.trees.items()},
            '%s: claims per tree differ from the count' % text)
        self.assertEqual(len(claims), counted.total)

    def test_sqlite(self):
        self._check('sqlite')

    def test_mysql(self):
        self._check('mysql')

    def test_postgresql(self):
        self._check('postgresql')


if __name__ == '__main__':
    unittest.main()
