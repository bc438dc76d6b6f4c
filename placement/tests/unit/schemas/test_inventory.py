"""schemas.inventory, schemas.resource_class, schemas.usage: boundaries."""
import unittest

import jsonschema

from placement.schemas import inventory as inv_schema
from placement.schemas import resource_class as rc_schema
from placement.schemas import usage as usage_schema


def valid(schema, data):
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError:
        return False
    return True


class TestInventorySchemas(unittest.TestCase):

    def _put_all(self, **fields):
        return {'resource_provider_generation': 0,
                'inventories': {'VCPU': dict({'total': 1}, **fields)}}

    def test_field_limits(self):
        schema = inv_schema.PUT_INVENTORIES
        for field, low, high in (('total', 1, 2147483647),
                                 ('reserved', 0, 2147483647),
                                 ('min_unit', 1, 2147483647),
                                 ('max_unit', 1, 2147483647),
                                 ('step_size', 1, 2147483647)):
            with self.subTest(field=field):
                self.assertTrue(valid(schema, self._put_all(**{field: low})))
                self.assertTrue(valid(schema,
                                      self._put_all(**{field: high})))
                self.assertFalse(valid(schema,
                                       self._put_all(**{field: low - 1})))
                self.assertFalse(valid(schema,
                                       self._put_all(**{field: high + 1})))

    def test_allocation_ratio_limit(self):
        schema = inv_schema.PUT_INVENTORIES
        self.assertTrue(valid(schema,
                              self._put_all(allocation_ratio=3.40282e38)))
        self.assertFalse(valid(schema,
                               self._put_all(allocation_ratio=3.5e38)))

    def test_class_keys(self):
        # A malformed class name passes the schema; the operation refuses
        # it as an unknown class, as the reference service does.
        schema = inv_schema.PUT_INVENTORIES
        body = {'resource_provider_generation': 0,
                'inventories': {'vcpu': {'total': 1}}}
        self.assertTrue(valid(schema, body))
        body['inventories'] = {'CUSTOM_A_1': {'total': 1}}
        self.assertTrue(valid(schema, body))

    def test_single_put_refuses_a_class(self):
        body = {'resource_provider_generation': 0, 'total': 1}
        self.assertTrue(valid(inv_schema.PUT_INVENTORY, body))
        body['resource_class'] = 'VCPU'
        self.assertFalse(valid(inv_schema.PUT_INVENTORY, body))

    def test_post_needs_a_class_and_not_a_generation(self):
        self.assertTrue(valid(inv_schema.POST_INVENTORY,
                              {'resource_class': 'VCPU', 'total': 1}))
        self.assertFalse(valid(inv_schema.POST_INVENTORY, {'total': 1}))


class TestResourceClassSchema(unittest.TestCase):

    def test_names(self):
        schema = rc_schema.POST_RESOURCE_CLASS
        self.assertTrue(valid(schema, {'name': 'CUSTOM_A'}))
        self.assertTrue(valid(schema, {'name': 'CUSTOM_' + 'A' * 248}))
        self.assertFalse(valid(schema, {'name': 'CUSTOM_' + 'A' * 249}))
        for bad in ('VCPU', 'CUSTOM_', 'CUSTOM_a', 'custom_A', 'CUSTOM_A-B'):
            with self.subTest(name=bad):
                self.assertFalse(valid(schema, {'name': bad}))


class TestUsageSchemas(unittest.TestCase):

    def test_consumer_type_only_from_1_38(self):
        query = {'project_id': 'p', 'consumer_type': 'INSTANCE'}
        self.assertFalse(valid(usage_schema.GET_USAGES_V1_9, query))
        self.assertTrue(valid(usage_schema.GET_USAGES_V1_38, query))

    def test_consumer_type_values(self):
        schema = usage_schema.GET_USAGES_V1_38
        for good in ('INSTANCE', 'all', 'unknown', 'A_1'):
            self.assertTrue(valid(schema, {'project_id': 'p',
                                           'consumer_type': good}))
        for bad in ('instance', 'Unknown', ''):
            self.assertFalse(valid(schema, {'project_id': 'p',
                                            'consumer_type': bad}))

    def test_project_required(self):
        self.assertFalse(valid(usage_schema.GET_USAGES_V1_9,
                               {'user_id': 'u'}))
        self.assertFalse(valid(usage_schema.GET_USAGES_V1_9,
                               {'project_id': ''}))
