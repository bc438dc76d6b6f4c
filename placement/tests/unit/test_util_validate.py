"""util.validate's compiled check never accepts what jsonschema refuses.

The compiled predicate only short-cuts documents that are certainly valid;
jsonschema still decides (and words the 400 for) everything else. These
tests compare the two on every schema of the API with generated documents,
mostly valid ones with a few wrong pieces.
"""
import importlib
import json
import pkgutil
import random
import unittest

import webob.exc

from placement import microversion
from placement import schemas
from placement import util

UUID = '11111111-2222-3333-4444-555555555555'
ODD_VALUES = [None, True, False, 0, -1, 1, 1.0, 2.5, '', 'abc', '1', '0',
              'VCPU:1', UUID, [], {}, ['a'], {'a': 1}, 2 ** 40, 'x' * 300]
STRINGS = ['', 'a', 'VCPU', 'VCPU:1', 'CUSTOM_X', '1', '0', '10', 'x' * 300,
           UUID, UUID.replace('-', ''), 'in:A,B', '!A', 'none', 'isolate',
           '\u00e9', 'a b']
KEYS = ['resources', 'resources1', 'required_X', 'member_of', 'in_tree',
        'VCPU', 'CUSTOM_A', UUID, 'bad key', 'a' * 70, '']


def _schemas():
    """Every schema constant (and each microversion window of one)."""
    found = []

    def collect(obj, name):
        if isinstance(obj, dict) and ('type' in obj or 'properties' in obj):
            found.append((name, obj))
        elif isinstance(obj, microversion.Windows):
            for start, value in obj._windows:
                collect(value, '%s@%s' % (name, start))

    modules = ['placement.schemas.' + info.name
               for info in pkgutil.iter_modules(schemas.__path__)]
    modules += ['placement.handlers.' + name for name in (
        'resource_provider', 'usage', 'reshaper', 'allocation',
        'aggregate', 'inventory', 'trait')]
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if name.isupper():
                collect(value, '%s.%s' % (module_name, name))
    return found


def _generate(rnd, schema, depth=0):
    """A document shaped by ``schema``, now and then with a wrong part."""
    if depth > 6 or not isinstance(schema, dict):
        return rnd.choice(ODD_VALUES)
    if rnd.random() < 0.08:
        return rnd.choice(ODD_VALUES)
    kind = schema.get('type')
    if isinstance(kind, list):
        kind = rnd.choice(kind)
    if 'enum' in schema:
        return rnd.choice(schema['enum'] + ['zzz'])
    if 'anyOf' in schema:
        return _generate(rnd, rnd.choice(schema['anyOf']), depth + 1)
    if kind == 'object' or 'properties' in schema or \
            'patternProperties' in schema:
        doc = {}
        for key, sub in schema.get('properties', {}).items():
            if key in schema.get('required', []) or rnd.random() < 0.6:
                doc[key] = _generate(rnd, sub, depth + 1)
        for sub in schema.get('patternProperties', {}).values():
            for _ in range(rnd.randint(0, 2)):
                doc[rnd.choice(KEYS)] = _generate(rnd, sub, depth + 1)
        if rnd.random() < 0.1:
            doc['extra'] = 1
        return doc
    if kind == 'array':
        return [_generate(rnd, schema.get('items', {}), depth + 1)
                for _ in range(rnd.randint(0, 3))]
    if kind == 'integer':
        return rnd.choice([0, 1, -1, 5, 2 ** 31, 2 ** 63, 1.0, True])
    if kind == 'number':
        return rnd.choice([0, 1.5, -1, 5, 1e300, True])
    if kind == 'boolean':
        return rnd.choice([True, False, 0])
    if kind == 'string':
        return rnd.choice(STRINGS)
    return rnd.choice(ODD_VALUES)


class CompiledCheckTest(unittest.TestCase):

    def test_every_api_schema_compiles(self):
        missing = [name for name, schema in _schemas()
                   if util._validator(schema)[2] is None]
        self.assertEqual([], missing)

    def test_never_accepts_what_jsonschema_refuses(self):
        rnd = random.Random(20261122)
        accepted = 0
        for name, schema in _schemas():
            _schema, validator, fast = util._validator(schema)
            for _ in range(120):
                doc = _generate(rnd, schema)
                if fast(doc):
                    accepted += 1
                    errors = list(validator.iter_errors(doc))
                    self.assertEqual([], errors, '%s accepted %s' % (
                        name, json.dumps(doc)[:200]))
        self.assertGreater(accepted, 1000)  # the short cut is taken

    def test_doubts_go_to_jsonschema(self):
        schema = {'type': 'object',
                  'properties': {'n': {'type': 'integer', 'minimum': 1}},
                  'additionalProperties': False}
        fast = util._validator(schema)[2]
        self.assertFalse(fast({'n': 2.0}))  # integral float: unsure
        util.validate({'n': 2.0}, schema)   # ... and jsonschema accepts
        self.assertFalse(fast({'n': True}))
        with self.assertRaises(webob.exc.HTTPBadRequest):
            util.validate({'n': True}, schema)

    def test_unknown_keywords_use_jsonschema_alone(self):
        schema = {'type': 'object', 'dependentRequired': {'a': ['b']}}
        self.assertIsNone(util._validator(schema)[2])
        with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
            util.validate({'a': 1}, schema)
        self.assertIn("'b' is a dependency of 'a'", str(caught.exception))

    def test_additional_properties_against_patterns(self):
        schema = {'type': 'object',
                  'properties': {'limit': {'type': 'string'}},
                  'patternProperties': {'^resources[0-9]*$':
                                        {'type': 'string'}},
                  'additionalProperties': False}
        fast = util._validator(schema)[2]
        self.assertTrue(fast({'limit': '1', 'resources': 'x',
                              'resources2': 'y'}))
        self.assertFalse(fast({'resourcesX': 'x'}))
        self.assertFalse(fast({'resources': 1}))

    def test_uuid_format_uses_the_format_checker(self):
        schema = {'type': 'string', 'format': 'uuid'}
        fast = util._validator(schema)[2]
        self.assertTrue(fast(UUID))
        self.assertFalse(fast('not-a-uuid'))
