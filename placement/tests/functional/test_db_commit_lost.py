"""What happens around a COMMIT, against real failures (MariaDB and
PostgreSQL): a COMMIT whose connection is lost before it is sent or
after it landed, one the server holds (Galera evicting a dead node), and
one that lands after the check for it found nothing.

Each write must be stored exactly once and answered as if nothing had
happened, or 503 when the budget ends first; never a 500, never a write
stored twice. The fixtures and helpers are db_retry_case's.
"""
import threading
import time
import unittest
import uuid

from placement.testing import late_commit
from placement.tests.functional import db_retry_case as case


class _CommitCase(case.RetryCase):

    # --- COMMIT lost ---------------------------------------------------

    def _lose_commits(self, plan):
        """Make the next commits fail as ``plan`` says: 'before' ends the
        session before COMMIT is sent (the server rolls back), 'after'
        once COMMIT was applied and answered, so that the app's own
        commit finds the connection gone: a COMMIT whose answer was
        lost. Through the drivers' public API and the servers' own
        commands (RetryCase._kill)."""
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
                self._kill(dbapi_conn)
                return real_commit(conn)
            cursor = dbapi_conn.cursor()
            cursor.execute('COMMIT')
            self._kill(dbapi_conn)
            # Raises, as the lost answer would have: the session is gone.
            cursor.execute('SELECT 1')
            raise AssertionError('the session outlived its KILL')
        dialect.do_commit = do_commit
        return done

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
        self._assert_retried('COMMIT outcome unknown', 'absent: retrying')
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
        self._assert_retried('COMMIT outcome unknown', 'landed')
        self._assert_claimed_once(consumer, rp_uuid, 2)

    def test_delete_commit_lost_after_it_landed_answers_204(self):
        consumer = self._claim(self._provider())
        done = self._lose_commits(['after'])
        status, _, body = self._send('DELETE', '/allocations/%s' % consumer)
        self.assertEqual(['after'], done)
        self.assertEqual(204, status, body)
        self._assert_retried('COMMIT outcome unknown')
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
            self._assert_retried('COMMIT outcome unknown')
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
            self.assertEqual(1, sum('COMMIT outcome unknown' in message
                                    for message in self.retries), path)
            del self.retries[:]
        _, _, body = self._send('GET', '/resource_providers/%s/aggregates'
                                % rp_uuid)
        self.assertEqual(([agg], 3),
                         (body['aggregates'],
                          body['resource_provider_generation']))
        self.assertEqual(404, self._send('GET', '/resource_providers/%s'
                                         % spare)[0])


class MySQLCommitTest(_CommitCase, unittest.TestCase):
    backend_name = 'mysql'

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
        # 1.5 s: 2.5 s to spare for a late timer on a busy machine.
        rp_uuid = self._provider()
        app, db = self._app(self._proxied(), **{
            'placement_database.retry_budget': 8.0,
            'placement_database.read_timeout': 4,
            'placement_database.write_timeout': 4})
        held = self._hold_commit(db, 1.5)
        consumer = str(uuid.uuid4())
        status, _, body = case.send(
            app, 'PUT', '/allocations/%s' % consumer, case.claim_body(rp_uuid))
        self.assertEqual((204, [True]), (status, held), body)
        self.assertEqual([], self.retries)
        self.assertEqual(1, self._stored(consumer)[0])

    def test_a_commit_frozen_past_the_budget_answers_within_it(self):
        # A node that freezes under a COMMIT holds the request no longer
        # than the budget: the COMMIT waits its read timeout (fitted to
        # the budget), then the outcome is looked for on new
        # connections, which the frozen server cannot give: 503.
        rp_uuid = self._provider()
        app, db = self._app(self._proxied(), **case.SHORT)
        held = self._hold_commit(db, case.THAW_AFTER)
        start = time.monotonic()
        answer = case.send(app, 'PUT', '/allocations/%s' % uuid.uuid4(),
                           case.claim_body(rp_uuid))
        elapsed = time.monotonic() - start
        self.assertEqual([True], held)
        self._assert_503(answer)
        # Ended by the budget, not by the server coming back (then the
        # COMMIT would have landed: 204).
        self.assertTrue(self.proxy.frozen, 'answered after the thaw')
        # The outcome was looked for past the end of the attempts, in
        # the reserve (a lower bound: a busy machine only adds to it).
        self.assertGreater(elapsed, case.BUDGET / 2)


class PostgreSQLCommitTest(_CommitCase, unittest.TestCase):
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
                                     case.claim_body(rp_uuid, vcpu=3))
        self.assertEqual(204, status, body)
        self._assert_retried('lost connection')
        self._assert_claimed_once(consumer, rp_uuid, 3)
