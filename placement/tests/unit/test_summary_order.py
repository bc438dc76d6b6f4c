"""provider_summaries in MariaDB's order on a small inventories table
(objects/summary_order): upstream's E10 answer lists the PFs (with
inventory) before CN, NIC1 and NIC2 (without) while the table holds at
most six rows, and every provider in id order from the seventh row on.
"""
import types

import testtools

from placement.objects import summary_order


class _Conn:
    def __init__(self, dialect, provider_ids):
        self.dialect = types.SimpleNamespace(name=dialect)
        self.provider_ids = provider_ids

    def execute(self, stmt):
        limit = stmt._limit_clause.value
        return types.SimpleNamespace(scalars=lambda: types.SimpleNamespace(
            all=lambda: self.provider_ids[:limit]))


def _entries(counts):
    return {rp_id: types.SimpleNamespace(inventories=(None,) * count)
            for rp_id, count in counts.items()}


def _ordered(order, ids):
    return sorted(ids, key=lambda rp_id: order.get(rp_id,
                                                   summary_order.NO_ROW))


class TestSmallTableOrder(testtools.TestCase):

    def test_e10_rows_then_providers_without(self):
        # CN 1, NIC1 2, NIC2 3 without inventory; PFs 4-7, one row each,
        # PF 6's row written first.
        conn = _Conn('mysql', [6, 4, 5, 7])
        order = summary_order.small_table_order(
            conn, _entries({1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1}))
        self.assertEqual([6, 4, 5, 7, 1, 2, 3],
                         _ordered(order, range(1, 8)))

    def test_first_row_of_a_provider_places_it(self):
        conn = _Conn('mysql', [2, 3, 2])
        order = summary_order.small_table_order(
            conn, _entries({1: 0, 2: 2, 3: 1}))
        self.assertEqual([2, 3, 1], _ordered(order, [1, 2, 3]))

    def test_seven_rows_read_is_id_order(self):
        conn = _Conn('mysql', [])
        self.assertIsNone(summary_order.small_table_order(
            conn, _entries({1: 0, 2: 4, 3: 3})))

    def test_seven_rows_in_the_table_is_id_order(self):
        # Rows of trees outside the answer count too.
        conn = _Conn('mysql', [2, 3, 9, 9, 9, 9, 9])
        self.assertIsNone(summary_order.small_table_order(
            conn, _entries({1: 0, 2: 1, 3: 1})))

    def test_other_databases_keep_id_order(self):
        for dialect in ('postgresql', 'sqlite'):
            self.assertIsNone(summary_order.small_table_order(
                _Conn(dialect, [2]), _entries({1: 0, 2: 1})))
