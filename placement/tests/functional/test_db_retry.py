"""The retry policy against real failures (MariaDB and PostgreSQL).

The app reaches its database through a TCP proxy the test controls
(fixtures.tcp_proxy). Each test breaks
something for real: a row lock held by another connection (lock wait
timeout, deadlock), the server going away (proxy stopped), a connection
KILLed mid-transaction, the socket cut around COMMIT. Then it checks
the answer and the stored rows: retried failures are invisible to the
client, a write is stored exactly once, and no server reachable means
503 with Retry-After and a code, never 500.

No test depends on how fast the machine is: a retry that must succeed
has a budget far beyond its need (3 s once ran out on a busy machine);
a budget that must run out is seen to by the order of events (answered
while the server still held the request back), else a bound of ten.
"""
import json
import logging
import os
import socket
import threading
import time
import unittest
import uuid

from oslo_middleware import http_proxy_to_wsgi
from pymysql.constants import COMMAND
import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement.db import engine as db_engine
from placement import deploy
from placement import policy
from placement.testing import app as app_fixture
from placement.testing import concurrency
from placement.testing import late_commit
from placement.testing import lock_waits
from placement.testing import tcp_proxy

HEADERS = dict(concurrency.HEADERS,
               **{'openstack-api-version': 'placement 1.38'})
# The budget of the requests that must succeed after their retries.
RETRY_BUDGET = 30.0
# The budget of the requests that must run out of it, and a bound on
# their wait far beyond it: a request that ignored its budget would wait
# for the driver's 60 s timeouts, or retry for ever.
BUDGET = 3.0
PATIENCE = 10 * BUDGET
SHORT = {'placement_database.retry_budget': BUDGET}
# Longer than any budget here, shorter than the driver timeouts (60 s):
# a request still waiting then was not ended by its budget.
THAW_AFTER = 45.0
OVERRIDES = {
    'placement_database.retry_budget': RETRY_BUDGET,
    'placement_database.retry_backoff': 0.02,
    'placement_database.retry_backoff_max': 0.1,
    'placement_database.connect_timeout': 1,
    'placement_database.read_timeout': 5,
    'placement_database.write_timeout': 5,
}
DEFAULT_PORTS = {'mysql': 3306, 'postgresql': 5432}


def send(app, method, path, body=None):
    """(status, headers, parsed JSON body or None) of one request."""
    req = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        req.body = json.dumps(body).encode('utf-8')
    resp = req.get_response(app)
    data = json.loads(resp.text) if resp.text else None
    return resp.status_int, resp.headers, data


def claim_body(rp_uuid, vcpu=1, generation=None):
    return {'allocations': {rp_uuid: {'resources': {'VCPU': vcpu}}},
            'project_id': 'p', 'user_id': 'u',
            'consumer_generation': generation, 'consumer_type': 'INSTANCE'}


def _break_socket(dbapi_conn):
    """Cut the connection's TCP stream both ways (a dead network)."""
    if hasattr(dbapi_conn, '_sock'):
        dbapi_conn._sock.shutdown(socket.SHUT_RDWR)
        return
    dup = socket.socket(fileno=os.dup(dbapi_conn.fileno()))
    try:
        dup.shutdown(socket.SHUT_RDWR)
    finally:
        dup.close()


class _RetryCase:
    backend_name = None

    def setUp(self):
        super().setUp()
        self.backend = concurrency.backend(self.backend_name)
        if self.backend is None:
            self.skipTest('%s is not available' % self.backend_name)
        # The proxy's port, and one nothing ever listens on.
        self.proxy_port = tcp_proxy.port_block()
        self.closed_port = self.proxy_port + 1
        self.url = self.backend.create()
        self.addCleanup(self.backend.drop, self.url)
        real = sa.engine.make_url(self.url)
        self.proxy = tcp_proxy.TCPProxy(self.proxy_port, (
            real.host or '127.0.0.1',
            real.port or DEFAULT_PORTS[self.backend_name]))
        self.proxy.start()
        self.addCleanup(self.proxy.stop)
        self.app, self.db = self._app(real.set(port=self.proxy_port))
        app_fixture.create_schema(self.db)
        self.admin = sa.create_engine(self.url, pool_pre_ping=False)
        self.addCleanup(self.admin.dispose)
        self.retries = self._record_retries()

    def _record_retries(self):
        """The messages of the retry policy, as it logs each retry."""
        records = []
        handler = logging.Handler(logging.INFO)
        handler.emit = lambda record: records.append(record.getMessage())
        logger = logging.getLogger('placement.db.retry')
        level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
        self.addCleanup(logger.setLevel, level)
        self.addCleanup(logger.removeHandler, handler)
        return records

    def _assert_retried(self, *words):
        self.assertTrue(any(all(word in message for word in words)
                            for message in self.retries), self.retries)

    def _app(self, url, **overrides):
        conf = app_fixture.make_conf(
            url.set(host='127.0.0.1').render_as_string(hide_password=False),
            **dict(OVERRIDES, **overrides))
        conf.set_override('max_retries', 0, group='placement_database')
        db = db_api.create_database(conf)
        self.addCleanup(db.dispose)
        # As deploy.loadapp, without its start-up writes: this app may
        # have no database to reach.
        http_proxy_to_wsgi.HTTPProxyToWSGI(None, conf)
        return deploy.build_app(conf, db, policy.build_enforcer(conf)), db

    def _send(self, method, path, body=None):
        return send(self.app, method, path, body)

    def _provider(self, vcpu=8):
        rp_uuid = str(uuid.uuid4())
        status, _, _ = self._send('POST', '/resource_providers',
                                  {'name': rp_uuid, 'uuid': rp_uuid})
        self.assertEqual(200, status)
        status, _, _ = self._send(
            'PUT', '/resource_providers/%s/inventories' % rp_uuid,
            {'resource_provider_generation': 0,
             'inventories': {'VCPU': {'total': vcpu}}})
        self.assertEqual(200, status)
        return rp_uuid

    def _claim(self, rp_uuid, vcpu=1):
        consumer = str(uuid.uuid4())
        status, _, body = self._send('PUT', '/allocations/%s' % consumer,
                                     claim_body(rp_uuid, vcpu))
        self.assertEqual(204, status, body)
        return consumer

    def _stored(self, consumer):
        """(consumer generation or None, [(class id, used)]) as stored."""
        with self.admin.connect() as conn:
            generation = conn.execute(sa.text(
                'SELECT generation FROM consumers WHERE uuid = :c'),
                {'c': consumer}).scalar()
            rows = conn.execute(sa.text(
                'SELECT resource_class_id, used FROM allocations '
                'WHERE consumer_id = :c'), {'c': consumer}).all()
        return generation, [tuple(row) for row in rows]

    def _in_thread(self, func):
        result = {}
        thread = threading.Thread(
            target=lambda: result.setdefault('value', func()))
        thread.start()
        return thread, result

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
            deadline = time.monotonic() + PATIENCE
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
            lock_waits.wait_for_a_lock_wait(self.admin, PATIENCE)
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

    def _assert_503(self, answer):
        status, headers, body = answer
        self.assertEqual(503, status, body)
        self.assertEqual('5', headers['Retry-After'])
        self.assertEqual('application/json', headers['Content-Type'])
        error = body['errors'][0]
        self.assertEqual('placement.database.unavailable', error['code'])
        self.assertEqual(503, error['status'])

    def _proxied(self):
        return sa.engine.make_url(self.url).set(port=self.proxy_port)

    def test_refused_connections_answer_503_then_recover(self):
        rp_uuid = self._provider()
        app, _ = self._app(self._proxied(), **SHORT)
        self.proxy.stop()
        for method, path, body in (
                ('GET', '/resource_providers', None),
                ('PUT', '/allocations/%s' % uuid.uuid4(),
                 claim_body(rp_uuid))):
            start = time.monotonic()
            self._assert_503(send(app, method, path, body))
            # Nothing but the budget ends these retries.
            self.assertLess(time.monotonic() - start, PATIENCE)
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
                                     claim_body(rp_uuid))
        timer.join()
        self.assertEqual(204, status, body)
        self.assertEqual(1, self._stored(consumer)[0])

    def test_app_on_a_closed_port_answers_503(self):
        url = sa.engine.make_url(self.url).set(port=self.closed_port)
        app, _ = self._app(url, **SHORT)
        self._assert_503(send(app, 'GET', '/resource_classes'))
        self._assert_503(send(app, 'PUT', '/allocations/%s' % uuid.uuid4(),
                              claim_body(str(uuid.uuid4()))))

    # --- connection killed mid-transaction ---------------------------

    def _kill(self, dbapi_conn):
        with self.admin.connect() as conn:
            if self.backend_name == 'mysql':
                conn.execute(sa.text('KILL %d' % dbapi_conn.thread_id()))
            else:
                conn.execute(sa.text('SELECT pg_terminate_backend(:pid)'),
                             {'pid': dbapi_conn.info.backend_pid})

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
        """Kill, server side, the connections resting in the pool."""
        pool = self.db.writer.pool
        resting = [pool.connect() for _ in range(pool.checkedin())]
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

    # --- COMMIT lost ---------------------------------------------------

    def _lose_commits(self, plan):
        """Make the next commits fail as ``plan`` says: 'before' cuts the
        socket before COMMIT is sent, 'after' once it was applied."""
        dialect = self.db.writer.dialect
        real_commit = dialect.do_commit
        done = []

        def do_commit(conn):
            if not plan:
                return real_commit(conn)
            step = plan.pop(0)
            done.append(step)
            dbapi_conn = getattr(conn, 'dbapi_connection', conn)
            if step == 'before':
                _break_socket(dbapi_conn)
                return real_commit(conn)
            return self._commit_then_break(dbapi_conn)
        dialect.do_commit = do_commit
        return done

    def _commit_then_break(self, dbapi_conn):
        if self.backend_name == 'mysql':
            dbapi_conn._execute_command(COMMAND.COM_QUERY, 'COMMIT')
            # The server's OK is read and dropped: the reply is "lost".
            dbapi_conn._sock.recv(65536)
            _break_socket(dbapi_conn)
            dbapi_conn._read_ok_packet()
        else:
            cursor = dbapi_conn.cursor()
            cursor.execute('COMMIT')
            _break_socket(dbapi_conn)
            cursor.execute('SELECT 1')

    def _assert_claimed_once(self, consumer, rp_uuid, vcpu):
        """The claim of ``vcpu`` VCPU by ``consumer`` is stored once:
        consumer generation 1, the provider (generation 1 after its
        inventory) bumped once, its usage ``vcpu``."""
        self.assertEqual(1, self._stored(consumer)[0])
        status, _, body = self._send('GET', '/resource_providers/%s'
                                     % rp_uuid)
        self.assertEqual(2, body['generation'])
        usage = self._send('GET', '/resource_providers/%s/usages'
                           % rp_uuid)[2]
        self.assertEqual({'VCPU': vcpu}, usage['usages'])

    def test_commit_lost_before_it_was_sent_is_retried(self):
        rp_uuid = self._provider()
        done = self._lose_commits(['before'])
        consumer = self._claim(rp_uuid, vcpu=2)
        self.assertEqual(['before'], done)
        self.assertEqual(1, self._stored(consumer)[0])
        usage = self._send('GET', '/resource_providers/%s/usages'
                           % rp_uuid)[2]
        self.assertEqual({'VCPU': 2}, usage['usages'])

    def test_commit_lost_after_it_landed_answers_once(self):
        rp_uuid = self._provider()
        plan = ['after']
        done = self._lose_commits(plan)
        consumer = self._claim(rp_uuid, vcpu=2)
        self.assertEqual(['after'], done)
        self._assert_claimed_once(consumer, rp_uuid, 2)

    def test_delete_commit_lost_after_it_landed_answers_204(self):
        consumer = self._claim(self._provider())
        done = self._lose_commits(['after'])
        status, _, body = self._send('DELETE', '/allocations/%s' % consumer)
        self.assertEqual(['after'], done)
        self.assertEqual(204, status, body)
        self.assertEqual((None, []), self._stored(consumer))

    def test_inventory_commit_lost_answers_with_the_stored_state(self):
        rp_uuid = self._provider()
        path = '/resource_providers/%s/inventories' % rp_uuid
        for step, generation in (('after', 2), ('before', 3)):
            done = self._lose_commits([step])
            status, _, body = self._send('PUT', path, {
                'resource_provider_generation': generation - 1,
                'inventories': {'VCPU': {'total': 10 + generation}}})
            self.assertEqual([step], done)
            self.assertEqual(200, status, body)
            self.assertEqual(generation, body['resource_provider_generation'])
            self.assertEqual(10 + generation,
                             body['inventories']['VCPU']['total'])
        status, _, body = self._send('GET', path)
        self.assertEqual(3, body['resource_provider_generation'])

    def test_other_writes_answer_once_when_their_commit_was_lost(self):
        rp_uuid = self._provider()
        spare = str(uuid.uuid4())
        agg = str(uuid.uuid4())
        for method, path, body, status in (
                ('POST', '/resource_providers',
                 {'name': spare, 'uuid': spare}, 200),
                ('POST', '/resource_classes', {'name': 'CUSTOM_LOST'}, 201),
                ('PUT', '/traits/CUSTOM_LOST', None, 201),
                ('PUT', '/resource_providers/%s/traits' % rp_uuid,
                 {'resource_provider_generation': 1,
                  'traits': ['CUSTOM_LOST']}, 200),
                ('PUT', '/resource_providers/%s/aggregates' % rp_uuid,
                 {'resource_provider_generation': 2,
                  'aggregates': [agg]}, 200),
                ('DELETE', '/resource_providers/%s' % spare, None, 204),
                ('DELETE', '/resource_classes/CUSTOM_LOST', None, 204)):
            done = self._lose_commits(['after'])
            answer = self._send(method, path, body)
            self.assertEqual(['after'], done, path)
            self.assertEqual(status, answer[0], (method, path, answer))
        _, _, body = self._send('GET', '/resource_providers/%s/aggregates'
                                % rp_uuid)
        self.assertEqual(([agg], 3),
                         (body['aggregates'],
                          body['resource_provider_generation']))
        self.assertEqual(404, self._send('GET', '/resource_providers/%s'
                                         % spare)[0])


class MySQLRetryTest(_RetryCase, unittest.TestCase):
    backend_name = 'mysql'

    def _sync_wait(self, **overrides):
        _, db = self._app(sa.engine.make_url(self.url), **overrides)
        with db.writer.connect() as conn:
            return conn.execute(sa.text(
                'SELECT @@SESSION.wsrep_sync_wait')).scalar()

    def _thaw_later(self):
        """Thaw the proxy THAW_AFTER seconds from now (or at cleanup)."""
        timer = threading.Timer(THAW_AFTER, self.proxy.thaw)
        timer.daemon = True
        timer.start()
        self.addCleanup(timer.cancel)
        self.addCleanup(self.proxy.thaw)

    def test_frozen_server_holds_a_request_no_longer_than_the_budget(self):
        # PyMySQL timeouts far above the budget: only cutting them to
        # what is left of the budget ends the request before the server
        # is back (then the read would answer 200).
        app, _ = self._app(self._proxied(), **dict(SHORT, **{
            'placement_database.connect_timeout': 60,
            'placement_database.read_timeout': 60,
            'placement_database.write_timeout': 60}))
        self.assertEqual(200, send(app, 'GET', '/resource_classes')[0])
        self.proxy.freeze()
        self._thaw_later()
        self._assert_503(send(app, 'GET', '/resource_classes'))
        self.assertTrue(self.proxy.frozen, 'answered after the thaw')
        self.proxy.thaw()
        self.assertEqual(200, send(app, 'GET', '/resource_classes')[0])

    def _hold_commit(self, db, thaw_after):
        """Freeze the proxy when the first COMMIT is sent (thaw it
        ``thaw_after`` seconds later); return the list it marks."""
        dialect = db.writer.dialect
        real_commit = dialect.do_commit
        held = []
        timer = threading.Timer(thaw_after, self.proxy.thaw)
        timer.daemon = True
        self.addCleanup(timer.cancel)

        def do_commit(conn):
            if not held:
                held.append(True)
                self.proxy.freeze()
                timer.start()
            return real_commit(conn)
        dialect.do_commit = do_commit
        self.addCleanup(self.proxy.thaw)
        return held

    def test_a_slow_commit_gets_the_reserve_of_the_budget(self):
        # Galera holds commits while it evicts a dead node: a COMMIT still
        # waits for its answer, up to the read timeout (5 s) or what is
        # left of the whole budget, beyond the end of the attempts
        # (budget - min(read_timeout, budget / 2) = 4 s here). Held
        # 1.5 s: 3.5 s to spare for a late timer on a busy machine.
        rp_uuid = self._provider()
        app, db = self._app(self._proxied(),
                            **{'placement_database.retry_budget': 8.0})
        held = self._hold_commit(db, 1.5)
        consumer = str(uuid.uuid4())
        status, _, body = send(app, 'PUT', '/allocations/%s' % consumer,
                               claim_body(rp_uuid))
        self.assertEqual((204, [True]), (status, held), body)
        self.assertEqual([], self.retries)
        self.assertEqual(1, self._stored(consumer)[0])

    def test_a_commit_frozen_past_the_budget_answers_within_it(self):
        # A node that freezes under a COMMIT holds the request no longer
        # than the budget: the COMMIT waits what is left of it, then the
        # outcome is looked for on a new connection, which the frozen
        # server cannot give: 503.
        rp_uuid = self._provider()
        app, db = self._app(self._proxied(), **dict(SHORT, **{
            'placement_database.read_timeout': 60,
            'placement_database.write_timeout': 60,
            'placement_database.connect_timeout': 60}))
        held = self._hold_commit(db, THAW_AFTER)
        start = time.monotonic()
        answer = send(app, 'PUT', '/allocations/%s' % uuid.uuid4(),
                      claim_body(rp_uuid))
        elapsed = time.monotonic() - start
        self.assertEqual([True], held)
        self._assert_503(answer)
        # Ended by the budget, not by the server coming back (then the
        # COMMIT would have landed: 204).
        self.assertTrue(self.proxy.frozen, 'answered after the thaw')
        # The COMMIT waited for the reserve before giving up (a lower
        # bound: a busy machine only adds to it).
        self.assertGreater(elapsed, BUDGET / 2)

    def test_wsrep_sync_wait_is_set_when_configured(self):
        self.assertEqual(0, self._sync_wait())
        self.assertEqual(1, self._sync_wait(
            **{'placement_database.mysql_wsrep_sync_wait': 1}))


class PostgreSQLRetryTest(_RetryCase, unittest.TestCase):
    backend_name = 'postgresql'

    # --- a COMMIT that lands after it was judged absent -----------------
    # Its check ran on a new connection at once and did not see it: the
    # COMMIT was still in flight (testing/late_commit.py). MySQL's check
    # first waits for the old server session to end, so on one server it
    # does not happen there; between Galera nodes it does (test_galera).

    def test_delete_whose_commit_lands_late_answers_204(self):
        consumer = self._claim(self._provider())
        late_commit.arrange(self, self.db, self.proxy)
        status, _, body = self._send('DELETE', '/allocations/%s' % consumer)
        self.assertEqual(204, status, body)
        self._assert_retried('lost connection')
        self.assertEqual((None, []), self._stored(consumer))

    def test_claim_whose_commit_lands_late_answers_204_once(self):
        rp_uuid = self._provider()
        consumer = str(uuid.uuid4())
        late_commit.arrange(self, self.db, self.proxy)
        status, _, body = self._send('PUT', '/allocations/%s' % consumer,
                                     claim_body(rp_uuid, vcpu=3))
        self.assertEqual(204, status, body)
        self._assert_retried('lost connection')
        self._assert_claimed_once(consumer, rp_uuid, 3)
