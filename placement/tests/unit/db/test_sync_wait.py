"""The connect hook that sets wsrep_sync_wait: which refusals it keeps.

The refusals are a DB-API cursor's (a real Galera node that is not ready
cannot be had on demand); the hook only reads their MySQL error number.
"""
import types
import unittest

import pymysql

from placement.db import driver


class _Cursor:
    def __init__(self, error):
        self.error, self.closed = error, False

    def execute(self, statement, args=None):
        if self.error is not None:
            raise self.error

    def close(self):
        self.closed = True


class _Connection:
    def __init__(self, error=None):
        self.cursor_made = _Cursor(error)

    def cursor(self):
        return self.cursor_made


class SyncWaitSetterTest(unittest.TestCase):

    def test_a_server_without_galera_keeps_the_connection(self):
        conn = _Connection(pymysql.err.OperationalError(
            driver.UNKNOWN_VARIABLE, "Unknown system variable"))
        with self.assertLogs('placement.db.driver', 'WARNING'):
            driver._sync_wait_setter(1)(conn, None)
        self.assertTrue(conn.cursor_made.closed)

    def test_a_node_not_ready_fails_the_connection(self):
        # 1047: WSREP has not yet prepared node for application use. A
        # connection kept without causal reads could miss a write made
        # through another node a moment before.
        conn = _Connection(pymysql.err.OperationalError(
            1047, 'WSREP has not yet prepared node for application use'))
        with self.assertRaises(pymysql.err.OperationalError):
            driver._sync_wait_setter(1)(conn, None)
        self.assertTrue(conn.cursor_made.closed)

    def test_accepted(self):
        conn = _Connection()
        driver._sync_wait_setter(1)(conn, None)
        self.assertTrue(conn.cursor_made.closed)

    def test_accepted_is_recorded_on_the_connection(self):
        # backend.writes_read_first reads it.
        record = types.SimpleNamespace(info={})
        driver._sync_wait_setter(1)(_Connection(), record)
        self.assertEqual(1, record.info[driver.SYNC_WAIT_KEY])

    def test_refused_is_not_recorded(self):
        record = types.SimpleNamespace(info={})
        driver._sync_wait_setter(1)(_Connection(pymysql.err.OperationalError(
            driver.UNKNOWN_VARIABLE, 'Unknown system variable')), record)
        self.assertEqual({}, record.info)
