"""The candidates body, encoded a chunk at a time, is the JSON of the
whole answer."""
import json
import unittest

from placement.handlers import allocation_candidate as handler


class TestEncodedItems(unittest.TestCase):

    def test_list_and_dict_at_every_chunk_boundary(self):
        size = handler.RENDER_CHUNK
        for count in (0, 1, size - 1, size, size + 1, 2 * size + 3):
            items = [('u%d' % i, i) for i in range(count)]
            with self.subTest(count=count):
                as_list = []
                handler._encoded_items(
                    as_list, items,
                    lambda chunk: [{'n': n} for _, n in chunk], b'[')
                self.assertEqual([{'n': n} for _, n in items],
                                 json.loads(b''.join(as_list)))
                as_dict = []
                handler._encoded_items(
                    as_dict, items,
                    lambda chunk: {u: [n] for u, n in chunk}, b'{')
                self.assertEqual({u: [n] for u, n in items},
                                 json.loads(b''.join(as_dict)))
