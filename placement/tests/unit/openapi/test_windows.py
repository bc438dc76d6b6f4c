"""Version windows: cutting value tables, tagging, and the projection of
a document onto one microversion."""
import unittest

from placement import microversion
from placement.openapi import windows

V = microversion.parse_version
KEY = windows.KEY


class TestSplit(unittest.TestCase):

    def test_a_table_is_cut_to_the_window(self):
        table = [('1.0', 'a'), ('1.8', 'b'), ('1.12', 'c')]
        self.assertEqual([(V('1.5'), V('1.7'), 'a'),
                          (V('1.8'), V('1.11'), 'b'),
                          (V('1.12'), V('1.13'), 'c')],
                         windows.split(table, V('1.5'), V('1.13')))

    def test_equal_neighbours_merge(self):
        table = [('1.0', 'a'), ('1.8', 'a'), ('1.12', 'c')]
        self.assertEqual([(V('1.0'), V('1.11'), 'a'),
                          (V('1.12'), microversion.MAX_VERSION, 'c')],
                         windows.split(table, *windows.FULL))

    def test_a_microversion_windows_table(self):
        table = microversion.Windows(('1.10', 'x'), ('1.16', 'y'))
        self.assertEqual([(V('1.20'), V('1.39'), 'y')],
                         windows.split(table, V('1.20'), V('1.39')))

    def test_one_value_for_every_version(self):
        self.assertEqual([(V('1.2'), V('1.6'), {'type': 'string'})],
                         windows.split({'type': 'string'}, V('1.2'),
                                       V('1.6')))

    def test_the_version_before(self):
        self.assertEqual(V('1.9'), windows.previous(V('1.10')))
        self.assertRaises(ValueError, windows.previous, V('1.0'))


class TestAlternatives(unittest.TestCase):

    def test_one_piece_is_the_schema_itself(self):
        self.assertEqual({'type': 'string'}, windows.alternatives(
            [(V('1.0'), V('1.39'), {'type': 'string'})]))

    def test_pieces_are_tagged_branches(self):
        self.assertEqual(
            {'anyOf': [{KEY: {'min': '1.0', 'max': '1.18'}, 'const': 1},
                       {KEY: {'min': '1.19', 'max': '1.39'}, 'const': 2}]},
            windows.alternatives([(V('1.0'), V('1.18'), {'const': 1}),
                                  (V('1.19'), V('1.39'), {'const': 2})]))


def _document():
    return {
        'openapi': '3.1.0',
        'info': {'title': 't', 'version': '1.39'},
        'paths': {
            '/a': {'get': {KEY: {'min': '1.0', 'max': '1.39'},
                           'parameters': [
                               {'name': 'p', KEY: {'min': '1.5',
                                                   'max': '1.39'}},
                               {'name': 'q', windows.REQUIRED_KEY: {
                                   'min': '1.0', 'max': '1.4'}}]}},
            '/b': {'get': {KEY: {'min': '1.10', 'max': '1.39'}}},
        },
        'components': {
            'parameters': {'OpenStackAPIVersion': {'name': 'v'}},
            'schemas': {
                'S': {'description': 'kept', 'anyOf': [
                    {KEY: {'min': '1.0', 'max': '1.4'}, 'const': 1},
                    {KEY: {'min': '1.5', 'max': '1.39'}, 'const': 2}]},
                'Late': {'anyOf': [
                    {KEY: {'min': '1.30', 'max': '1.39'}, 'const': 3}]},
            },
        },
    }


class TestAtVersion(unittest.TestCase):

    def test_parts_outside_the_version_are_removed(self):
        doc = windows.at_version(_document(), '1.4')
        self.assertEqual(['/a'], list(doc['paths']))
        self.assertEqual(['q'], [p['name'] for p in
                                 doc['paths']['/a']['get']['parameters']])
        self.assertNotIn('Late', doc['components']['schemas'])

    def test_a_version_anyof_becomes_its_branch(self):
        doc = windows.at_version(_document(), '1.5')
        self.assertEqual({'description': 'kept', 'const': 2},
                         doc['components']['schemas']['S'])

    def test_required_follows_its_window(self):
        def required(version):
            doc = windows.at_version(_document(), version)
            return [p['required'] for p in
                    doc['paths']['/a']['get']['parameters']
                    if p['name'] == 'q']
        self.assertEqual([True], required('1.4'))
        self.assertEqual([False], required('1.5'))

    def test_the_version_header_is_fixed(self):
        doc = windows.at_version(_document(), '1.30')
        self.assertEqual('1.30', doc['info']['version'])
        self.assertEqual(
            {'name': 'v', 'required': True,
             'schema': {'type': 'string', 'const': 'placement 1.30'}},
            doc['components']['parameters']['OpenStackAPIVersion'])

    def test_the_input_is_not_changed(self):
        before = _document()
        windows.at_version(before, '1.5')
        self.assertEqual(_document(), before)
