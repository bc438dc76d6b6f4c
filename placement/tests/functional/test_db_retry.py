"""The retry policy against real failures (MariaDB and PostgreSQL).

The app reaches its database through a TCP proxy the test controls
(db_retry_case). Each test breaks something for real: a row lock held
by another connection (lock wait timeout, deadlock), the server going
away or freezing (the proxy stopped or frozen), a connection KILLed
mid-transaction or while it rests in the pool. Then it checks the
answer and the stored rows: retried failures are invisible to the
client, a write is stored exactly once, and no server reachable means
503 with Retry-After and a code, never 500. What happens around a
COMMIT is test_db_commit_lost's.

No test depends on how fast the machine is: a retry that must succeed
has a budget far beyond its need (3 s once ran out on a busy machine);
a budget that must run out is seen to by the order of events (answered
while the server still held the request back), else a bound of ten.
"""
import threading
import time
import unittest
import uuid

import sqlalchemy as sa

from placement.db import engine as db_engine
from placement import exception
from placement.testing import lock_waits
from placement.tests.functional import db_retry_case as case


class _RetryCase(case.RetryCase):

    # --- lost races ------------------------------------------------------

    def _short_lock_waits(self):
        sql = ('SET SESSION innodb_lock_wait_timeout = 1'
               if self.backend_name == 'mysql'
               else "SET lock_timeout = '500ms'")

        @sa.event.listens_for(self.db.writer, 'checkout')
        def short_waits(dbapi_con, con_record, con_proxy):
            cursor = dbapi_con.cursor()
            cursor.execute(sql)
            cursor.close()

    def test_lock_wait_timeout_on_delete_allocations_is_retried(self):
        consumer = self._claim(self._provider())
        self._short_lock_waits()
        with self.admin.connect() as holder:
            holder.begin()
            holder.execute(sa.text(
                'SELECT id FROM allocations WHERE consumer_id = :c '
                'FOR UPDATE'), {'c': consumer})
            thread, result = self._in_thread(lambda: self._send(
                'DELETE', '/allocations/%s' % consumer))
            # Hold the lock until the first attempt has timed out on it
            # (a fixed sleep lost the race on a busy machine).
            deadline = time.monotonic() + case.PATIENCE
            while not self.retries and time.monotonic() < deadline:
                time.sleep(0.05)
            holder.rollback()
        thread.join()
        self.assertEqual(204, result['value'][0], result['value'])
        self._assert_retried('lost race', 'Lock wait timeout'
                             if self.backend_name == 'mysql'
                             else 'lock timeout')
        self.assertEqual((None, []), self._stored(consumer))

    def test_deadlock_on_delete_allocations_is_retried(self):
        consumer = self._claim(self._provider())
        with self.admin.connect() as holder:
            holder.begin()
            # Many changed rows make the holder the heavier transaction,
            # so that MariaDB picks the DELETE as the deadlock victim.
            holder.execute(sa.text('UPDATE traits SET updated_at = '
                                   'CURRENT_TIMESTAMP'))
            holder.execute(sa.text(
                'SELECT id FROM consumers WHERE uuid = :c FOR UPDATE'),
                {'c': consumer})
            thread, result = self._in_thread(lambda: self._send(
                'DELETE', '/allocations/%s' % consumer))
            # (A fixed half second is a guess a busy machine can beat.)
            lock_waits.wait_for_a_lock_wait(self.admin, case.PATIENCE)
            # The DELETE holds the allocation rows and waits for the
            # consumer row; asking for the allocation rows closes the
            # cycle.
            holder.execute(sa.text(
                'UPDATE allocations SET used = used WHERE consumer_id = :c'),
                {'c': consumer})
            holder.rollback()
        thread.join()
        self.assertEqual(204, result['value'][0], result['value'])
        self._assert_retried('lost race', 'Deadlock'
                             if self.backend_name == 'mysql'
                             else 'deadlock detected')
        self.assertEqual((None, []), self._stored(consumer))

    # --- no server -------------------------------------------------------

    def test_refused_connections_answer_503_then_recover(self):
        rp_uuid = self._provider()
        app, _ = self._app(self._proxied(), **case.SHORT)
        self.proxy.stop()
        for method, path, body in (
                ('GET', '/resource_providers', None),
                ('PUT', '/allocations/%s' % uuid.uuid4(),
                 case.claim_body(rp_uuid))):
            start = time.monotonic()
            self._assert_503(case.send(app, method, path, body))
            # Nothing but the budget ends these retries.
            self.assertLess(time.monotonic() - start, case.PATIENCE)
        self.proxy.start()
        status, _, body = self._send('GET', '/resource_providers/%s'
                                     % rp_uuid)
        self.assertEqual(200, status, body)
        consumer = self._claim(rp_uuid)
        self.assertEqual(1, self._stored(consumer)[0])

    def test_server_back_within_the_budget_answers_2xx(self):
        rp_uuid = self._provider()
        self.proxy.stop()
        timer = threading.Timer(0.8, self.proxy.start)
        timer.start()
        consumer = str(uuid.uuid4())
        status, _, body = self._send('PUT', '/allocations/%s' % consumer,
                                     case.claim_body(rp_uuid))
        timer.join()
        self.assertEqual(204, status, body)
        self.assertEqual(1, self._stored(consumer)[0])

    def test_app_on_a_closed_port_answers_503(self):
        url = sa.engine.make_url(self.url).set(port=self.closed_port)
        app, _ = self._app(url, **case.SHORT)
        self._assert_503(case.send(app, 'GET', '/resource_classes'))
        self._assert_503(case.send(
            app, 'PUT', '/allocations/%s' % uuid.uuid4(),
            case.claim_body(str(uuid.uuid4()))))

    # --- connection killed mid-transaction ---------------------------

    def test_connection_killed_mid_transaction_is_retried(self):
        rp_uuid = self._provider()
        killed = []

        @sa.event.listens_for(self.db.writer, 'before_cursor_execute')
        def kill_once(conn, cursor, statement, *args):
            if statement.startswith('INSERT INTO allocations') and (
                    not killed):
                killed.append(statement)
                self._kill(conn.connection.dbapi_connection)

        consumer = self._claim(rp_uuid)
        self.assertEqual(1, len(killed))
        self._assert_retried('lost connection')
        self.assertEqual(1, self._stored(consumer)[0])
        usage = self._send('GET', '/resource_providers/%s/usages'
                           % rp_uuid)[2]
        self.assertEqual({'VCPU': 1}, usage['usages'])

    def _kill_pooled_connections(self):
        """Kill, server side, the connections resting in the pools."""
        resting = [engine.pool.connect() for engine in self.db.engines()
                   for _ in range(engine.pool.checkedin())]
        ids = [fairy.dbapi_connection.thread_id()
               if self.backend_name == 'mysql'
               else fairy.dbapi_connection.info.backend_pid
               for fairy in resting]
        for fairy in resting:
            fairy.close()
        with self.admin.connect() as conn:
            for server_id in ids:
                if self.backend_name == 'mysql':
                    conn.execute(sa.text('KILL %d' % server_id))
                else:
                    conn.execute(sa.text('SELECT pg_terminate_backend(:p)'),
                                 {'p': server_id})
        return len(ids)

    def test_pooled_connection_killed_moments_ago_is_retried(self):
        # Back in the pool for less than db_engine.IDLE_PING_SECONDS: not
        # pinged; its first statement fails and the read runs again.
        rp_uuid = self._provider()
        # The read's own pool (on MySQL that of the reads without
        # snapshot) holds a connection.
        self._send('GET', '/resource_providers/%s/inventories' % rp_uuid)
        # Before the connections go back to the pool (in the kill).
        before_checkin = time.monotonic()
        self.assertGreater(self._kill_pooled_connections(), 0)
        status, _, body = self._send(
            'GET', '/resource_providers/%s/inventories' % rp_uuid)
        self.assertEqual(200, status, body)
        self.assertEqual(8, body['inventories']['VCPU']['total'])
        # On a machine slow enough to take longer than that to get here,
        # the checkout pinged the connection instead: the 200 is all.
        if time.monotonic() - before_checkin < db_engine.IDLE_PING_SECONDS:
            self._assert_retried('lost connection')

    def test_idle_pooled_connection_killed_is_replaced_by_the_ping(self):
        rp_uuid = self._provider()
        self.assertGreater(self._kill_pooled_connections(), 0)
        time.sleep(db_engine.IDLE_PING_SECONDS + 0.2)
        status, _, body = self._send(
            'GET', '/resource_providers/%s/inventories' % rp_uuid)
        self.assertEqual(200, status, body)
        self.assertEqual([], [m for m in self.retries
                              if 'lost connection' in m])


class MySQLRetryTest(_RetryCase, unittest.TestCase):
    backend_name = 'mysql'

    def _sync_wait(self, **overrides):
        _, db = self._app(sa.engine.make_url(self.url), **overrides)
        with db.writer.connect() as conn:
            return conn.execute(sa.text(
                'SELECT @@SESSION.wsrep_sync_wait')).scalar()

    def _thaw_later(self):
        """Thaw the proxy case.THAW_AFTER seconds from now (or at cleanup)."""
        timer = threading.Timer(case.THAW_AFTER, self.proxy.thaw)
        timer.daemon = True
        timer.start()
        self.addCleanup(timer.cancel)
        self.addCleanup(self.proxy.thaw)

    def test_timeouts_longer_than_the_budget_allows_stop_the_start(self):
        with self.assertRaises(exception.ConfigError) as caught:
            self._app(self._proxied(), **dict(
                case.SHORT, **{'placement_database.read_timeout': 60}))
        self.assertIn('read_timeout = 60', str(caught.exception))

    def test_frozen_server_holds_a_request_no_longer_than_the_budget(self):
        # Driver timeouts of 1 s, fitted to the 3 s budget when the
        # configuration loaded: the request ends before the server is
        # back (then the read would answer 200).
        app, _ = self._app(self._proxied(), **case.SHORT)
        self.assertEqual(200, case.send(app, 'GET', '/resource_classes')[0])
        self.proxy.freeze()
        self._thaw_later()
        self._assert_503(case.send(app, 'GET', '/resource_classes'))
        self.assertTrue(self.proxy.frozen, 'answered after the thaw')
        self.proxy.thaw()
        self.assertEqual(200, case.send(app, 'GET', '/resource_classes')[0])

    def test_wsrep_sync_wait_is_set_when_configured(self):
        self.assertEqual(0, self._sync_wait())
        self.assertEqual(1, self._sync_wait(
            **{'placement_database.mysql_wsrep_sync_wait': 1}))


class PostgreSQLRetryTest(_RetryCase, unittest.TestCase):
    backend_name = 'postgresql'
