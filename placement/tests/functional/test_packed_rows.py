"""db.packed_rows.read_rows gives the rows a plain SELECT gives, on every
backend: NULLs, ints and strings that JSON must escape (quotes,
backslashes, non-ASCII), a UNION whose arms fill different columns, and
an answer cut short by MySQL's group_concat_max_len (read again plainly).
"""
import unittest

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import packed_rows
from placement.tests.functional.fixtures import app as app_fixture

TEXTS = ('plain', 'a "quoted" word', 'back\\slash', 'caf\u00e9 \u2603', '')


def _stmt():
    arms = []
    for n, text in enumerate(TEXTS):
        arms.append(sa.select(
            sa.literal(n, sa.Integer).label('n'),
            sa.literal(text, sa.String).label('text'),
            sa.cast(sa.null(), sa.Integer).label('none')))
    arms.append(sa.select(sa.literal(99, sa.Integer).label('n'),
                          sa.cast(sa.null(), sa.String).label('text'),
                          sa.literal(-7, sa.Integer).label('none')))
    return sa.union_all(*arms)


class TestReadRows(unittest.TestCase):

    def test_packed_rows_are_the_plain_rows(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        stmt = _stmt()
        with db_api.reader(placement.db) as conn:
            plain = sorted(tuple(row) for row in conn.execute(stmt))
            self.assertEqual(len(TEXTS) + 1, len(plain))
            found = packed_rows.read_rows(conn, stmt)
            self.assertEqual(plain, sorted(tuple(row) for row in found))
            if conn.dialect.name not in packed_rows.PACKING_DIALECTS:
                return
            conn.exec_driver_sql('SET SESSION group_concat_max_len = 20')
            found = packed_rows.read_rows(conn, stmt)
            self.assertEqual(plain, sorted(tuple(row) for row in found))

    def test_columns_need_names_of_their_own(self):
        # One expression twice: both columns would read the first.
        same = sa.cast(sa.null(), sa.Integer)
        with self.assertRaises(ValueError):
            packed_rows._packed(sa.select(sa.literal(1).label('n'), same,
                                          same))
