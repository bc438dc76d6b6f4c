"""placement-manage capacity, in-process with a real configuration file.

The worked example of nested hosts sharing a disk pool (candidate_trees
E2): the numbers printed are those of objects.fill, a bad shape is the
API's 400 message named by the shape, exit code 1.
"""
import json
import unittest

from placement.cmd import manage
from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import candidate_trees as ct
from placement.tests.functional.db import cli

SHAPES = ('[capacity]\n'
          'shape = small = resources=VCPU:1\n'
          'shape = medium = resources=VCPU:2,MEMORY_MB:256,DISK_GB:100\n'
          'shape = pair = resources1=VCPU:3&resources2=VCPU:3'
          '&group_policy=isolate\n')


class CapacityCommandTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        placement = app_fixture.PlacementApp(backends.SQLiteBackend())
        self.addCleanup(placement.cleanup)
        ct.build(placement.db, ct.E2_NESTED_SHARING)
        self.url = placement.url

    def capacity(self, *argv, extra=SHAPES):
        path = cli.write_config(self, self.url, extra)
        return cli.run(manage.main,
                       ['--config-file', path, 'capacity'] + list(argv))

    def test_every_configured_shape_with_its_top_providers(self):
        code, out, err = self.capacity('--format', 'json')
        self.assertEqual(0, code, err)
        shapes = {s['name']: s for s in json.loads(out)['shapes']}
        self.assertEqual({'small': 32, 'medium': 8, 'pair': 4},
                         {name: s['total'] for name, s in shapes.items()})
        small = shapes['small']
        self.assertEqual((2, 3), (small['trees_with_room'], small['trees']))
        self.assertEqual([('CN1', 16, 'VCPU'), ('CN2', 16, 'VCPU')],
                         [(rp['name'], rp['count'], rp['runs_out_first'])
                          for rp in small['providers']])
        self.assertEqual('MEMORY_MB',
                         shapes['medium']['providers'][0]['runs_out_first'])

    def test_named_shape_and_query_as_a_table(self):
        code, out, err = self.capacity('pair', '--query',
                                       'resources=DISK_GB:500', '--top', '1')
        self.assertEqual(0, code, err)
        self.assertIn('pair (resources1=VCPU:3&resources2=VCPU:3'
                      '&group_policy=isolate): 4 more fit, on 2 of 3 trees',
                      out)
        # The pool is the first root: its own claims come first (2),
        # then 2 on each host's disk.
        self.assertIn('resources=DISK_GB:500 (resources=DISK_GB:500): 6 '
                      'more fit, on 3 of 3 trees', out)
        self.assertEqual((1, 1), (out.count('| CN1'), out.count('| SS1')))

    def test_bad_shape_fails_with_the_api_message(self):
        code, out, err = self.capacity(
            extra='[capacity]\nshape = zero = resources=VCPU:0\n')
        self.assertEqual(1, code)
        self.assertIn('shape zero: Requested resource VCPU requires '
                      'amount >= 1. Got: 0.', err)

    def test_unknown_class_fails_with_the_api_message(self):
        code, out, err = self.capacity('--query', 'resources=CUSTOM_NOPE:1')
        self.assertEqual(1, code)
        self.assertIn('shape resources=CUSTOM_NOPE:1: Invalid resource '
                      'class in resources parameter', err)

    def test_unknown_shape_name(self):
        code, out, err = self.capacity('large')
        self.assertEqual(1, code)
        self.assertIn('no [capacity] shape named large', err)
