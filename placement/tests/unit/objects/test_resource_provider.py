"""Provider objects: the subtree walk, and the capacity filter SQL run on
SQLite agreeing with the Python rule in solver.model."""
import itertools
import unittest

import sqlalchemy as sa

from placement.db import models
from placement.objects import _sql
from placement.objects import provider_tree
from placement.objects import resource_provider as rp_obj
from placement.solver import model
from placement.tests.unit.objects import test_inventory


class SubtreeTest(unittest.TestCase):
    #   1 -> 2 -> 4
    #   1 -> 3
    LINKS = {1: None, 2: 1, 3: 1, 4: 2}

    def test_root_has_everything(self):
        self.assertEqual({1, 2, 3, 4},
                         provider_tree.subtree_ids(self.LINKS, 1))

    def test_middle_has_itself_and_below(self):
        self.assertEqual({2, 4}, provider_tree.subtree_ids(self.LINKS, 2))

    def test_leaf_is_alone(self):
        self.assertEqual({3}, provider_tree.subtree_ids(self.LINKS, 3))


# (total, reserved, ratio, min_unit, max_unit, step_size, used)
INVENTORIES = [
    (8, 2, 2.0, 2, 6, 2, 0),
    (8, 2, 2.0, 2, 6, 2, 10),
    (10, 0, 1.5, 1, 20, 1, 3),
    (4, 4, 1.0, 1, 4, 1, 0),
    (10, 1, 0.5, 3, 10, 3, 0),
    (1024, 0, 1.0, 1, 1024, 256, 512),
]


class FitsClauseTest(unittest.TestCase):

    def setUp(self):
        self.engine = sa.create_engine('sqlite://')
        models.metadata.create_all(self.engine)
        self.addCleanup(self.engine.dispose)

    def _load(self, conn, rp_id, values):
        total, reserved, ratio, min_unit, max_unit, step, used = values
        conn.execute(models.resource_providers.insert().values(
            id=rp_id, uuid='rp-%d' % rp_id, name='rp-%d' % rp_id,
            generation=0, root_provider_id=rp_id))
        conn.execute(models.inventories.insert().values(
            resource_provider_id=rp_id, resource_class_id=0, total=total,
            reserved=reserved, allocation_ratio=ratio, min_unit=min_unit,
            max_unit=max_unit, step_size=step))
        if used:
            # Two allocations, so that the usage is a sum.
            for part in (used // 2, used - used // 2):
                conn.execute(models.allocations.insert().values(
                    resource_provider_id=rp_id, resource_class_id=0,
                    consumer_id='c', used=part))

    def _sql_fits(self, conn, rp_id, amount):
        rp = models.resource_providers
        stmt = sa.select(rp.c.id).where(
            rp.c.id == rp_id, _sql.provider_fits_clause(rp.c.id, 0, amount))
        return conn.execute(stmt).first() is not None

    def _sql_fits_set(self, conn, rp_id, amount):
        rp = models.resource_providers
        stmt = sa.select(rp.c.id).where(
            rp.c.id == rp_id,
            rp.c.id.in_(_sql.fitting_providers_subquery(0, amount)))
        return conn.execute(stmt).first() is not None

    def test_sql_agrees_with_the_model(self):
        with self.engine.begin() as conn:
            for rp_id, values in enumerate(INVENTORIES, start=1):
                self._load(conn, rp_id, values)
            for (rp_id, values), amount in itertools.product(
                    enumerate(INVENTORIES, start=1), range(1, 40)):
                total, reserved, ratio, min_unit, max_unit, step, used = (
                    values)
                inv = model.Inventory(
                    capacity=model.capacity(total, reserved, ratio),
                    used=used, min_unit=min_unit, max_unit=max_unit,
                    step_size=step)
                with self.subTest(inventory=values, amount=amount):
                    self.assertEqual(inv.fits(amount),
                                     self._sql_fits(conn, rp_id, amount))
                    self.assertEqual(inv.fits(amount),
                                     self._sql_fits_set(conn, rp_id, amount))

    def test_no_inventory_never_fits(self):
        with self.engine.begin() as conn:
            self._load(conn, 1, INVENTORIES[0])
            rp = models.resource_providers
            stmt = sa.select(rp.c.id).where(
                _sql.provider_fits_clause(rp.c.id, 1, 1))
            self.assertIsNone(conn.execute(stmt).first())
            stmt = sa.select(rp.c.id).where(
                rp.c.id.in_(_sql.fitting_providers_subquery(1, 1)))
            self.assertIsNone(conn.execute(stmt).first())


class CreateStampsTest(unittest.TestCase):
    """updated_at on a new provider row, as upstream leaves it."""

    def test_a_root_carries_updated_at_and_a_child_does_not(self):
        db = test_inventory.sqlite_database()
        root = rp_obj.create_provider(
            db, '00000000-0000-4000-8000-000000000001', 'root')
        child = rp_obj.create_provider(
            db, '00000000-0000-4000-8000-000000000002', 'child',
            parent_uuid=root.uuid)
        self.assertIsNotNone(root.updated_at)
        self.assertIsNone(child.updated_at)
