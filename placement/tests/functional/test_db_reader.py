"""db_api.reader: what each kind of read sends, on every backend.

A read that needs one snapshot (the default) runs in a transaction. A
read with ``snapshot=False`` runs without one where the driver switches
autocommit on the client (psycopg2): no BEGIN before its statement, no
ROLLBACK after, and the pooled connection is back in transaction mode
afterwards, whether the read succeeded or failed.
"""
import unittest

from oslo_db import exception as db_exc
import sqlalchemy as sa

from placement.db import api as db_api
from placement.tests.functional.fixtures import app as app_fixture
from placement.tests.functional.fixtures import concurrency

# psycopg2.extensions.TRANSACTION_STATUS_IDLE / _INTRANS
IDLE, INTRANS = 0, 2
DB_ERRORS = (db_exc.DBError, sa.exc.DBAPIError)


class _ReaderCase:
    backend_name = None

    def setUp(self):
        super().setUp()
        backend = concurrency.backend(self.backend_name)
        if backend is None:
            self.skipTest('%s is not available' % self.backend_name)
        self.placement = app_fixture.PlacementApp(
            backend, **{'placement_database.max_pool_size': 1})
        self.addCleanup(self.placement.cleanup)
        self.db = self.placement.db

    def _read(self, **kwargs):
        """(the connection's DB-API state inside the block, the
        statement's answer)."""
        with db_api.reader(self.db, **kwargs) as conn:
            answer = conn.execute(sa.text(
                'SELECT COUNT(*) FROM resource_classes')).scalar()
            return self._state(conn.connection.dbapi_connection), answer

    def _state(self, dbapi_con):
        return None

    def _pooled_state(self):
        with self.db.reader.connect() as conn:
            return self._state(conn.connection.dbapi_connection)

    def test_both_kinds_read_the_same(self):
        self.assertGreater(self._read()[1], 0)
        self.assertEqual(self._read()[1], self._read(snapshot=False)[1])


class SQLiteReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'sqlite'


class MySQLReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'mysql'

    def test_a_read_without_snapshot_is_still_a_transaction(self):
        # Switching PyMySQL's autocommit is a round trip each way.
        with db_api.reader(self.db, snapshot=False) as conn:
            conn.execute(sa.text('SELECT 1'))
            self.assertTrue(conn.in_transaction())
            self.assertFalse(
                conn.connection.dbapi_connection.get_autocommit())


class PostgreSQLReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'postgresql'

    def _state(self, dbapi_con):
        return dbapi_con.autocommit, dbapi_con.get_transaction_status()

    def test_a_snapshot_read_is_in_a_transaction(self):
        self.assertEqual((False, INTRANS), self._read()[0])

    def test_a_read_without_snapshot_sends_no_begin(self):
        # Idle after its statement: psycopg2 sent no BEGIN, and has no
        # ROLLBACK to send.
        self.assertEqual((True, IDLE), self._read(snapshot=False)[0])
        self.assertEqual((False, IDLE), self._pooled_state())

    def test_a_failed_read_leaves_the_connection_in_transaction_mode(self):
        with self.assertRaises(DB_ERRORS):
            with db_api.reader(self.db, snapshot=False) as conn:
                conn.execute(sa.text('SELECT * FROM no_such_table'))
        self.assertEqual((False, IDLE), self._pooled_state())
        self.assertEqual((False, INTRANS), self._read()[0])

    def test_a_broken_connection_is_discarded(self):
        admin = sa.create_engine(self.placement.url)
        self.addCleanup(admin.dispose)
        with self.assertRaises(DB_ERRORS):
            with db_api.reader(self.db, snapshot=False) as conn:
                pid = conn.exec_driver_sql('SELECT pg_backend_pid()').scalar()
                with admin.begin() as other:
                    other.execute(sa.text('SELECT pg_terminate_backend(:p)'),
                                  {'p': pid})
                conn.execute(sa.text('SELECT 1'))
        self.assertEqual((True, IDLE), self._read(snapshot=False)[0])
        self.assertEqual((False, IDLE), self._pooled_state())
