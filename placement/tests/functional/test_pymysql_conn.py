"""The PyMySQL connection of db.pymysql_conn on a real MariaDB: the pool's
ROLLBACK after a COMMIT (or a ROLLBACK) is not sent, every other ROLLBACK
is; a column definition seen before is handed out again without being
parsed, with the same rows and description as a fresh parse gives; a
statement given to ``then`` goes with the next one, or with none; a
statement kept by ``hold`` goes first in the next one's packet (or with
the COMMIT), and its error fails that statement; the default TLS context
is one per process, shared by the pooled connections.
"""
import ssl
import unittest

import sqlalchemy as sa

from placement.db import pymysql_conn
from placement.tests.functional.fixtures import backends


class TestPyMySQLConnection(unittest.TestCase):

    def setUp(self):
        self.engine = backends.fresh_engine(self, 'mysql', max_retries=0)
        with self.engine.begin() as conn:
            conn.exec_driver_sql(
                'CREATE TABLE conn_t (id INTEGER PRIMARY KEY, '
                'name VARCHAR(20), blob_ VARBINARY(8))')

    def _rollbacks(self, raw):
        with raw.cursor() as cursor:
            cursor.execute("SHOW SESSION STATUS LIKE 'Com_rollback'")
            return int(cursor.fetchone()[1])

    def test_the_connection_is_ours(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            self.assertIsInstance(raw, pymysql_conn.Connection)

    def test_the_default_tls_context_is_shared(self):
        with self.engine.connect() as one, self.engine.connect() as two:
            first = one.connection.dbapi_connection
            second = two.connection.dbapi_connection
            self.assertIsNot(first, second)
            # Made only when read (a server offering TLS): not yet here.
            self.assertIs(pymysql_conn._DEFAULT_TLS, first._ctx)
            self.assertIs(first.ctx, second.ctx)
            # PyMySQL's default: TLS if offered, no certificate check.
            self.assertFalse(first._ssl_required)
            self.assertEqual(ssl.CERT_NONE, first.ctx.verify_mode)
            self.assertFalse(first.ctx.check_hostname)

    def test_tls_options_get_a_context_of_their_own(self):
        mine = pymysql_conn.Connection(defer_connect=True,
                                       ssl_verify_cert=True)
        default = pymysql_conn.Connection(defer_connect=True)
        self.assertTrue(mine._ssl_required)
        self.assertIsNot(mine.ctx, default.ctx)

    def test_no_rollback_after_a_commit_only(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            before = self._rollbacks(raw)
            raw.begin()
            with raw.cursor() as cursor:
                cursor.execute("INSERT INTO conn_t VALUES (1, 'a', 'x')")
            raw.commit()
            raw.rollback()  # skipped: the COMMIT closed the transaction
            self.assertEqual(before, self._rollbacks(raw))
            # The status query above was a command: the next one goes.
            raw.rollback()
            self.assertEqual(before + 1, self._rollbacks(raw))

    def test_a_write_after_a_commit_is_still_rolled_back(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            raw.commit()
            raw.begin()
            with raw.cursor() as cursor:
                cursor.execute("INSERT INTO conn_t VALUES (2, 'b', 'y')")
            raw.rollback()
        with self.engine.connect() as conn:
            self.assertEqual(0, conn.exec_driver_sql(
                'SELECT count(*) FROM conn_t').scalar())

    def test_column_definitions_are_parsed_once(self):
        with self.engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO conn_t VALUES (3, 'c', 'z')")
        stmt = sa.text('SELECT id, name, blob_ FROM conn_t WHERE id = :i')
        pymysql_conn._CACHE.clear()
        seen = []
        for _ in range(2):
            with self.engine.connect() as conn:
                result = conn.execute(stmt, {'i': 3})
                self.assertEqual([(3, 'c', b'z')],
                                 [tuple(row) for row in result])
                raw = conn.connection.dbapi_connection
                seen.append(raw._result)
        first, second = seen
        self.assertEqual(first.description, second.description)
        self.assertEqual(first.converters, second.converters)
        for one, other in zip(first.fields, second.fields):
            self.assertIs(one, other)
        self.assertEqual(['id', 'name', 'blob_'],
                         [field.name for field in first.fields])

    def test_a_trailer_goes_with_the_next_statement(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            raw.then(b"UPDATE conn_t SET name = 'set' WHERE id = 4")
            result = conn.exec_driver_sql(
                "INSERT INTO conn_t VALUES (4, 'd', 'w')")
            self.assertEqual(1, result.rowcount)
            self.assertEqual('set', conn.exec_driver_sql(
                'SELECT name FROM conn_t WHERE id = 4').scalar())
            conn.commit()

    def _assert_insert_fails(self, arm):
        """After ``arm(raw connection, conn)`` sets a failing statement
        beside it, an INSERT fails and leaves no row."""
        with self.engine.connect() as conn:
            arm(conn.connection.dbapi_connection, conn)
            with self.assertRaises(sa.exc.DBAPIError):
                conn.exec_driver_sql(
                    "INSERT INTO conn_t VALUES (5, 'e', 'v')")
            conn.rollback()
            self.assertEqual(0, conn.exec_driver_sql(
                'SELECT count(*) FROM conn_t').scalar())

    def test_a_failing_trailer_fails_its_statement(self):
        self._assert_insert_fails(
            lambda raw, conn: raw.then(b'UPDATE no_such_table SET x = 1'))

    def test_a_trailer_follows_no_later_command(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            raw.then(b'UPDATE no_such_table SET x = 1')
            raw.rollback()  # its statement never went: the trailer goes
            self.assertEqual(0, conn.exec_driver_sql(
                'SELECT count(*) FROM conn_t').scalar())

    def test_a_kept_statement_goes_first_with_the_next_one(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            conn.exec_driver_sql("INSERT INTO conn_t VALUES (6, 'f', 'u')")
            raw.hold()
            kept = conn.exec_driver_sql(
                "UPDATE conn_t SET name = 'kept' WHERE id = 6")
            self.assertFalse(kept.returns_rows)
            raw.then(b"UPDATE conn_t SET blob_ = 'then' WHERE id = 6")
            # The kept UPDATE ran before this read, the trailer after it.
            self.assertEqual([('kept', b'u')], [tuple(row) for row in (
                conn.exec_driver_sql(
                    'SELECT name, blob_ FROM conn_t WHERE id = 6'))])
            self.assertEqual(b'then', conn.exec_driver_sql(
                'SELECT blob_ FROM conn_t WHERE id = 6').scalar())
            conn.rollback()

    def test_a_failing_kept_statement_fails_the_next_one(self):
        def arm(raw, conn):
            raw.hold()
            conn.exec_driver_sql('UPDATE no_such_table SET x = 1')
        self._assert_insert_fails(arm)

    def test_commit_sends_a_kept_statement_rollback_drops_it(self):
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            raw.hold()
            conn.exec_driver_sql("INSERT INTO conn_t VALUES (8, 'h', 's')")
            conn.commit()
            raw.hold()
            conn.exec_driver_sql("INSERT INTO conn_t VALUES (9, 'i', 'r')")
            conn.rollback()
            self.assertEqual([8], [row[0] for row in conn.exec_driver_sql(
                'SELECT id FROM conn_t ORDER BY id')])
