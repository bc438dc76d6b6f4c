"""The chunk's root-id term of candidate_sql.in_roots as each database is
sent it: a plain IN list (MySQL, SQLite) or one array (PostgreSQL), never
a boolean compared with 1, which MariaDB cannot answer from the index.
"""
import unittest

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from placement.db import models
from placement.objects import candidate_sql


class _Roots:
    low = high = None

    def __init__(self, ids):
        self.ids = ids


class TestInRoots(unittest.TestCase):

    def _where(self, dialect):
        binds = candidate_sql.Binds()
        rp = models.resource_providers
        term = candidate_sql.in_roots(binds, _Roots((5, 3)), rp.c.id)
        stmt = sa.select(rp.c.id).where(term, rp.c.id > 1)
        self.assertEqual([3, 5], binds.values[candidate_sql.ROOT_IDS])
        return str(stmt.compile(dialect=dialect)).split('WHERE')[1].strip()

    def test_mysql_and_sqlite_get_a_plain_in(self):
        for dialect in (mysql.dialect(), sqlite.dialect()):
            where = self._where(dialect)
            self.assertTrue(where.startswith(
                'resource_providers.id IN (__[POSTCOMPILE_root_ids]) AND'),
                where)
            self.assertNotIn('= 1', where)

    def test_postgresql_gets_one_array(self):
        self.assertTrue(self._where(postgresql.dialect()).startswith(
            'resource_providers.id = any(%(root_ids)s::INTEGER[]) AND'))
