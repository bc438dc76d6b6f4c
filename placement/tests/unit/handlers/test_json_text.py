"""A JSON value encoded once and filled in (handlers.json_text)."""
import unittest

import orjson

from placement.handlers import json_text


class TextTest(unittest.TestCase):

    def _value(self, text, values):
        return orjson.loads(orjson.dumps([text.fill(values)]))[0]

    def test_slots_filled_by_number_not_text_order(self):
        text = json_text.Text({'b': [json_text.slot(1)],
                               'a': {json_text.slot(0): 1}})
        self.assertEqual((1, 0), text.order)
        self.assertEqual({'b': ['x'], 'a': {'y': 1}},
                         self._value(text, ['y', 'x']))

    def test_reordered_keys_cannot_swap_values(self):
        # The candidates' summary: parent in slot 0, root in slot 1,
        # whichever key the body writes first.
        slots = {'parent': json_text.slot(0), 'root': json_text.slot(1)}
        forward = json_text.Text(slots)
        backward = json_text.Text(dict(reversed(list(slots.items()))))
        self.assertNotEqual(forward.order, backward.order)
        for text in (forward, backward):
            self.assertEqual({'parent': 'p', 'root': 'r'},
                             self._value(text, ('p', 'r')))

    def test_a_percent_sign_in_the_value_stays(self):
        text = json_text.Text({'100%s': json_text.slot(0), 'n': '%d'})
        self.assertEqual({'100%s': 'u', 'n': '%d'}, self._value(text, ['u']))

    def test_a_plain_slot_text_goes_in_as_it_is(self):
        text = json_text.Text(['/r/' + json_text.slot(0) + '/x'])
        uuid = '7b1a3a3e-0000-4000-8000-00000000000a'
        self.assertEqual('["/r/%s/x"]' % uuid,
                         orjson.dumps([text.fill([uuid])]).decode()[1:-1])

    def test_a_slot_text_that_needs_escaping_is_escaped(self):
        # Checked where it is filled: never JSON text made by hand.
        text = json_text.Text({'u': json_text.slot(0),
                               'w': 'x' + json_text.slot(1)})
        for odd in ('a",["', 'b\\', 'c\x01\n', '%s %%', '"],7,8,9],["f'):
            self.assertEqual({'u': odd, 'w': 'x' + odd},
                             self._value(text, [odd, odd]), repr(odd))
        self.assertEqual({'u': 'plain', 'w': 'x"'},
                         self._value(text, ['plain', '"']))

    def test_value_slots_take_values_that_orjson_encodes(self):
        text = json_text.Text({'u': json_text.slot(0),
                               'v': [json_text.value_slot(1),
                                     json_text.value_slot(2),
                                     json_text.value_slot(3)],
                               'w': 'x' + json_text.slot(0) + '/y'})
        self.assertEqual((0, 1, 2, 3, 0), text.order)
        for name in ('q"\\', 'a",["', '%s', 'null', '\x01'):
            self.assertEqual(
                {'u': 'id', 'v': [name, None, [7, 'a"']], 'w': 'xid/y'},
                self._value(text, ['id', name, None, [7, 'a"']]))

    def test_an_int_slot_takes_an_int_by_percent_d(self):
        text = json_text.Text({'g': json_text.int_slot(0),
                               'u': json_text.slot(1)})
        self.assertEqual({'g': -12, 'u': 'x'}, self._value(text, [-12, 'x']))
        self.assertEqual({'g': 0, 'u': 'a"'}, self._value(text, [0, 'a"']))
        # Its text is a number's or nothing: never text to escape.
        for odd in ('1, "x": 2', None, [1]):
            with self.assertRaises(TypeError, msg=repr(odd)):
                text.fill([odd, 'x'])

    def test_plain_is_what_orjson_writes_unchanged(self):
        for text in ('', 'aaaa-00', 'caf\u00e9 \u2603 \u65e5', '%s %%',
                     '\u2028', "it's [1, {2}]", '/a/b'):
            self.assertTrue(json_text.plain(text), repr(text))
        for text in ('"', '\\', 'a\x00', '\x1f', '\n', 'caf\u00e9"',
                     '\u00e9\\'):
            self.assertFalse(json_text.plain(text), repr(text))

    def test_plain_and_markers(self):
        self.assertTrue(json_text.plain('aaaa-00 \u00e9'))
        for odd in ('"', '\\', '\x00', '\x1f', '\n'):
            self.assertFalse(json_text.plain('a' + odd), repr(odd))
        self.assertFalse(json_text.has_markers('/placement'))
        self.assertTrue(json_text.has_markers('/p\x01'))
        self.assertTrue(json_text.has_markers('/p\x02'))
        self.assertTrue(json_text.has_markers('/p\x03'))

    def test_no_slot(self):
        text = json_text.Text({'a': [1, None]})
        self.assertEqual((), text.order)
        self.assertEqual({'a': [1, None]}, self._value(text, ()))
        self.assertEqual({'a': [1, None]}, self._value(text, ('unread',)))


class PlainSeenTest(unittest.TestCase):
    """Texts of one answer share the strings their fills found plain."""

    def _decoded(self, fragment):
        return orjson.loads(orjson.dumps(fragment))

    def test_a_string_found_plain_is_remembered_and_filled_as_is(self):
        seen = set()
        text = json_text.Text({'a': json_text.slot(0),
                               'b': json_text.slot(1)}, seen)
        self.assertEqual({'a': 'u1', 'b': 'u2'},
                         self._decoded(text.fill(['u1', 'u2'])))
        self.assertEqual({'u1', 'u2'}, seen)
        other = json_text.Text([json_text.slot(0)], seen)
        self.assertEqual(['u2'], self._decoded(other.fill(['u2'])))

    def test_a_string_needing_escapes_is_escaped_and_never_remembered(self):
        seen = set()
        text = json_text.Text([json_text.slot(0), json_text.slot(1)], seen)
        hostile = 'a"],["forged'
        self.assertEqual(['u1', hostile],
                         self._decoded(text.fill(['u1', hostile])))
        self.assertEqual(set(), seen)
        self.assertEqual(['u1', 'u1'],
                         self._decoded(text.fill(['u1', 'u1'])))
        self.assertEqual({'u1'}, seen)
        # Beside a remembered string, a new hostile one is still checked.
        self.assertEqual(['u1', hostile],
                         self._decoded(text.fill(['u1', hostile])))
        self.assertEqual({'u1'}, seen)

    def test_texts_with_other_slots_do_not_take_the_shortcut(self):
        seen = {'u1'}
        text = json_text.Text({'n': json_text.value_slot(0),
                               'u': json_text.slot(1)}, seen)
        self.assertEqual({'n': 'x"y', 'u': 'u1'},
                         self._decoded(text.fill(['x"y', 'u1'])))


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
