"""handlers.inventory: parsing bodies and rendering, without HTTP."""
import datetime
import unittest

from placement.handlers import inventory as handler
from placement.objects import inventory as inv_obj
from placement import util


class TestParse(unittest.TestCase):

    def test_absent_fields_take_the_defaults(self):
        inv = handler._parse_inventory('VCPU', {'total': 8})
        self.assertEqual(inv_obj.Inventory('VCPU', total=8), inv)

    def test_integral_floats_become_ints(self):
        inv = handler._parse_inventory('VCPU', {'total': 8.0,
                                                'allocation_ratio': 2})
        self.assertEqual(8, inv.total)
        self.assertIsInstance(inv.total, int)
        self.assertIsInstance(inv.allocation_ratio, float)

    def test_a_generation_in_an_entry_is_ignored(self):
        inv = handler._parse_inventory(
            'VCPU', {'total': 8, 'resource_provider_generation': 3})
        self.assertEqual(8, inv.total)

    def test_parse_inventories_keys_by_class(self):
        parsed = handler._parse_inventories({
            'resource_provider_generation': 1,
            'inventories': {'VCPU': {'total': 1}, 'DISK_GB': {'total': 2}}})
        self.assertEqual({'VCPU': 1, 'DISK_GB': 2},
                         {name: inv.total for name, inv in parsed.items()})
        self.assertEqual('DISK_GB', parsed['DISK_GB'].resource_class)


class TestRender(unittest.TestCase):

    def test_one_inventory_with_generation(self):
        body = handler._render_inventory(inv_obj.Inventory('VCPU', total=8),
                                         generation=4)
        self.assertEqual({'total': 8, 'reserved': 0, 'min_unit': 1,
                          'max_unit': 2147483647, 'step_size': 1,
                          'allocation_ratio': 1.0,
                          'resource_provider_generation': 4}, body)

    def test_collection(self):
        body = handler._render_inventories(
            {'VCPU': inv_obj.Inventory('VCPU', total=8)}, 2)
        self.assertEqual(2, body['resource_provider_generation'])
        self.assertNotIn('resource_provider_generation',
                         body['inventories']['VCPU'])

    def test_modified_is_the_newest_timestamp(self):
        old = datetime.datetime(2020, 1, 1)
        new = datetime.datetime(2021, 1, 1)
        modified = handler._modified([
            inv_obj.Inventory('VCPU', total=1, created_at=old),
            inv_obj.Inventory('DISK_GB', total=1, created_at=old,
                              updated_at=new)])
        self.assertEqual(new.replace(tzinfo=datetime.timezone.utc), modified)

    def test_modified_of_nothing_is_no_header(self):
        # No inventory, no Last-Modified: as the reference service.
        self.assertIs(util.NOT_MODIFIED, handler._modified([]))
