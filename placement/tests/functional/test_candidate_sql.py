"""Rows read packed (objects.candidate_sql.rows) are the rows a plain
SELECT returns, on every backend, and a packed answer cut short by
MySQL's GROUP_CONCAT limit is read again row by row.
"""
import unittest
import uuid

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import _sql
from placement.objects import allocation_candidate as ac_obj
from placement.objects import candidate_sql as sql
from placement.objects import provider_state
from placement.solver import model
from placement.tests.functional import test_candidate_memory
from placement.tests.functional.fixtures import app as app_fixture

_RP = models.resource_providers
_STMT = sa.select(_RP.c.id, _RP.c.uuid, _RP.c.generation,
                  _RP.c.parent_provider_id, _RP.c.root_provider_id)


class TestPackedRows(unittest.TestCase):

    def test_packed_rows_are_the_plain_rows(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        client = test_candidate_memory._Client(placement.app)
        roots = []
        for n in range(20):
            rp_uuid = str(uuid.uuid4())
            body = {'name': 'rp%d' % n, 'uuid': rp_uuid}
            if n % 3 and roots:
                body['parent_provider_uuid'] = roots[-1]
            else:
                roots.append(rp_uuid)
            client.call('POST', '/resource_providers', body)
        key = ('test packed rows',)
        with db_api.reader(placement.db) as conn:
            plain = sorted(tuple(row) for row in conn.execute(_STMT))
            self.assertEqual(20, len(plain))
            self.assertIn(None, [row[3] for row in plain])
            found = sql.rows(conn, key, lambda: _STMT, {},
                             sql.PROVIDER_TYPES)
            self.assertEqual(plain, sorted(tuple(row) for row in found))
            if conn.dialect.name not in sql.PACKING_DIALECTS:
                return
            # Too short a GROUP_CONCAT: the packed answer is incomplete,
            # and the rows are read again one by one.
            conn.exec_driver_sql('SET SESSION group_concat_max_len = 100')
            try:
                count, text = conn.execute(
                    sql.cached(('packed',) + key,
                               lambda: sql._packed(
                                   _STMT, sql.PROVIDER_TYPES))).one()
                self.assertEqual(20, count)
                self.assertIsNone(
                    _unpacked(count, text, sql.PROVIDER_TYPES))
                found = sql.rows(conn, key, lambda: _STMT, {},
                                 sql.PROVIDER_TYPES)
                self.assertEqual(plain, sorted(tuple(row) for row in found))
            finally:
                conn.exec_driver_sql(
                    'SET SESSION group_concat_max_len = %d'
                    % db_api.GROUP_CONCAT_MAX_LEN)


def _unpacked(count, text, types):
    return _sql.unpack_json_rows(count, text, len(types))


class TestUnpacked(unittest.TestCase):
    """The parsing of a packed answer, without a database."""

    def test_no_rows(self):
        self.assertEqual([], _unpacked(0, None, (sql.INT,)))

    def test_columns_and_nulls(self):
        types = (sql.INT, sql.TEXT, sql.INT_OR_NONE)
        self.assertEqual([[1, 'a', None], [2, None, 7]],
                         _unpacked(2, '[1,"a",null],[2,null,7]', types))

    def test_binary_answer(self):
        self.assertEqual([[1, 'a,b']],
                         _unpacked(1, b'[1,"a,b"]', (sql.INT, sql.TEXT)))

    def test_incomplete_answer(self):
        types = (sql.INT, sql.INT)
        self.assertIsNone(_unpacked(2, None, types))
        # Cut short by group_concat_max_len: no longer JSON.
        self.assertIsNone(_unpacked(2, '[1,2],[3,', types))
        self.assertIsNone(_unpacked(3, '[1,2],[3,4]', types))

    def test_unescaped_text_that_could_be_misread(self):
        types = (sql.INT, sql.TEXT)
        # A quote inside a value: the row has the wrong width, or the
        # text is no JSON at all.
        self.assertIsNone(_unpacked(1, '[1,"a","b"]', types))
        self.assertIsNone(_unpacked(1, '[1,"a"b"]', types))
        # A backslash would be read as an escape: never trusted.
        self.assertIsNone(_unpacked(1, '[1,"a\\"]', types))
        self.assertIsNone(_unpacked(1, '[1,"\\u0041"]', types))


class TestTreeTerms(unittest.TestCase):
    """Which form the required traits of a tree take (no database)."""

    def _trace(self, roots):
        groups = tuple(
            model.RequestGroup(suffix=suffix, resources=(('VCPU', 1),),
                               traits=model.TraitFilter(required=names))
            for suffix, names in (('_A', frozenset({'T1', 'T2'})),
                                  ('_B', frozenset({'T3'}))))
        query = model.CandidateQuery(groups=groups, group_policy='none')
        lookups = ac_obj._Lookups(
            {'VCPU': 0}, {0: 'VCPU'}, {'T1': 1, 'T2': 2, 'T3': 3}, {},
            frozenset(), frozenset(), {}, True, provider_state.Store())
        binds = sql.Binds()
        sql.in_scope(binds, query, lookups, roots)
        return binds.trace

    def test_every_root_checks_all_traits_in_one_grouped_subquery(self):
        trace = self._trace(ac_obj._Roots())
        self.assertEqual(1, trace.count('tree_has_all'))
        self.assertFalse([tag for tag in trace
                          if tag.startswith('tree_has ')])

    def test_a_chunk_of_roots_checks_each_trait_on_its_own(self):
        # Grouping would read the links of every tree, whatever the
        # chunk: a limit would no longer bound the work.
        trace = self._trace(ac_obj._Roots(low=10, high=20))
        self.assertNotIn('tree_has_all', trace)
        self.assertEqual(3, len([tag for tag in trace
                                 if tag.startswith('tree_has ')]))
