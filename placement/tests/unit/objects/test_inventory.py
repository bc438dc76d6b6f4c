"""objects.inventory: the capacity rule, and the queries on SQLite."""
import unittest
import uuid

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement import exception
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.objects import standards


def sqlite_database():
    """A fresh in-memory database with the schema and standard rows."""
    engine = sa.create_engine('sqlite://', poolclass=sa.pool.StaticPool)
    models.metadata.create_all(engine)
    db = db_api.Database(engine)
    standards.sync(db)
    return db


class TestInventory(unittest.TestCase):

    def test_defaults_are_the_api_defaults(self):
        inv = inv_obj.Inventory('VCPU', total=8)
        self.assertEqual((0, 1, 2147483647, 1, 1.0),
                         (inv.reserved, inv.min_unit, inv.max_unit,
                          inv.step_size, inv.allocation_ratio))

    def test_capacity_truncates(self):
        inv = inv_obj.Inventory('VCPU', total=10, reserved=3,
                                allocation_ratio=1.5)
        self.assertEqual(10, inv.capacity)

    def test_values_are_the_stored_fields(self):
        inv = inv_obj.Inventory('VCPU', total=8)
        self.assertEqual({'total', 'reserved', 'min_unit', 'max_unit',
                          'step_size', 'allocation_ratio'},
                         set(inv.values()))


class TestCheckCapacity(unittest.TestCase):

    def _check(self, allow, **fields):
        inv_obj.check_capacity('rp', inv_obj.Inventory('VCPU', **fields),
                               allow)

    def test_reserved_equal_total_refused_before_1_26(self):
        self.assertRaises(exception.InvalidInventoryCapacity,
                          self._check, False, total=8, reserved=8)

    def test_reserved_equal_total_allowed_from_1_26(self):
        self._check(True, total=8, reserved=8)

    def test_reserved_above_total_refused_from_1_26(self):
        self.assertRaises(
            exception.InvalidInventoryCapacityReservedCanBeTotal,
            self._check, True, total=8, reserved=9)

    def test_zero_ratio_has_no_capacity(self):
        self.assertRaises(exception.InvalidInventoryCapacity,
                          self._check, False, total=8, allocation_ratio=0.0)
        self._check(True, total=8, allocation_ratio=0.0)

    def test_tiny_ratio_truncates_to_zero(self):
        self.assertRaises(exception.InvalidInventoryCapacity,
                          self._check, False, total=8, allocation_ratio=0.1)

    def test_negative_ratio_is_refused(self):
        self.assertRaises(
            exception.InvalidInventoryCapacityReservedCanBeTotal,
            self._check, True, total=8, allocation_ratio=-1.0)

    def test_message_names_class_and_provider(self):
        try:
            inv_obj.check_capacity(
                'rp-1', inv_obj.Inventory('DISK_GB', total=1, reserved=2),
                True)
        except exception.InvalidInventoryCapacity as exc:
            self.fail('wrong class %r' % exc)
        except exception.InvalidInventory as exc:
            self.assertIn("'DISK_GB'", str(exc))
            self.assertIn("'rp-1'", str(exc))


class TestReplaceInventories(unittest.TestCase):
    """replace_inventories inside a caller's transaction, on SQLite."""

    def setUp(self):
        super().setUp()
        self.db = sqlite_database()
        self.addCleanup(self.db.dispose)
        self.rp_uuid = str(uuid.uuid4())
        self.provider = rp_obj.create_provider(self.db, self.rp_uuid, 'rp')

    def _replace(self, inventories, allow=True):
        with db_api.transaction(self.db) as conn:
            inv_obj.replace_inventories(conn, self.provider, inventories,
                                        allow)

    def _stored(self):
        with db_api.reader(self.db) as conn:
            return inv_obj.fetch_inventories(conn, self.provider.id)

    def _generation(self):
        with db_api.reader(self.db) as conn:
            return rp_obj.fetch_provider(conn, self.rp_uuid).generation

    def _allocate(self, class_name, used):
        with db_api.transaction(self.db) as conn:
            rc = models.resource_classes
            rc_id = conn.execute(sa.select(rc.c.id).where(
                rc.c.name == class_name)).scalar()
            conn.execute(sa.insert(models.allocations).values(
                resource_provider_id=self.provider.id,
                consumer_id=str(uuid.uuid4()), resource_class_id=rc_id,
                used=used))

    def test_insert_update_delete_without_bumping(self):
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=8),
                       'DISK_GB': inv_obj.Inventory('DISK_GB', total=10)})
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=4,
                                                 allocation_ratio=2.0),
                       'MEMORY_MB': inv_obj.Inventory('MEMORY_MB',
                                                      total=512)})
        stored = self._stored()
        self.assertEqual({'VCPU', 'MEMORY_MB'}, set(stored))
        self.assertEqual(4, stored['VCPU'].total)
        self.assertEqual(2.0, stored['VCPU'].allocation_ratio)
        self.assertIsNotNone(stored['VCPU'].updated_at)
        self.assertIsNone(stored['MEMORY_MB'].updated_at)
        self.assertIsNotNone(stored['MEMORY_MB'].created_at)
        self.assertEqual(0, self._generation())

    def test_unknown_class(self):
        self.assertRaises(exception.ResourceClassNotFound, self._replace,
                          {'CUSTOM_NONE': inv_obj.Inventory('CUSTOM_NONE',
                                                            total=1)})
        self.assertEqual({}, self._stored())

    def test_removing_a_class_in_use(self):
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=8),
                       'DISK_GB': inv_obj.Inventory('DISK_GB', total=10)})
        self._allocate('VCPU', 2)
        with self.assertRaises(exception.InventoryInUse) as caught:
            self._replace({'DISK_GB': inv_obj.Inventory('DISK_GB',
                                                        total=10)})
        self.assertIn("'VCPU'", str(caught.exception))
        self.assertIn(self.rp_uuid, str(caught.exception))
        self.assertEqual({'VCPU', 'DISK_GB'}, set(self._stored()))

    def test_removing_an_unused_class_next_to_a_used_one(self):
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=8),
                       'DISK_GB': inv_obj.Inventory('DISK_GB', total=10)})
        self._allocate('VCPU', 2)
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=8)})
        self.assertEqual({'VCPU'}, set(self._stored()))

    def test_shrinking_below_usage_is_allowed(self):
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=8)})
        self._allocate('VCPU', 6)
        with self.assertLogs(inv_obj.LOG.logger, 'WARNING'):
            self._replace({'VCPU': inv_obj.Inventory('VCPU', total=2)})
        self.assertEqual(2, self._stored()['VCPU'].total)

    def test_capacity_checked_per_flag(self):
        equal = {'VCPU': inv_obj.Inventory('VCPU', total=8, reserved=8)}
        self.assertRaises(exception.InvalidInventoryCapacity,
                          self._replace, equal, False)
        self._replace(equal, True)

    def test_current_usages_sum_per_class(self):
        self._replace({'VCPU': inv_obj.Inventory('VCPU', total=8)})
        self._allocate('VCPU', 2)
        self._allocate('VCPU', 3)
        with db_api.reader(self.db) as conn:
            self.assertEqual({'VCPU': 5},
                             inv_obj.fetch_current(
                                 conn, self.provider.id, []).usages)


class TestOperations(unittest.TestCase):
    """The per-request operations bump the generation exactly once."""

    def setUp(self):
        super().setUp()
        self.db = sqlite_database()
        self.addCleanup(self.db.dispose)
        self.rp_uuid = str(uuid.uuid4())
        rp_obj.create_provider(self.db, self.rp_uuid, 'rp')

    def test_set_then_stale_generation(self):
        generation, stored = inv_obj.set_inventories(
            self.db, self.rp_uuid, 0,
            {'VCPU': inv_obj.Inventory('VCPU', total=8)})
        self.assertEqual(1, generation)
        self.assertEqual(8, stored['VCPU'].total)
        self.assertRaises(exception.ResourceProviderGenerationConflict,
                          inv_obj.set_inventories, self.db, self.rp_uuid, 0,
                          {})

    def test_generation_the_column_cannot_hold_is_stale(self):
        # No row has it: a conflict, not the database's refusal of the
        # number (the swap by uuid would bind it).
        for seen in (2 ** 31 - 1, 2 ** 31, 10 ** 23, -2 ** 31 - 1):
            self.assertRaises(exception.ResourceProviderGenerationConflict,
                              inv_obj.set_inventories, self.db,
                              self.rp_uuid, seen, {})
        provider, _ = inv_obj.get_inventories(self.db, self.rp_uuid)
        self.assertEqual(0, provider.generation)

    def test_failed_write_leaves_generation(self):
        self.assertRaises(exception.ResourceClassNotFound,
                          inv_obj.set_inventories, self.db, self.rp_uuid, 0,
                          {'CUSTOM_NONE': inv_obj.Inventory('CUSTOM_NONE',
                                                            total=1)})
        provider, inventories = inv_obj.get_inventories(self.db,
                                                        self.rp_uuid)
        self.assertEqual(0, provider.generation)
        self.assertEqual({}, inventories)

    def test_add_update_delete_one(self):
        generation, inv = inv_obj.add_inventory(
            self.db, self.rp_uuid, inv_obj.Inventory('VCPU', total=8))
        self.assertEqual((1, 8), (generation, inv.total))
        # The database's refusal of the insert is the message (upstream's).
        with self.assertRaises(exception.InventoryExists) as ctx:
            inv_obj.add_inventory(self.db, self.rp_uuid,
                                  inv_obj.Inventory('VCPU', total=8))
        self.assertIn('(sqlite3.IntegrityError) UNIQUE constraint failed',
                      str(ctx.exception))
        # Its columns in upstream's order: the timestamp last.
        self.assertIn('INSERT INTO inventories (resource_provider_id, '
                      'resource_class_id, total, reserved, min_unit, '
                      'max_unit, step_size, allocation_ratio, created_at) '
                      'VALUES', str(ctx.exception))
        # A bad capacity is named first.
        self.assertRaises(exception.InvalidInventory, inv_obj.add_inventory,
                          self.db, self.rp_uuid,
                          inv_obj.Inventory('VCPU', total=8, reserved=9))
        generation, inv = inv_obj.update_inventory(
            self.db, self.rp_uuid, 1, inv_obj.Inventory('VCPU', total=16))
        self.assertEqual((2, 16), (generation, inv.total))
        self.assertRaises(exception.InventoryNotFound,
                          inv_obj.update_inventory, self.db, self.rp_uuid, 2,
                          inv_obj.Inventory('DISK_GB', total=1))
        inv_obj.delete_inventory(self.db, self.rp_uuid, 'VCPU')
        self.assertRaises(exception.InventoryNotFound,
                          inv_obj.delete_inventory, self.db, self.rp_uuid,
                          'VCPU')
        provider, inventories = inv_obj.get_inventories(self.db,
                                                        self.rp_uuid)
        self.assertEqual((3, {}), (provider.generation, inventories))

    def test_one_class_write_leaves_the_other_rows(self):
        # Upstream writes only that class's row: the others keep a NULL
        # updated_at, which shows after a rollback to upstream.
        inv_obj.set_inventories(
            self.db, self.rp_uuid, 0,
            {'VCPU': inv_obj.Inventory('VCPU', total=8),
             'DISK_GB': inv_obj.Inventory('DISK_GB', total=10)})
        inv_obj.update_inventory(self.db, self.rp_uuid, 1,
                                 inv_obj.Inventory('VCPU', total=16))
        inv_obj.add_inventory(self.db, self.rp_uuid,
                              inv_obj.Inventory('MEMORY_MB', total=512))
        inv_obj.add_inventory(self.db, self.rp_uuid,
                              inv_obj.Inventory('IPV4_ADDRESS', total=2))
        inv_obj.delete_inventory(self.db, self.rp_uuid, 'IPV4_ADDRESS')
        _, stored = inv_obj.get_inventories(self.db, self.rp_uuid)
        self.assertNotIn('IPV4_ADDRESS', stored)
        self.assertIsNotNone(stored['VCPU'].updated_at)
        self.assertIsNone(stored['DISK_GB'].updated_at)
        self.assertIsNone(stored['MEMORY_MB'].updated_at)
        self.assertEqual((16, 10, 512), (stored['VCPU'].total,
                                         stored['DISK_GB'].total,
                                         stored['MEMORY_MB'].total))

    def test_delete_of_an_unknown_class_names_the_class(self):
        self.assertRaises(exception.ResourceClassNotFound,
                          inv_obj.delete_inventory, self.db, self.rp_uuid,
                          'CUSTOM_NONE')

    def test_update_checks_generation_before_the_class(self):
        self.assertRaises(exception.ResourceProviderGenerationConflict,
                          inv_obj.update_inventory, self.db, self.rp_uuid, 7,
                          inv_obj.Inventory('CUSTOM_NONE', total=1))
        self.assertRaises(exception.ResourceClassNotFound,
                          inv_obj.update_inventory, self.db, self.rp_uuid, 0,
                          inv_obj.Inventory('CUSTOM_NONE', total=1))

    def test_delete_all_bumps_even_when_empty(self):
        inv_obj.delete_inventories(self.db, self.rp_uuid)
        provider, _ = inv_obj.get_inventories(self.db, self.rp_uuid)
        self.assertEqual(1, provider.generation)

    def test_unknown_provider(self):
        self.assertRaises(exception.ResourceProviderNotFound,
                          inv_obj.get_inventories, self.db, 'nope')
        self.assertRaises(exception.ResourceProviderNotFound,
                          inv_obj.delete_inventories, self.db, 'nope')
