"""db_api.reader and lock_then_read: what each sends, on every backend.

A read that needs one snapshot (the default) runs in a transaction. A
read with ``snapshot=False`` runs each statement on its own where that
costs nothing: on psycopg, autocommit (a client flag) with no BEGIN
before its statement and no ROLLBACK after; on MySQL, a connection of
the ``alone`` engine, in autocommit since it opened, with no ROLLBACK
after; on SQLite a transaction. Every statement is sent on its own (no
connection takes stacked statements). Either way the pooled connection comes back
as it was, whether the read succeeded or failed, and the next read sees
a fresh snapshot.
"""
import unittest

from oslo_db import exception as db_exc
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import in_lists
from placement.db import models
from placement.testing import app as app_fixture
from placement.testing import concurrency

# psycopg's pq.TransactionStatus IDLE / INTRANS
IDLE, INTRANS = 0, 2
DB_ERRORS = (db_exc.DBError, sa.exc.DBAPIError)
TRAITS = sa.text("SELECT COUNT(*) FROM traits WHERE name = 'CUSTOM_X'")


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
        self.admin = sa.create_engine(self.placement.url)
        self.addCleanup(self.admin.dispose)

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

    def _toggle_trait(self, present):
        with self.admin.begin() as other:
            other.execute(sa.text(
                "INSERT INTO traits (name, created_at) "
                "VALUES ('CUSTOM_X', CURRENT_TIMESTAMP)" if not present
                else "DELETE FROM traits WHERE name = 'CUSTOM_X'"))

    def _classes_any_of(self, conn, ids):
        stmt = sa.select(models.resource_classes.c.id).where(
            in_lists.any_of(models.resource_classes.c.id, 'ids')).order_by(
            models.resource_classes.c.id)
        return conn.execute(stmt, {'ids': ids}).scalars().all()

    def test_any_of_selects_the_listed_rows_whatever_their_number(self):
        with db_api.reader(self.db) as conn:
            every = conn.execute(sa.select(
                models.resource_classes.c.id)).scalars().all()
            for ids in ([], every[:1], every[:3], every + [-1] * 100):
                self.assertEqual(sorted(set(ids) & set(every)),
                                 self._classes_any_of(conn, ids))

    def test_both_kinds_read_the_same(self):
        self.assertGreater(self._read()[1], 0)
        self.assertEqual(self._read()[1], self._read(snapshot=False)[1])

    def test_the_next_read_sees_a_new_snapshot(self):
        # One pooled connection: a read whose transaction outlived it
        # would keep its snapshot, and the next read would not see the
        # row.
        for snapshot in (False, True, False):
            with db_api.reader(self.db, snapshot=snapshot) as conn:
                before = conn.execute(TRAITS).scalar()
            self._toggle_trait(before)
            with db_api.reader(self.db, snapshot=False) as conn:
                self.assertEqual(1 - before, conn.execute(TRAITS).scalar())

    def test_a_failed_read_leaves_the_connection_usable(self):
        self._fail_a_read()
        self.assertGreater(self._read(snapshot=False)[1], 0)
        self.assertGreater(self._read()[1], 0)

    def test_lock_then_read_returns_the_reads_rows(self):
        rp = models.resource_providers
        with db_api.transaction(self.db) as conn:
            conn.execute(rp.insert().values(uuid='u1', name='n1',
                                            generation=0))
        read = sa.select(rp.c.name).where(rp.c.uuid == sa.bindparam('u'))
        with db_api.transaction(self.db) as conn:
            self.assertEqual(
                [('n1',)], [tuple(row) for row in db_api.lock_then_read(
                    conn, rp.c.uuid, {'u1', 'absent'}, read, {'u': 'u1'})])
            self.assertEqual([], db_api.lock_then_read(
                conn, rp.c.uuid, set(), read, {'u': 'absent'}))
            # The connection is as usual afterwards.
            self.assertEqual(1, conn.execute(sa.text('SELECT 1')).scalar())


class SQLiteReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'sqlite'


class MySQLReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'mysql'

    def _counters(self, engine=None):
        """{Com_rollback, Com_select, Questions} the (one) pooled
        connection's session of ``engine`` (the reader) ran so far, this
        look's SHOW counted in Questions; its ROLLBACK, if any, comes
        after it."""
        with (engine or self.db.reader).connect() as conn:
            return {name: int(value) for name, value in conn.execute(
                sa.text("SHOW SESSION STATUS WHERE Variable_name IN "
                        "('Com_rollback', 'Com_select', 'Questions')"))}

    def _rollbacks(self):
        return self._counters()['Com_rollback']

    def test_no_connection_takes_stacked_statements(self):
        with self.db.reader.connect() as conn:
            with self.assertRaises(DB_ERRORS):
                conn.execute(sa.text('SELECT 1; SELECT 2'))

    def test_a_read_without_snapshot_sends_each_statement_alone(self):
        # Each statement its own round trip, in autocommit: no ROLLBACK.
        alone = self.db.alone
        self.assertIsNot(alone, self.db.reader)
        before = self._counters(alone)
        for _ in range(3):
            self._read(snapshot=False)
        with db_api.reader(self.db, snapshot=False) as conn:
            conn.execute(sa.text('SELECT 1 -- a trailing comment'))
            self.assertEqual([(2,)], [tuple(row) for row in conn.execute(
                sa.text('SELECT 2;'))])
            self.assertTrue(
                conn.connection.dbapi_connection.get_autocommit())
        after = self._counters(alone)
        self.assertEqual(before['Com_rollback'], after['Com_rollback'])
        self.assertEqual(before['Com_select'] + 5, after['Com_select'])
        # Questions: 5 statements and the second look, nothing else.
        self.assertEqual(before['Questions'] + 5 + 1, after['Questions'])

    def test_only_reads_without_snapshot_run_in_autocommit(self):
        with db_api.reader(self.db) as conn:
            self.assertFalse(
                conn.connection.dbapi_connection.get_autocommit())
        with db_api.transaction(self.db) as conn:
            self.assertFalse(
                conn.connection.dbapi_connection.get_autocommit())

    def test_a_snapshot_read_is_one_transaction_with_one_rollback(self):
        before = self._rollbacks()
        with db_api.reader(self.db) as conn:
            first = conn.execute(TRAITS).scalar()
            self._toggle_trait(first)
            # REPEATABLE READ: the first statement's snapshot.
            self.assertEqual(first, conn.execute(TRAITS).scalar())
        self.assertEqual(before + 1 + 1, self._rollbacks())
        with db_api.reader(self.db) as conn:
            self.assertEqual(1 - first, conn.execute(TRAITS).scalar())

    def test_no_rollback_is_sent_after_a_commit(self):
        before = self._rollbacks()
        with db_api.transaction(self.db) as conn:
            conn.execute(sa.text('SELECT 1'))
        self.assertEqual(before + 1, self._rollbacks())
        # A failed write and a plain connection roll back, once each
        # (and the look above, after its SHOW).
        with self.assertRaises(ZeroDivisionError):
            with db_api.transaction(self.db) as conn:
                conn.execute(sa.text('SELECT 1'))
                1 / 0
        with self.db.writer.connect() as conn:
            conn.execute(sa.text('SELECT 1'))
        self.assertEqual(before + 1 + 1 + 1 + 1, self._rollbacks())

    def test_a_claims_lock_and_read_are_two_statements(self):
        rp = models.resource_providers
        before = self._counters()
        with db_api.transaction(self.db) as conn:
            db_api.lock_then_read(conn, rp.c.uuid, ['u3', "x' OR '1"],
                                  sa.select(rp.c.name), {})
        after = self._counters()
        # The first look's ROLLBACK; the lock, the read and the COMMIT,
        # no ROLLBACK after it; the second look.
        self.assertEqual(before['Questions'] + 1 + 3 + 1,
                         after['Questions'])
        self.assertEqual(before['Com_rollback'] + 1, after['Com_rollback'])

    def test_a_failed_read_sends_its_rollback(self):
        before = self._rollbacks()
        with self.assertRaises(DB_ERRORS):
            with db_api.reader(self.db) as conn:
                conn.execute(sa.text('SELECT * FROM no_such_table'))
        self.assertEqual(before + 1 + 1, self._rollbacks())

    def test_a_failed_read_without_snapshot_needs_no_rollback(self):
        before = self._counters(self.db.alone)['Com_rollback']
        self._fail_a_read()
        self.assertEqual(before,
                         self._counters(self.db.alone)['Com_rollback'])
        self.assertEqual(self._read(), self._read(snapshot=False))

    def test_a_held_lock_fails_the_read_after_it(self):
        rp = models.resource_providers
        with db_api.transaction(self.db) as conn:
            conn.execute(rp.insert().values(uuid='u2', name='n2',
                                            generation=0))
        with self.admin.connect() as holder:
            holder.begin()
            holder.execute(sa.text(
                "SELECT id FROM resource_providers WHERE uuid = 'u2' "
                "FOR UPDATE"))
            with self.assertRaises(DB_ERRORS) as caught:
                with db_api.transaction(self.db) as conn:
                    conn.execute(sa.text(
                        'SET SESSION innodb_lock_wait_timeout = 1'))
                    db_api.lock_then_read(conn, rp.c.uuid, ['u2'],
                                          sa.select(rp.c.name), {})
            holder.rollback()
        self.assertIn('Lock wait timeout', str(caught.exception))


class PostgreSQLReaderTest(_ReaderCase, unittest.TestCase):
    backend_name = 'postgresql'

    def _state(self, dbapi_con):
        return dbapi_con.autocommit, dbapi_con.info.transaction_status

    def test_a_snapshot_read_is_in_a_transaction(self):
        self.assertEqual((False, INTRANS), self._read()[0])

    def test_a_read_without_snapshot_sends_no_begin(self):
        # Idle after its statement: psycopg sent no BEGIN, and has no
        # ROLLBACK to send.
        self.assertEqual((True, IDLE), self._read(snapshot=False)[0])
        self.assertEqual((False, IDLE), self._pooled_state())

    def test_a_failed_read_leaves_the_connection_in_transaction_mode(self):
        self._fail_a_read()
        self.assertEqual((False, IDLE), self._pooled_state())
        self.assertEqual((False, INTRANS), self._read()[0])

    def test_a_broken_connection_is_discarded(self):
        with self.assertRaises(DB_ERRORS):
            with db_api.reader(self.db, snapshot=False) as conn:
                pid = conn.exec_driver_sql('SELECT pg_backend_pid()').scalar()
                with self.admin.begin() as other:
                    other.execute(sa.text('SELECT pg_terminate_backend(:p)'),
                                  {'p': pid})
                conn.execute(sa.text('SELECT 1'))
        self.assertEqual((True, IDLE), self._read(snapshot=False)[0])
        self.assertEqual((False, IDLE), self._pooled_state())

    def test_a_statement_read_again_and_again_is_prepared(self):
        # psycopg 3 forgets what it prepared (and its counts) at every
        # ROLLBACK: a read that went well ends with COMMIT there
        # (driver.end_read), or no statement of a read would ever be
        # prepared (none was, for GET /allocation_candidates).
        if self.db.reader.dialect.driver != 'psycopg':
            self.skipTest('psycopg 3 prepares repeated statements')
        for snapshot in (True, False):
            for _ in range(8):
                self._read(snapshot=snapshot)
            with db_api.reader(self.db, snapshot=snapshot) as conn:
                prepared = conn.execute(sa.text(
                    'SELECT statement FROM pg_prepared_statements'
                )).scalars().all()
            self.assertIn('SELECT COUNT(*) FROM resource_classes', prepared)

    def test_any_of_is_one_prepared_text_for_any_number_of_values(self):
        # psycopg 3 parses again, at every execution, a text of more
        # than 50 placeholders: a list of ids is one array parameter.
        if self.db.reader.dialect.driver != 'psycopg':
            self.skipTest('psycopg 3 prepares repeated statements')
        with db_api.reader(self.db) as conn:
            for count in (64, 100, 3):
                self._classes_any_of(conn, list(range(count)))
            prepared = conn.execute(sa.text(
                'SELECT statement FROM pg_prepared_statements'
            )).scalars().all()
        self.assertEqual(1, len([text for text in prepared
                                 if '= ANY (' in text]))

    def test_prepared_at_the_second_run_on_a_connection(self):
        # Not at the fifth, psycopg's default: a server just started
        # would plan each candidates statement on each pooled connection
        # four times more (driver.PREPARE_THRESHOLD).
        if self.db.reader.dialect.driver != 'psycopg':
            self.skipTest('psycopg 3 prepares repeated statements')
        twice = sa.text('SELECT 2 AS run_twice')
        once = sa.text('SELECT 1 AS run_once')
        with db_api.reader(self.db) as conn:
            for stmt in (twice, twice, once):
                conn.execute(stmt).all()
            prepared = conn.execute(sa.text(
                'SELECT statement FROM pg_prepared_statements'
            )).scalars().all()
        self.assertIn('SELECT 2 AS run_twice', prepared)
        self.assertNotIn('SELECT 1 AS run_once', prepared)
