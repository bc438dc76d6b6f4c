"""The /traits query filters."""
import unittest

import webob.exc

from placement.handlers import trait as handler


class NameFilterTest(unittest.TestCase):

    def test_in(self):
        self.assertEqual({'names': frozenset({'A', 'B'})},
                         handler.parse_name_filter('in:A,B'))

    def test_startswith(self):
        self.assertEqual({'prefix': 'CUSTOM_'},
                         handler.parse_name_filter('startswith:CUSTOM_'))

    def test_unknown_operator_filters_nothing(self):
        self.assertEqual({}, handler.parse_name_filter('foo:bar'))

    def test_no_operator_is_400(self):
        with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
            handler.parse_name_filter('CUSTOM_A')
        self.assertIn('Got: "CUSTOM_A"', str(caught.exception))


class AssociatedTest(unittest.TestCase):

    def test_true_and_false_any_case(self):
        self.assertTrue(handler.parse_associated('TRUE'))
        self.assertFalse(handler.parse_associated('False'))

    def test_anything_else_is_400(self):
        with self.assertRaises(webob.exc.HTTPBadRequest):
            handler.parse_associated('yes')
