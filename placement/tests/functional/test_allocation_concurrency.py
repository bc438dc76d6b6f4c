"""Concurrent claims never over-commit (MariaDB, PostgreSQL, Galera).

Many consumers claim 1 VCPU each against a few small providers until they
are full, from several threads of one process and from several worker
processes of a real WSGI server (uwsgi). Afterwards: no provider is used
beyond its capacity (also sampled while the claims run), every 204 claim
is stored, every failed claim left nothing (no allocation, consumer,
project or user row) and nothing answered 5xx. Each backend runs at each
isolation level it offers, since the write path must be safe at all.

A reshape of four providers races claims on the one it reaches last: it
either lands whole or leaves inventories, allocations and consumer
generation exactly as they were.

On Galera (testing/galera_backend.py) writer i claims through node
i % 3, in-process and through one uwsgi server per node; the usage is
sampled on node 0, and every node must hold the same rows afterwards.

SQLite is skipped: it serializes writers and proves nothing here.
"""
import contextlib
import json
import threading
import time
import unittest
import uuid

import sqlalchemy as sa

from placement.db import models
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.testing import concurrency
from placement.testing import galera_backend
from placement.testing import uwsgi

PROVIDERS = 3
VCPU_PER_PROVIDER = 6
WRITERS = 10
CLAIMS_PER_WRITER = 4        # 40 claims for 18 units: they fill up
HEADERS = dict(concurrency.HEADERS,
               **{'openstack-api-version': 'placement 1.38'})


def claim_body(rp_uuid, consumer_uuid, generation=None):
    """A 1.38 PUT body claiming 1 VCPU; project and user are unique to
    the consumer so that leftovers of a failed claim can be spotted."""
    return {
        'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
        'project_id': 'project-%s' % consumer_uuid,
        'user_id': 'user-%s' % consumer_uuid,
        'consumer_generation': generation,
        'consumer_type': 'INSTANCE',
    }


class _Claims:
    """Runs the claim storm through ``send(method, path, body)``."""

    def __init__(self, send, provider_uuids):
        self.send = send
        self.provider_uuids = provider_uuids
        self.results = {}      # consumer uuid -> (rp uuid, status, body)
        self.lock = threading.Lock()

    def _writer(self, index, barrier):
        barrier.wait()
        for attempt in range(CLAIMS_PER_WRITER):
            consumer_uuid = str(uuid.uuid4())
            rp_uuid = self.provider_uuids[
                (index + attempt) % len(self.provider_uuids)]
            status, body = self.send(
                'PUT', '/allocations/%s' % consumer_uuid,
                claim_body(rp_uuid, consumer_uuid))
            with self.lock:
                self.results[consumer_uuid] = (rp_uuid, status, body)

    def run(self):
        barrier = threading.Barrier(WRITERS)
        threads = [threading.Thread(target=self._writer, args=(i, barrier))
                   for i in range(WRITERS)]
        concurrency.run_threads(threads, timeout=300)
        return self.results


class _UsageMonitor(threading.Thread):
    """Samples SUM(used) per provider on its own connection until stopped."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        self.peak = {}
        self.samples = 0
        self.sampled = threading.Event()
        self.stopping = threading.Event()

    def run(self):
        a = models.allocations
        stmt = sa.select(a.c.resource_provider_id,
                         sa.func.sum(a.c.used)).group_by(
                             a.c.resource_provider_id)
        with self.engine.connect() as conn:
            while not self.stopping.is_set():
                for rp_id, used in conn.execute(stmt):
                    self.peak[rp_id] = max(self.peak.get(rp_id, 0), used)
                conn.rollback()
                self.samples += 1
                self.sampled.set()
                time.sleep(0.005)

    def stop(self):
        self.stopping.set()
        self.join(timeout=10)
        self.engine.dispose()


class _ConcurrencyBase(concurrency.BackendCase):

    def setUp(self):
        super().setUp()
        self.provider_uuids = []
        for index in range(PROVIDERS):
            rp_uuid = str(uuid.uuid4())
            rp_obj.create_provider(self.placement.db, rp_uuid,
                                   'claims-%d-%s' % (index, rp_uuid[:8]))
            inv_obj.set_inventories(
                self.placement.db, rp_uuid, 0,
                {'VCPU': inv_obj.Inventory('VCPU', total=VCPU_PER_PROVIDER)})
            self.provider_uuids.append(rp_uuid)

    # --- sending ------------------------------------------------------------

    def _send_in_process(self, method, path, body=None, headers=HEADERS):
        return self._request(method, path, body, headers)

    # --- checks -------------------------------------------------------------

    def _table_values(self, conn, table, column):
        return {row[0] for row in conn.execute(sa.select(table.c[column]))}

    def _verify(self, results, monitor):
        statuses = [status for _, status, _ in results.values()]
        self.assertFalse([s for s in statuses if s >= 500],
                         [b for _, s, b in results.values() if s >= 500][:3])
        self.assertEqual({204, 409} | set(statuses), {204, 409})
        capacity = VCPU_PER_PROVIDER
        with self.placement.db.writer.connect() as conn:
            rp = models.resource_providers
            ids = {row.uuid: row.id for row in conn.execute(
                sa.select(rp.c.uuid, rp.c.id))}
            a = models.allocations
            rows = list(conn.execute(sa.select(
                a.c.consumer_id, a.c.resource_provider_id, a.c.used)))
            consumers = self._table_values(conn, models.consumers, 'uuid')
            projects = self._table_values(conn, models.projects,
                                          'external_id')
            users = self._table_values(conn, models.users, 'external_id')
        stored = {row.consumer_id: row for row in rows}
        used = {}
        for row in rows:
            used[row.resource_provider_id] = (
                used.get(row.resource_provider_id, 0) + row.used)
        for rp_id, total in used.items():
            self.assertLessEqual(total, capacity, 'over-commit at the end')
        for rp_id, peak in monitor.peak.items():
            self.assertLessEqual(peak, capacity, 'over-commit while running')
        for consumer_uuid, (rp_uuid, status, body) in results.items():
            if status == 204:
                self.assertIn(consumer_uuid, stored)
                self.assertEqual(ids[rp_uuid],
                                 stored[consumer_uuid].resource_provider_id)
                self.assertIn(consumer_uuid, consumers)
            else:
                self.assertNotIn(consumer_uuid, stored, body)
                self.assertNotIn(consumer_uuid, consumers, body)
                self.assertNotIn('project-%s' % consumer_uuid, projects)
                self.assertNotIn('user-%s' % consumer_uuid, users)
        self.assertEqual(len(rows), statuses.count(204))
        # 40 claims for 18 units: every provider ends up full.
        self.assertEqual(statuses.count(204), PROVIDERS * capacity)

    def _storm(self, send):
        monitor = _UsageMonitor(self.placement.url)
        monitor.start()
        try:
            # A busy machine can take longer to connect the monitor than
            # the claims take to fill the providers (seen on Galera).
            self.assertTrue(monitor.sampled.wait(timeout=60))
            results = _Claims(send, self.provider_uuids).run()
        finally:
            monitor.stop()
        self.assertEqual(WRITERS * CLAIMS_PER_WRITER, len(results))
        self.assertGreater(monitor.samples, 0)
        self._verify(results, monitor)
        return results

    def _retry_a_failed_claim(self, send, results):
        """A failed first claim left nothing: after room is made, the
        same consumer succeeds with consumer_generation null."""
        done = [c for c, (_, s, _) in results.items() if s == 204]
        failed = [c for c, (_, s, _) in results.items() if s == 409]
        rp_uuid = results[done[0]][0]
        status, body = send('DELETE', '/allocations/%s' % done[0])
        self.assertEqual(204, status, body)
        status, body = send('PUT', '/allocations/%s' % failed[0],
                            claim_body(rp_uuid, failed[0]))
        self.assertEqual(204, status, body)

    # --- tests --------------------------------------------------------------

    def _threads_at(self, level):
        self._set_isolation(level)
        results = self._storm(self._send_in_process)
        self._retry_a_failed_claim(self._send_in_process, results)

    def test_threads_at_every_isolation_level(self):
        levels = concurrency.ISOLATION_LEVELS[self.backend_name]
        for level in levels:
            with self.subTest(isolation=level):
                if level != levels[0]:
                    self._reset()
                self._threads_at(level)

    def _reset(self):
        """Remove every allocation and consumer between runs."""
        with self.placement.db.writer.begin() as conn:
            for table in (models.allocations, models.consumers,
                          models.projects, models.users):
                conn.execute(table.delete())

    def test_reshape_is_all_or_nothing_under_racing_claims(self):
        race = _ReshapeRace(self)
        statuses = []
        # Each outcome is checked in run_round; both must have happened,
        # and at least one conflict must have come from a compare-and-swap
        # inside the batch (not from the up-front generation check). How
        # many rounds that takes depends on how the threads are scheduled
        # (a busy machine shifts the races): rounds go on until all three
        # are seen, RESHAPE_ROUNDS at least, RESHAPE_ROUNDS_MAX at most.
        for round_ in range(RESHAPE_ROUNDS_MAX):
            statuses.append(race.run_round(round_))
            if len(statuses) >= RESHAPE_ROUNDS and race.saw_every_outcome(
                    statuses):
                break
        self.assertIn(409, statuses)
        self.assertIn(204, statuses)
        self.assertTrue(race.in_batch_conflicts(), race.conflicts)

    def test_worker_processes(self):
        with contextlib.ExitStack() as stack:
            ports = self._uwsgi_servers(stack)

            def send(method, path, body=None):
                port = ports[concurrency.writer_index() % len(ports)]
                return _http(port, method, path, body)
            results = self._storm(send)
            self._retry_a_failed_claim(send, results)

    def _uwsgi_servers(self, stack):
        """One uwsgi server per app (per Galera node): their ports."""
        if self.backend_name != 'galera':
            return [stack.enter_context(_uwsgi(self.placement.url))]
        # Two processes each, not four: three servers share the machine.
        return [stack.enter_context(_uwsgi(
            placement.url, processes=2,
            env=galera_backend.ENVIRONMENT)) for placement in self.placements]


RESHAPE_HEADERS = dict(HEADERS, **{'x-roles': 'admin,service'})
RESHAPE_ROUNDS = 8
RESHAPE_ROUNDS_MAX = 40


class _ReshapeRace:
    """A reshape of four providers racing claims on the last one.

    Each round the reshape sets every provider's VCPU total to
    100 + round and moves consumer X between the first two providers,
    while claimers add 1 VCPU on the provider that sorts last (the one
    the reshape reaches last), so some reshapes lose in mid-batch.
    """

    def __init__(self, test):
        self.test = test
        self.uuids = sorted(str(uuid.uuid4()) for _ in range(4))
        self.consumer = str(uuid.uuid4())
        self.conflicts = []
        for rp_uuid in self.uuids:
            status, body = test._send_in_process(
                'POST', '/resource_providers',
                {'name': 'reshape-%s' % rp_uuid, 'uuid': rp_uuid})
            test.assertEqual(200, status, body)
            status, body = test._send_in_process(
                'PUT', '/resource_providers/%s/inventories' % rp_uuid,
                {'resource_provider_generation': 0,
                 'inventories': {'VCPU': {'total': 100}}})
            test.assertEqual(200, status, body)
        status, body = test._send_in_process(
            'PUT', '/allocations/%s' % self.consumer,
            claim_body(self.uuids[0], self.consumer))
        test.assertEqual(204, status, body)

    def in_batch_conflicts(self):
        """The 409s from a compare-and-swap inside the batch (the
        up-front generation check's say 'given:')."""
        return [text for text in self.conflicts
                if text and 'given:' not in text]

    def saw_every_outcome(self, statuses):
        return ({204, 409} <= set(statuses)
                and bool(self.in_batch_conflicts()))

    def _get(self, path):
        status, body = self.test._send_in_process('GET', path)
        self.test.assertEqual(200, status, body)
        return json.loads(body)

    def snapshot(self):
        totals = {}
        generations = {}
        for rp_uuid in self.uuids:
            body = self._get('/resource_providers/%s/inventories' % rp_uuid)
            totals[rp_uuid] = body['inventories']['VCPU']['total']
            generations[rp_uuid] = body['resource_provider_generation']
        allocs = self._get('/allocations/%s' % self.consumer)
        return totals, generations, allocs

    def reshape_body(self, round_, generations, allocs):
        target = self.uuids[round_ % 2]
        return {
            'inventories': {
                rp_uuid: {'resource_provider_generation':
                          generations[rp_uuid],
                          'inventories': {'VCPU': {'total': 101 + round_}}}
                for rp_uuid in self.uuids},
            'allocations': {self.consumer: dict(
                claim_body(target, self.consumer),
                consumer_generation=allocs['consumer_generation'])},
        }

    def _reshape(self, body, barrier, outcome):
        barrier.wait()
        outcome.append(self.test._send_in_process(
            'POST', '/reshaper', body, RESHAPE_HEADERS))

    def _claim(self, barrier, claims, delay):
        barrier.wait()
        time.sleep(delay)
        for _ in range(3):
            consumer_uuid = str(uuid.uuid4())
            status, body = self.test._send_in_process(
                'PUT', '/allocations/%s' % consumer_uuid,
                claim_body(self.uuids[-1], consumer_uuid))
            claims.append((consumer_uuid, status, body))

    def run_round(self, round_):
        totals, generations, allocs = self.snapshot()
        body = self.reshape_body(round_, generations, allocs)
        barrier = threading.Barrier(4)
        outcome, claims = [], []
        threads = [threading.Thread(target=self._reshape,
                                    args=(body, barrier, outcome))]
        # Odd rounds give the reshape a head start, so that both outcomes
        # are seen.
        delay = 0.5 if round_ % 2 else 0
        threads += [threading.Thread(target=self._claim,
                                     args=(barrier, claims, delay))
                    for _ in range(3)]
        concurrency.run_threads(threads, timeout=120)
        status, text = outcome[0]
        self.test.assertIn(status, (204, 409), text)
        self.conflicts.append(text if status == 409 else None)
        for consumer_uuid, claim_status, claim_text in claims:
            self.test.assertEqual(204, claim_status, claim_text)
        self.check(round_, status, (totals, generations, allocs))
        return status

    def check(self, round_, status, before):
        totals, generations, allocs = self.snapshot()
        old_totals, old_generations, old_allocs = before
        if status == 204:
            self.test.assertEqual({101 + round_}, set(totals.values()))
            self.test.assertEqual([self.uuids[round_ % 2]],
                                  list(allocs['allocations']))
            self.test.assertEqual(old_allocs['consumer_generation'] + 1,
                                  allocs['consumer_generation'])
        else:
            self.test.assertEqual(old_totals, totals)
            self.test.assertEqual(old_allocs['allocations'].keys(),
                                  allocs['allocations'].keys())
            self.test.assertEqual(old_allocs['consumer_generation'],
                                  allocs['consumer_generation'])
            # Only the claimed-on provider moved (one bump per claim).
            for rp_uuid in self.uuids[:-1]:
                if rp_uuid not in old_allocs['allocations']:
                    self.test.assertEqual(old_generations[rp_uuid],
                                          generations[rp_uuid])


def _http(port, method, path, body=None):
    status, text, _headers = uwsgi.http(port, method, path, body, HEADERS)
    return status, text


def _uwsgi(database_url, processes=4, threads=4, env=None):
    """Serve placement.wsgi.api:application from uwsgi worker processes."""
    return uwsgi.serve(database_url, processes, threads, env)


class MySQLConcurrencyTest(_ConcurrencyBase, unittest.TestCase):
    backend_name = 'mysql'


class PostgreSQLConcurrencyTest(_ConcurrencyBase, unittest.TestCase):
    backend_name = 'postgresql'


class GaleraConcurrencyTest(_ConcurrencyBase, unittest.TestCase):
    backend_name = 'galera'
