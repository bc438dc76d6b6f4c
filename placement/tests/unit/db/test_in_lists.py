"""IN lists of one bind parameter per value (db.in_lists)."""
import unittest

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

from placement.db import in_lists

_TABLE = sa.Table('things', sa.MetaData(),
                  sa.Column('id', sa.Integer, primary_key=True),
                  sa.Column('name', sa.String(255)))


class SizeTest(unittest.TestCase):

    def test_powers_of_two(self):
        self.assertEqual([0, 1, 2, 4, 4, 8, 8, 8, 8, 16],
                         [in_lists.size(range(n)) for n in range(10)])

    def test_few_sizes_cover_many_lengths(self):
        sizes = {in_lists.size(range(n)) for n in range(1, 1025)}
        self.assertEqual(11, len(sizes))


class BindTest(unittest.TestCase):

    def test_padded_with_the_last_value(self):
        self.assertEqual({'n_0': 'a', 'n_1': 'b', 'n_2': 'c', 'n_3': 'c'},
                         in_lists.bind('n', ['a', 'b', 'c']))

    def test_nothing_for_no_value(self):
        self.assertEqual({}, in_lists.bind('n', []))

    def test_bind_all_merges(self):
        self.assertEqual({'a_0': 1, 'b_0': 'x', 'b_1': 'y'},
                         in_lists.bind_all({'a': [1], 'b': ['x', 'y']}))

    def test_parameters_match_the_statement(self):
        for values in ([3], [3, 1, 2], list(range(9))):
            stmt = sa.select(_TABLE.c.id).where(
                in_lists.in_(_TABLE.c.id, 'ids', in_lists.size(values)))
            names = set(stmt.compile().params)
            self.assertEqual(names, set(in_lists.bind('ids', values)))


class OnADatabaseTest(unittest.TestCase):
    """The padded list selects what the list selects, once each."""

    def setUp(self):
        super().setUp()
        self.engine = sa.create_engine('sqlite://')
        _TABLE.metadata.create_all(self.engine)
        with self.engine.begin() as conn:
            conn.execute(_TABLE.insert(), [
                {'id': i, 'name': 'n%d' % i} for i in range(1, 11)])
        self.addCleanup(self.engine.dispose)

    def _names(self, values):
        stmt = sa.select(_TABLE.c.name).where(in_lists.in_(
            _TABLE.c.name, 'names', in_lists.size(values))).order_by(
            _TABLE.c.id)
        with self.engine.connect() as conn:
            return conn.execute(stmt, in_lists.bind('names', values)
                                ).scalars().all()

    def test_rows_once_each(self):
        self.assertEqual(['n1', 'n2', 'n3'],
                         self._names(['n1', 'n2', 'n3']))

    def test_unknown_values_select_nothing(self):
        self.assertEqual(['n4'], self._names(['n4', 'zz', 'zzz']))

    def test_empty_list_selects_nothing(self):
        self.assertEqual([], self._names([]))


class AnyOfTest(unittest.TestCase):
    """One parameter for a list of any length (every backend:
    functional.test_db_reader)."""

    def _sql(self, dialect):
        return str(sa.select(_TABLE.c.id).where(
            in_lists.any_of(_TABLE.c.id, 'ids')).compile(dialect=dialect))

    def test_an_array_on_postgresql(self):
        self.assertIn('things.id = ANY (%(ids)s::INTEGER[])',
                      self._sql(postgresql.psycopg.dialect()))

    def test_an_expanding_list_elsewhere(self):
        text = self._sql(mysql.dialect())
        self.assertIn('things.id IN (__[POSTCOMPILE_ids])', text)
        self.assertNotIn('= 1', text)

    def test_on_sqlite(self):
        engine = sa.create_engine('sqlite://')
        self.addCleanup(engine.dispose)
        _TABLE.metadata.create_all(engine)
        stmt = sa.select(_TABLE.c.id).where(
            in_lists.any_of(_TABLE.c.id, 'ids')).order_by(_TABLE.c.id)
        with engine.begin() as conn:
            conn.execute(_TABLE.insert(), [{'id': i} for i in range(1, 6)])
            for ids in ([], [2], [5, 1, 9], list(range(100))):
                self.assertEqual(sorted(set(ids) & set(range(1, 6))),
                                 conn.execute(stmt, {'ids': ids}
                                              ).scalars().all())
