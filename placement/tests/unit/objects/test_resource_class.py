"""objects.resource_class: custom ids, the standard-class rules."""
import unittest

from placement import exception
from placement.objects import inventory as inv_obj
from placement.objects import resource_class as rc_obj
from placement.objects import resource_provider as rp_obj
from placement.tests.unit.objects import test_inventory


class TestResourceClassOperations(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.db = test_inventory.sqlite_database()
        self.addCleanup(self.db.dispose)

    def test_standard_classes_are_listed_with_their_index(self):
        classes = rc_obj.list_resource_classes(self.db)
        self.assertEqual((0, 'VCPU'), (classes[0].id, classes[0].name))
        self.assertTrue(all(rc.is_standard for rc in classes))

    def test_custom_ids_start_at_10000_and_grow(self):
        first = rc_obj.create(self.db, 'CUSTOM_A')
        second = rc_obj.create(self.db, 'CUSTOM_B')
        self.assertEqual((10000, 10001), (first.id, second.id))
        self.assertFalse(first.is_standard)

    def test_deleting_the_top_id_frees_it(self):
        rc_obj.create(self.db, 'CUSTOM_A')
        rc_obj.create(self.db, 'CUSTOM_B')
        rc_obj.delete(self.db, 'CUSTOM_B')
        self.assertEqual(10001, rc_obj.create(self.db, 'CUSTOM_C').id)

    def test_create_twice(self):
        rc_obj.create(self.db, 'CUSTOM_A')
        self.assertRaises(exception.ResourceClassExists, rc_obj.create,
                          self.db, 'CUSTOM_A')

    def test_ensure_reports_creation(self):
        self.assertTrue(rc_obj.ensure(self.db, 'CUSTOM_A'))
        self.assertFalse(rc_obj.ensure(self.db, 'CUSTOM_A'))

    def test_rename(self):
        rc_obj.create(self.db, 'CUSTOM_A')
        rc_obj.create(self.db, 'CUSTOM_B')
        renamed = rc_obj.rename(self.db, 'CUSTOM_A', 'CUSTOM_C')
        self.assertEqual('CUSTOM_C', renamed.name)
        self.assertIsNotNone(renamed.updated_at)
        self.assertEqual(renamed.id,
                         rc_obj.get_by_name(self.db, 'CUSTOM_C').id)
        self.assertRaises(exception.ResourceClassExists, rc_obj.rename,
                          self.db, 'CUSTOM_C', 'CUSTOM_B')
        self.assertEqual('CUSTOM_C',
                         rc_obj.rename(self.db, 'CUSTOM_C', 'CUSTOM_C').name)
        self.assertRaises(exception.ResourceClassCannotUpdateStandard,
                          rc_obj.rename, self.db, 'VCPU', 'CUSTOM_D')
        self.assertRaises(exception.ResourceClassNotFound, rc_obj.rename,
                          self.db, 'CUSTOM_NONE', 'CUSTOM_D')

    def test_delete_rules(self):
        self.assertRaises(exception.ResourceClassCannotDeleteStandard,
                          rc_obj.delete, self.db, 'VCPU')
        self.assertRaises(exception.ResourceClassNotFound, rc_obj.delete,
                          self.db, 'CUSTOM_NONE')
        rc_obj.create(self.db, 'CUSTOM_A')
        rp_obj.create_provider(self.db, 'rp-uuid', 'rp')
        inv_obj.set_inventories(self.db, 'rp-uuid', 0, {
            'CUSTOM_A': inv_obj.Inventory('CUSTOM_A', total=1)})
        self.assertRaises(exception.ResourceClassInUse, rc_obj.delete,
                          self.db, 'CUSTOM_A')
        inv_obj.delete_inventories(self.db, 'rp-uuid')
        rc_obj.delete(self.db, 'CUSTOM_A')
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_obj.get_by_name, self.db, 'CUSTOM_A')

    def test_lookups_still_work(self):
        rc_obj.create(self.db, 'CUSTOM_A')
        with self.db.writer.connect() as conn:
            self.assertEqual({'VCPU': 0, 'CUSTOM_A': 10000},
                             rc_obj.fetch_ids_by_name(conn,
                                                      ['VCPU', 'CUSTOM_A']))
            self.assertEqual('CUSTOM_A',
                             rc_obj.fetch_names_by_id(conn)[10000])
