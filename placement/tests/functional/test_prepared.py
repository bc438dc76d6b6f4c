"""Prepared statements on PostgreSQL (db.prepared): the rows are the
plain statement's, a statement is prepared once per session and again on
a new one, and a session that lost its statements or whose statement's
columns a schema change altered fails in a way the retry policy reruns,
after which the same statement works.
"""
import unittest

from oslo_db import exception as db_exc
import sqlalchemy as sa

from placement.db import prepared
from placement.db import retry
from placement.tests.functional.fixtures import backends

_T = sa.table('prepared_t', sa.column('id'), sa.column('name'))
_STMT = (sa.select(_T.c.id, _T.c.name)
         .where(_T.c.id.in_(sa.bindparam('ids', expanding=True)),
                _T.c.name != sa.bindparam('name'))
         .order_by(_T.c.id))
_OPTIONS = {prepared.PREPARE_OPTION: True}


class TestPrepared(unittest.TestCase):

    def setUp(self):
        self.engine = backends.fresh_engine(self, 'postgresql', max_retries=0)
        with self.engine.begin() as conn:
            conn.exec_driver_sql(
                'CREATE TABLE prepared_t (id INTEGER PRIMARY KEY, '
                'name VARCHAR(20))')
            conn.exec_driver_sql(
                "INSERT INTO prepared_t VALUES (1, 'a'), (2, 'b'), (3, 'c')")

    def _run(self, conn, ids=(1, 3), name='x'):
        return [tuple(row) for row in conn.execute(
            _STMT, {'ids': list(ids), 'name': name},
            execution_options=_OPTIONS)]

    def _held(self, conn):
        return conn.exec_driver_sql(
            "SELECT count(*) FROM pg_prepared_statements "
            "WHERE left(name, 3) = 'pl_'").scalar()

    def test_prepared_on_second_sight_once_per_session(self):
        with self.engine.connect() as conn:
            self.assertEqual([(1, 'a'), (3, 'c')], self._run(conn))
            self.assertEqual(0, self._held(conn))
            self.assertEqual([(1, 'a'), (3, 'c')], self._run(conn))
            self.assertEqual([(3, 'c')], self._run(conn, name='a'))
            self.assertEqual(1, self._held(conn))
            # Two ids are another text, seen once so far.
            self.assertEqual([(2, 'b')], self._run(conn, ids=(2,)))
            self.assertEqual(1, self._held(conn))
            conn.invalidate()
            conn.rollback()
            # A new session: prepared again.
            self.assertEqual([(1, 'a'), (3, 'c')], self._run(conn))
            self.assertEqual(1, self._held(conn))
            conn.rollback()

    def _failure(self, conn, error_sql):
        """Run the statement after ``error_sql`` (in its own
        transaction); the failure's classification."""
        conn.exec_driver_sql(error_sql)
        conn.commit()
        try:
            self._run(conn)
        except (sa.exc.DBAPIError, db_exc.DBError) as exc:
            conn.rollback()
            return retry.classify(exc)
        self.fail('the prepared statement did not fail')

    def test_lost_statements_rerun_unprepared(self):
        with self.engine.connect() as conn:
            self._run(conn)
            self._run(conn)
            failure = self._failure(conn, 'DEALLOCATE ALL')
            self.assertEqual(retry.Failure.NOT_READY, failure)
            self.assertEqual([(1, 'a'), (3, 'c')], self._run(conn))
            # Never prepared again on this engine.
            self.assertEqual(0, self._held(conn))
            conn.rollback()

    def test_changed_columns_rerun_prepared_again(self):
        with self.engine.connect() as conn:
            self._run(conn)
            self._run(conn)
            failure = self._failure(
                conn, 'ALTER TABLE prepared_t ALTER COLUMN name TYPE TEXT')
            self.assertEqual(retry.Failure.NOT_READY, failure)
            self.assertEqual([(1, 'a'), (3, 'c')], self._run(conn))
            self.assertEqual(1, self._held(conn))
            conn.rollback()
