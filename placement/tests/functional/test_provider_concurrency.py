"""Concurrent writes to providers (MariaDB, PostgreSQL and Galera).

- Generations: many threads read a provider's generation and PUT a new
  trait set or a new aggregate set with it. Each PUT changes the set, so
  each success must bump the generation exactly once: every write either
  landed (200) or was refused (409 placement.concurrent_update), the
  successes returned the generations 1..n with no repeats, the final
  generation is n, and the stored sets are those of the write that
  returned n. At each isolation level the backend offers.
- Moves: crossing re-parents never build a cycle.
- New aggregates: providers joining one new aggregate at once all land.
- Deletes racing writes: no orphan allocations, trait links or children,
  and never a 5xx.

All requests go through the WSGI app in-process; on Galera, writer i
through node i % 3 (testing/galera_backend.py). SQLite is skipped: it
serializes writers and proves nothing here.
"""
import json
import threading
import unittest
import uuid

import sqlalchemy as sa

from placement.objects import resource_provider as rp_obj
from placement.testing import concurrency

WRITERS = 8
WRITES_PER_WRITER = 6


def _trait(writer, attempt):
    return 'CUSTOM_W%d_A%d' % (writer, attempt)


class _Storm:
    """WRITERS threads, each WRITES_PER_WRITER read-then-PUT attempts.

    ``kind`` is 'traits', 'aggregates' or 'mixed' (writers alternate).
    Records (kind, status, body, sent set) per attempt.
    """

    def __init__(self, send, rp_uuid, kind):
        self.send = send
        self.rp_uuid = rp_uuid
        self.kind = kind
        self.results = []
        self.lock = threading.Lock()

    def _kind_for(self, writer):
        if self.kind != 'mixed':
            return self.kind
        return 'traits' if writer % 2 else 'aggregates'

    def _body(self, kind, writer, attempt, generation):
        if kind == 'traits':
            names = [_trait(writer, attempt)]
            return names, {'traits': names,
                           'resource_provider_generation': generation}
        uuids = [str(uuid.uuid4())]
        return uuids, {'aggregates': uuids,
                       'resource_provider_generation': generation}

    def _writer(self, writer, barrier):
        kind = self._kind_for(writer)
        path = '/resource_providers/%s/%s' % (self.rp_uuid, kind)
        barrier.wait()
        for attempt in range(WRITES_PER_WRITER):
            _, text = self.send('GET', path)
            generation = json.loads(text)['resource_provider_generation']
            sent, body = self._body(kind, writer, attempt, generation)
            status, text = self.send('PUT', path, body)
            with self.lock:
                self.results.append((kind, status, text, sent))

    def run(self):
        barrier = threading.Barrier(WRITERS)
        threads = [threading.Thread(target=self._writer, args=(i, barrier))
                   for i in range(WRITERS)]
        concurrency.run_threads(threads)
        return self.results


class _ConcurrencyBase(concurrency.BackendCase):

    def setUp(self):
        super().setUp()
        for writer in range(WRITERS):
            for attempt in range(WRITES_PER_WRITER):
                status, _ = self._send('PUT', '/traits/%s'
                                       % _trait(writer, attempt))
                self.assertEqual(201, status)

    def _new_provider(self):
        rp_uuid = str(uuid.uuid4())
        rp_obj.create_provider(self.placement.db, rp_uuid,
                               'race-%s' % rp_uuid[:8])
        return rp_uuid

    def _check(self, rp_uuid, results):
        landed = {}
        for kind, status, text, sent in results:
            self.assertIn(status, (200, 409), text)
            if status == 409:
                self.assertEqual('placement.concurrent_update',
                                 json.loads(text)['errors'][0]['code'])
                continue
            generation = json.loads(text)['resource_provider_generation']
            self.assertNotIn(generation, landed, 'a generation returned '
                             'by two successful writes')
            landed[generation] = (kind, sent)
        self.assertTrue(landed, 'no write landed at all')
        self.assertEqual(set(range(1, len(landed) + 1)), set(landed))
        provider = rp_obj.get_provider(self.placement.db, rp_uuid)
        self.assertEqual(len(landed), provider.generation)
        self._check_final_sets(rp_uuid, landed)

    def _check_final_sets(self, rp_uuid, landed):
        for kind in ('traits', 'aggregates'):
            last = [sent for generation, (sent_kind, sent)
                    in sorted(landed.items()) if sent_kind == kind]
            if not last:
                continue
            _, text = self._send('GET', '/resource_providers/%s/%s'
                                 % (rp_uuid, kind))
            self.assertEqual(sorted(last[-1]),
                             sorted(json.loads(text)[kind]))

    def _race(self, kind):
        for level in concurrency.ISOLATION_LEVELS[self.backend_name]:
            with self.subTest(isolation=level):
                self._set_isolation(level)
                rp_uuid = self._new_provider()
                results = _Storm(self._send, rp_uuid, kind).run()
                self.assertEqual(WRITERS * WRITES_PER_WRITER, len(results))
                self._check(rp_uuid, results)

    def test_trait_writes_land_once_or_conflict(self):
        self._race('traits')

    def test_aggregate_writes_land_once_or_conflict(self):
        self._race('aggregates')

    def test_mixed_writes_share_one_generation(self):
        self._race('mixed')


class MySQLProviderConcurrencyTest(_ConcurrencyBase, unittest.TestCase):
    backend_name = 'mysql'


class PostgreSQLProviderConcurrencyTest(_ConcurrencyBase, unittest.TestCase):
    backend_name = 'postgresql'


class GaleraProviderConcurrencyTest(_ConcurrencyBase, unittest.TestCase):
    backend_name = 'galera'


class _MoveBase(concurrency.BackendCase):
    """Crossing re-parents at 1.37 never build a cycle."""
    ROUNDS = 5

    def _create(self, name, parent=None):
        rp_uuid = str(uuid.uuid4())
        body = {'name': '%s-%s' % (name, rp_uuid[:8]), 'uuid': rp_uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        status, text = self._send('POST', '/resource_providers', body)
        self.assertEqual(200, status, text)
        return rp_uuid, body['name']

    def _move(self, provider, name, parent, results, barrier):
        barrier.wait()
        results.append(self._send(
            'PUT', '/resource_providers/%s' % provider,
            {'name': name, 'parent_provider_uuid': parent}))

    def _assert_forest(self, uuids):
        """Every parent chain ends at a root, which is the reported root."""
        shown = {}
        for rp_uuid in uuids:
            _, text = self._send('GET', '/resource_providers/%s' % rp_uuid)
            shown[rp_uuid] = json.loads(text)
        for start in uuids:
            seen, current = [], start
            while shown[current]['parent_provider_uuid'] is not None:
                self.assertNotIn(current, seen, 'cycle through %s' % start)
                seen.append(current)
                current = shown[current]['parent_provider_uuid']
            self.assertEqual(current, shown[start]['root_provider_uuid'])

    def test_crossing_moves_never_make_a_cycle(self):
        for _ in range(self.ROUNDS):
            (top_a, name_a), (top_b, name_b) = (self._create('a'),
                                                self._create('b'))
            child_a, _ = self._create('a1', top_a)
            child_b, _ = self._create('b1', top_b)
            results = []
            barrier = threading.Barrier(2)
            threads = [
                threading.Thread(target=self._move, args=(
                    top_a, name_a, child_b, results, barrier)),
                threading.Thread(target=self._move, args=(
                    top_b, name_b, child_a, results, barrier)),
            ]
            concurrency.run_threads(threads)
            statuses = sorted(status for status, _ in results)
            self.assertEqual([200, 400], statuses, results)
            self._assert_forest([top_a, top_b, child_a, child_b])


class MySQLMoveTest(_MoveBase, unittest.TestCase):
    backend_name = 'mysql'


class PostgreSQLMoveTest(_MoveBase, unittest.TestCase):
    backend_name = 'postgresql'


class GaleraMoveTest(_MoveBase, unittest.TestCase):
    backend_name = 'galera'
    # Without _touch_roots about one round in ten made a cycle here.
    ROUNDS = 20


class _NewAggregateBase(concurrency.BackendCase):
    """Providers joining the same brand-new aggregate at once all succeed:
    the losers of the aggregate-row race retry and find it."""
    PROVIDERS = 8

    def test_joining_one_new_aggregate_at_once(self):
        rp_uuids = [str(uuid.uuid4()) for _ in range(self.PROVIDERS)]
        for rp_uuid in rp_uuids:
            rp_obj.create_provider(self.placement.db, rp_uuid,
                                   'join-%s' % rp_uuid[:8])
        agg_uuid = str(uuid.uuid4())
        barrier = threading.Barrier(self.PROVIDERS)
        results = []

        def join(rp_uuid):
            barrier.wait()
            results.append(self._send(
                'PUT',
                '/resource_providers/%s/aggregates' % rp_uuid,
                {'aggregates': [agg_uuid],
                 'resource_provider_generation': 0}))

        threads = [threading.Thread(target=join, args=(rp_uuid,))
                   for rp_uuid in rp_uuids]
        concurrency.run_threads(threads)
        self.assertEqual([200] * self.PROVIDERS,
                         [status for status, _ in results], results)
        _, text = self._send('GET',
                             '/resource_providers?member_of=%s' % agg_uuid)
        self.assertEqual(self.PROVIDERS,
                         len(json.loads(text)['resource_providers']))


class MySQLNewAggregateTest(_NewAggregateBase, unittest.TestCase):
    backend_name = 'mysql'


class PostgreSQLNewAggregateTest(_NewAggregateBase, unittest.TestCase):
    backend_name = 'postgresql'


class GaleraNewAggregateTest(_NewAggregateBase, unittest.TestCase):
    backend_name = 'galera'


class _DeleteWhileClaimingBase(concurrency.BackendCase):
    """A provider deleted while consumers claim from it leaves no orphan:
    either the delete lost (409, the provider keeps its allocations) or
    it won and no allocation against it survives."""
    CLAIMERS = 6
    ROUNDS = 4

    def _provider_with_inventory(self):
        rp_uuid = str(uuid.uuid4())
        rp_obj.create_provider(self.placement.db, rp_uuid,
                               'doomed-%s' % rp_uuid[:8])
        status, text = self._send(
            'PUT', '/resource_providers/%s/inventories' % rp_uuid,
            {'resource_provider_generation': 0,
             'inventories': {'VCPU': {'total': 100}}})
        self.assertEqual(200, status, text)
        return rp_uuid

    def _claim(self, rp_uuid, barrier, results):
        consumer = str(uuid.uuid4())
        barrier.wait()
        status, text = self._send('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        results.append(('claim', status, text))

    def _delete(self, rp_uuid, barrier, results):
        barrier.wait()
        status, text = self._send('DELETE', '/resource_providers/%s'
                                  % rp_uuid)
        results.append(('delete', status, text))

    def _round(self):
        rp_uuid = self._provider_with_inventory()
        barrier = threading.Barrier(self.CLAIMERS + 1)
        results = []
        threads = [threading.Thread(target=self._claim,
                                    args=(rp_uuid, barrier, results))
                   for _ in range(self.CLAIMERS)]
        threads.append(threading.Thread(target=self._delete,
                                        args=(rp_uuid, barrier, results)))
        concurrency.run_threads(threads)
        for _, status, text in results:
            self.assertLess(status, 500, text)
        status, text = self._send('GET', '/resource_providers/%s/allocations'
                                  % rp_uuid)
        return rp_uuid, results, status, text

    def test_no_orphan_allocations(self):
        for _ in range(self.ROUNDS):
            rp_uuid, results, status, text = self._round()
            deleted = [r for r in results if r[0] == 'delete'][0][1] == 204
            claimed = sum(1 for kind, code, _ in results
                          if kind == 'claim' and code == 204)
            if deleted:
                self.assertEqual(404, status)
                with self.placement.db.writer.begin() as conn:
                    orphans = conn.execute(sa.text(
                        'SELECT COUNT(*) FROM allocations a WHERE NOT '
                        'EXISTS (SELECT 1 FROM resource_providers rp '
                        'WHERE rp.id = a.resource_provider_id)')).scalar()
                self.assertEqual(0, orphans)
            else:
                self.assertEqual(200, status, text)
                self.assertEqual(claimed,
                                 len(json.loads(text)['allocations']))


class MySQLDeleteWhileClaimingTest(_DeleteWhileClaimingBase,
                                   unittest.TestCase):
    backend_name = 'mysql'


class PostgreSQLDeleteWhileClaimingTest(_DeleteWhileClaimingBase,
                                        unittest.TestCase):
    backend_name = 'postgresql'


class GaleraDeleteWhileClaimingTest(_DeleteWhileClaimingBase,
                                    unittest.TestCase):
    backend_name = 'galera'


class _ForeignKeyRaceBase(concurrency.BackendCase):
    """Deletes racing writes that reference the deleted row answer 4xx,
    never 5xx, and leave no dangling reference."""
    ROUNDS = 4
    WRITERS = 4

    def _race(self, requests):
        """Run [(method, path, body)] at once; their (status, text)."""
        barrier = threading.Barrier(len(requests))
        results = [None] * len(requests)

        def run(index, request):
            barrier.wait()
            results[index] = self._send(*request)

        threads = [threading.Thread(target=run, args=(index, request))
                   for index, request in enumerate(requests)]
        concurrency.run_threads(threads)
        for status, text in results:
            self.assertLess(status, 500, text)
        return results

    def _count(self, sql):
        with self.placement.db.writer.begin() as conn:
            return conn.execute(sa.text(sql)).scalar()

    def test_deleting_a_trait_while_providers_take_it(self):
        for round_ in range(self.ROUNDS):
            trait = 'CUSTOM_RACE_%d' % round_
            self.assertEqual(201, self._send('PUT', '/traits/' + trait)[0])
            rp_uuids = [str(uuid.uuid4()) for _ in range(self.WRITERS)]
            for rp_uuid in rp_uuids:
                rp_obj.create_provider(self.placement.db, rp_uuid,
                                       'fk-%s' % rp_uuid[:8])
            requests = [('PUT', '/resource_providers/%s/traits' % rp_uuid,
                         {'traits': [trait],
                          'resource_provider_generation': 0})
                        for rp_uuid in rp_uuids]
            requests.append(('DELETE', '/traits/' + trait, None))
            self._race(requests)
        self.assertEqual(0, self._count(
            'SELECT COUNT(*) FROM resource_provider_traits rpt WHERE NOT '
            'EXISTS (SELECT 1 FROM traits t WHERE t.id = rpt.trait_id)'))

    def test_deleting_a_parent_while_children_are_created(self):
        for _ in range(self.ROUNDS):
            parent = str(uuid.uuid4())
            rp_obj.create_provider(self.placement.db, parent,
                                   'parent-%s' % parent[:8])
            requests = [('POST', '/resource_providers',
                         {'name': 'child-%s' % uuid.uuid4().hex[:12],
                          'parent_provider_uuid': parent})
                        for _ in range(self.WRITERS)]
            requests.append(('DELETE', '/resource_providers/' + parent,
                             None))
            self._race(requests)
        self.assertEqual(0, self._count(
            'SELECT COUNT(*) FROM resource_providers c WHERE '
            'c.parent_provider_id IS NOT NULL AND NOT EXISTS (SELECT 1 '
            'FROM resource_providers p WHERE p.id = c.parent_provider_id)'))


class MySQLForeignKeyRaceTest(_ForeignKeyRaceBase, unittest.TestCase):
    backend_name = 'mysql'


class PostgreSQLForeignKeyRaceTest(_ForeignKeyRaceBase, unittest.TestCase):
    backend_name = 'postgresql'


class GaleraForeignKeyRaceTest(_ForeignKeyRaceBase, unittest.TestCase):
    backend_name = 'galera'
