"""schemas.allocation and schemas.reshaper: each version's boundaries."""
import copy
import unittest
import uuid

import jsonschema

from placement.schemas import allocation as schema
from placement.schemas import reshaper as reshaper_schema

RP = str(uuid.uuid4())


def valid(schema_, data):
    try:
        jsonschema.validate(data, schema_,
                            format_checker=jsonschema.FormatChecker())
    except jsonschema.ValidationError:
        return False
    return True


def dict_body(**extra):
    body = {'allocations': {RP: {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u'}
    body.update(extra)
    return body


class TestPutSchemas(unittest.TestCase):

    def test_every_published_schema_is_a_valid_schema(self):
        for name in dir(schema):
            if name.startswith(('PUT_', 'POST_', 'CONSUMER_V')):
                jsonschema.Draft4Validator.check_schema(getattr(schema, name))
        for name in dir(reshaper_schema):
            if name.startswith('POST_'):
                jsonschema.Draft4Validator.check_schema(
                    getattr(reshaper_schema, name))

    def test_building_a_version_leaves_the_previous_one_alone(self):
        before = copy.deepcopy(schema.PUT_ALLOCATIONS_V1_12)
        schema._extend(schema.PUT_ALLOCATIONS_V1_12,
                       properties={'x': {}}, required=['x'])
        self.assertEqual(before, schema.PUT_ALLOCATIONS_V1_12)
        self.assertNotIn('consumer_generation',
                         schema.PUT_ALLOCATIONS_V1_12['properties'])

    def test_list_form_project_user(self):
        body = {'allocations': [{'resource_provider': {'uuid': RP},
                                 'resources': {'VCPU': 1}}]}
        self.assertTrue(valid(schema.PUT_ALLOCATIONS_V1_0, body))
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_8, body))
        body.update(project_id='p', user_id='u')
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_0, body))
        self.assertTrue(valid(schema.PUT_ALLOCATIONS_V1_8, body))

    def test_dict_form_and_empty_allocations(self):
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_8, dict_body()))
        self.assertTrue(valid(schema.PUT_ALLOCATIONS_V1_12, dict_body()))
        empty = dict_body(allocations={})
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_12, empty))
        empty['consumer_generation'] = None
        self.assertTrue(valid(schema.PUT_ALLOCATIONS_V1_28, empty))

    def test_generation_mappings_type(self):
        gen = dict_body(consumer_generation=1)
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_12, gen))
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_28, dict_body()))
        mapped = dict_body(consumer_generation=1, mappings={'_a': [RP]})
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_28, mapped))
        self.assertTrue(valid(schema.PUT_ALLOCATIONS_V1_34, mapped))
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_38, mapped))
        typed = dict(mapped, consumer_type='INSTANCE')
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_34, typed))
        self.assertTrue(valid(schema.PUT_ALLOCATIONS_V1_38, typed))
        self.assertFalse(valid(schema.PUT_ALLOCATIONS_V1_38,
                               dict(typed, consumer_type='instance')))

    def test_amount_limits(self):
        # No maximum: a huge amount fails the capacity check (409), as in
        # the reference service.
        for amount, ok in ((0, False), (1, True), (2147483647, True),
                           (2147483648, True), (10 ** 30, True),
                           (1.5, False)):
            body = dict_body()
            body['allocations'][RP]['resources']['VCPU'] = amount
            self.assertEqual(ok, valid(schema.PUT_ALLOCATIONS_V1_12, body),
                             amount)


class TestPostSchemas(unittest.TestCase):

    def test_post_needs_a_consumer_and_allows_empty_allocations(self):
        self.assertFalse(valid(schema.POST_ALLOCATIONS_V1_13, {}))
        consumer = str(uuid.uuid4())
        self.assertTrue(valid(schema.POST_ALLOCATIONS_V1_13,
                              {consumer: dict_body(allocations={})}))
        self.assertFalse(valid(schema.POST_ALLOCATIONS_V1_13,
                               {'not-a-uuid': dict_body()}))

    def test_reshaper_allocations_may_be_empty_inventories_not(self):
        inventories = {RP: {'resource_provider_generation': 0,
                            'inventories': {}}}
        self.assertTrue(valid(reshaper_schema.POST_RESHAPER_V1_30,
                              {'inventories': inventories,
                               'allocations': {}}))
        self.assertFalse(valid(reshaper_schema.POST_RESHAPER_V1_30,
                               {'inventories': {}, 'allocations': {}}))


if __name__ == '__main__':
    unittest.main()
