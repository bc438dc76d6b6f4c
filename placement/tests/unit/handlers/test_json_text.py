"""A JSON value encoded once and filled in (handlers.json_text)."""
import unittest

import orjson

from placement.handlers import json_text


class TextTest(unittest.TestCase):

    def _value(self, text, values):
        return orjson.loads(orjson.dumps([text.fill(values)]))[0]

    def test_slots_filled_in_their_text_order(self):
        text = json_text.Text({'b': [json_text.slot(1)],
                               'a': {json_text.slot(0): 1}})
        self.assertEqual((1, 0), text.order)
        self.assertEqual({'b': ['x'], 'a': {'y': 1}},
                         self._value(text, ['x', 'y']))

    def test_a_percent_sign_in_the_value_stays(self):
        text = json_text.Text({'100%s': json_text.slot(0), 'n': '%d'})
        self.assertEqual({'100%s': 'u', 'n': '%d'}, self._value(text, ['u']))

    def test_value_slots_take_json_text(self):
        text = json_text.Text({'u': json_text.slot(0),
                               'v': [json_text.value_slot(1),
                                     json_text.value_slot(2)],
                               'w': 'x' + json_text.slot(0) + '/y'})
        self.assertEqual((0, 1, 2, 0), text.order)
        self.assertEqual(
            {'u': 'id', 'v': ['q"\\', None], 'w': 'xid/y'},
            self._value(text, ['id', orjson.dumps('q"\\').decode(),
                               'null', 'id']))

    def test_plain_and_markers(self):
        self.assertTrue(json_text.plain('aaaa-00 \u00e9'))
        for odd in ('"', '\\', '\x00', '\x1f', '\n'):
            self.assertFalse(json_text.plain('a' + odd), repr(odd))
        self.assertFalse(json_text.has_markers('/placement'))
        self.assertTrue(json_text.has_markers('/p\x01'))
        self.assertTrue(json_text.has_markers('/p\x02'))

    def test_no_slot(self):
        text = json_text.Text({'a': [1, None]})
        self.assertEqual((), text.order)
        self.assertEqual({'a': [1, None]}, self._value(text, ()))


class FormsTest(unittest.TestCase):

    def test_plain_copies_then_one_text_per_key(self):
        forms = json_text.Forms()
        made = []

        def encode(name):
            made.append(name)
            return json_text.Text([name, json_text.slot(0)])

        def text(key):
            return forms.get(key) or forms.after_copy(key, encode, key)
        for _ in range(json_text.PLAIN_COPIES):
            self.assertIsNone(text('a'))
        self.assertIsNone(text('b'))
        first = text('a')
        self.assertIs(first, text('a'))
        self.assertEqual(['a'], made)
        self.assertEqual(['a', 'u'],
                         orjson.loads(orjson.dumps(first.fill(['u']))))
