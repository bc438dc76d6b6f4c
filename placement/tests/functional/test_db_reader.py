"""db_api.reader: what each kind of read sends, on every backend.

A read that needs one snapshot (the default) runs in a transaction. A
read with ``snapshot=False`` runs without one where the driver switches
autocommit on the client (psycopg2): no BEGIN before its statement, no
ROLLBACK after, and the pooled connection is back in transaction mode
afterwards, whether the read succeeded or failed. On PyMySQL each of
its statements carries its own ROLLBACK (db.pymysql_conn): no read view
outlives the statement, and the pool has no ROLLBACK to send.
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

    def _fail_a_read(self):
        """A read without snapshot whose statement fails."""
        with self.assertRaises(DB_ERRORS):
            with db_api.reader(self.db, snapshot=False) as conn:
                conn.execute(sa.text('SELECT * FROM no_such_table'))

    def _state(self, dbapi_con):
        return None

    def _pooled_state(self):
        with self.db.reader.connect() as conn:
            return self._state(conn.connection.dbapi_connection)

    def test_both_kinds_read_the_same(self):
        self.assertGreater(self._read()[1], 0)
        self.assertEqual(self._read()[1], self._read(snapshot=False)[1])
        self.assertEqual(self._read()[1],
                         self._read(snapshot=db_api.AS_ISOLATED)[1])


class SQLiteReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'sqlite'


class MySQLReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'mysql'

    def _state(self, dbapi_con):
        # (a ROLLBACK still to send, each statement ending itself)
        return not dbapi_con._committed, dbapi_con.end_each

    def test_a_snapshot_read_is_in_a_transaction(self):
        self.assertEqual((True, False), self._read()[0])
        # REPEATABLE READ: a transaction gives its reads one snapshot.
        self.assertEqual((True, False),
                         self._read(snapshot=db_api.AS_ISOLATED)[0])

    def test_a_read_without_snapshot_ends_its_transaction(self):
        # Its statement carried its ROLLBACK: nothing open after it, and
        # autocommit stays off (switching it is a round trip each way).
        with db_api.reader(self.db, snapshot=False) as conn:
            dbapi_con = conn.connection.dbapi_connection
            conn.execute(sa.text('SELECT 1 -- a trailing comment'))
            self.assertEqual((False, True), self._state(dbapi_con))
            self.assertFalse(dbapi_con.get_autocommit())
            self.assertEqual([(2,)], [tuple(row) for row in conn.execute(
                sa.text('SELECT 2;'))])
        self.assertEqual((False, False), self._pooled_state())

    def test_the_next_read_sees_a_new_snapshot(self):
        # One pooled connection: a read without its own ROLLBACK would
        # keep its read view, and the next read would not see the row.
        admin = sa.create_engine(self.placement.url)
        self.addCleanup(admin.dispose)
        stmt = sa.text("SELECT COUNT(*) FROM traits WHERE name = 'CUSTOM_X'")
        for snapshot in (False, True, False):
            with db_api.reader(self.db, snapshot=snapshot) as conn:
                before = conn.execute(stmt).scalar()
            with admin.begin() as other:
                other.execute(sa.text(
                    "INSERT INTO traits (name, created_at) "
                    "VALUES ('CUSTOM_X', NOW())" if not before else
                    "DELETE FROM traits WHERE name = 'CUSTOM_X'"))
            with db_api.reader(self.db, snapshot=False) as conn:
                self.assertEqual(1 - before, conn.execute(stmt).scalar())

    def test_the_last_statement_of_a_snapshot_read_ends_it(self):
        # Both statements read the same snapshot; the second carries the
        # ROLLBACK, so the pool has none left to send.
        admin = sa.create_engine(self.placement.url)
        self.addCleanup(admin.dispose)
        stmt = sa.text("SELECT COUNT(*) FROM traits WHERE name = 'CUSTOM_Y'")
        with db_api.reader(self.db) as conn:
            dbapi_con = conn.connection.dbapi_connection
            before = conn.execute(stmt).scalar()
            with admin.begin() as other:
                other.execute(sa.text(
                    "INSERT INTO traits (name, created_at) "
                    "VALUES ('CUSTOM_Y', NOW())"))
            self.assertTrue(db_api.last_read_statement(conn))
            self.assertEqual(before, conn.execute(stmt).scalar())
            self.assertEqual((False, False), self._state(dbapi_con))
        with db_api.reader(self.db) as conn:
            self.assertEqual(before + 1, conn.execute(stmt).scalar())

    def test_a_failed_read_leaves_the_connection_as_it_was(self):
        self._fail_a_read()
        self.assertEqual((False, False), self._pooled_state())
        self.assertEqual((True, False), self._read()[0])
        self.assertEqual((False, True), self._read(snapshot=False)[0])


class PostgreSQLReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'postgresql'

    def _state(self, dbapi_con):
        return dbapi_con.autocommit, dbapi_con.get_transaction_status()

    def test_a_snapshot_read_is_in_a_transaction(self):
        self.assertEqual((False, INTRANS), self._read()[0])

    def test_a_read_as_isolated_sends_no_begin_at_read_committed(self):
        # Each statement takes its own snapshot at PostgreSQL's default
        # isolation, in a transaction or not: no BEGIN, no ROLLBACK.
        self.assertEqual('READ COMMITTED',
                         self.db.reader.dialect.default_isolation_level)
        self.assertEqual((True, IDLE),
                         self._read(snapshot=db_api.AS_ISOLATED)[0])
        self.assertEqual((False, IDLE), self._pooled_state())

    def test_a_read_as_isolated_is_in_a_transaction_at_repeatable_read(
            self):
        admin = sa.create_engine(self.placement.url,
                                 isolation_level='AUTOCOMMIT')
        self.addCleanup(admin.dispose)
        with admin.connect() as conn:
            conn.exec_driver_sql(
                "ALTER DATABASE %s SET default_transaction_isolation = "
                "'repeatable read'" % sa.engine.make_url(
                    self.placement.url).database)
        db = db_api.create_database(self.placement.conf)
        self.addCleanup(db.dispose)
        with db_api.reader(db, snapshot=db_api.AS_ISOLATED) as conn:
            state = self._state(conn.connection.dbapi_connection)
            conn.execute(sa.text('SELECT 1'))
            self.assertEqual(
                (False, INTRANS),
                (state[0], conn.connection.dbapi_connection
                 .get_transaction_status()))

    def test_a_read_without_snapshot_sends_no_begin(self):
        # Idle after its statement: psycopg2 sent no BEGIN, and has no
        # ROLLBACK to send.
        self.assertEqual((True, IDLE), self._read(snapshot=False)[0])
        self.assertEqual((False, IDLE), self._pooled_state())

    def test_a_failed_read_leaves_the_connection_in_transaction_mode(self):
        self._fail_a_read()
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
