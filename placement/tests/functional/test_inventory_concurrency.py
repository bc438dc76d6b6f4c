"""Concurrent inventory writers of one provider (MariaDB, PostgreSQL and
Galera, where writer i goes through node i % 3).

Several threads write the inventory of one provider through the real WSGI
app (in process), each reading the generation first and sending it back:
PUT of the whole set, PUT of one class, POST and DELETE of one class.
Afterwards every write either landed exactly once (200/201/204, with a
generation nobody else got) or was refused with 409
placement.concurrent_update; the final generation equals the number of
writes that landed; the stored inventory is the one the last landed write
asked for; nothing answered 5xx. Each backend runs at each isolation level
it offers.

SQLite is skipped: it serializes writers and proves nothing here.
"""
import json
import threading
import unittest
import uuid

from placement.db import api as db_api
from placement.db import backend
from placement.testing import concurrency

WRITERS = 8
WRITES_PER_WRITER = 12


class _Writes:
    """The write storm; ``send(method, path, body)`` -> (status, json)."""

    def __init__(self, send, rp_uuid):
        self.send = send
        self.path = '/resource_providers/%s/inventories' % rp_uuid
        self.landed = []      # (generation, expected VCPU total or None)
        self.refused = []
        self.unexpected = []
        self.lock = threading.Lock()

    def _generation(self):
        status, body = self.send('GET', self.path)
        assert status == 200, (status, body)
        return body['resource_provider_generation']

    def _one_write(self, total, kind):
        """Send one write; return (status, body, expected VCPU total)."""
        if kind == 'put-all':
            return self.send('PUT', self.path, {
                'resource_provider_generation': self._generation(),
                'inventories': {'VCPU': {'total': total},
                                'DISK_GB': {'total': total}}}) + (total,)
        if kind == 'put-one':
            status, body = self.send('PUT', self.path + '/VCPU', {
                'resource_provider_generation': self._generation(),
                'total': total})
            # The class may have been deleted by a DELETE writer: 400.
            return status, body, total
        if kind == 'post':
            status, body = self.send('POST', self.path, {
                'resource_class': 'VCPU', 'total': total})
            return status, body, total
        status, body = self.send('DELETE', self.path + '/VCPU')
        return status, body, None

    def _writer(self, index, barrier):
        kinds = ('put-all', 'put-one', 'post', 'delete')
        barrier.wait()
        for attempt in range(WRITES_PER_WRITER):
            total = 1000 * (index + 1) + attempt
            kind = kinds[(index + attempt) % len(kinds)]
            status, body, expected = self._one_write(total, kind)
            with self.lock:
                self._record(kind, status, body, expected)

    def _record(self, kind, status, body, expected):
        if status in (200, 201):
            self.landed.append((body['resource_provider_generation'],
                                expected))
        elif status == 204:
            # DELETE answers no body: its generation is found later as the
            # one missing from the sequence.
            self.landed.append((None, expected))
        elif status == 409 and _code(body) == 'placement.concurrent_update':
            self.refused.append(kind)
        elif (kind in ('put-one', 'delete') and status in (400, 404)
              or kind == 'post' and status == 409):
            # Class absent (put-one/delete) or present (post): the answer
            # to a state another writer made, not a race. Changed nothing.
            self.refused.append(kind)
        else:
            self.unexpected.append((kind, status, body))

    def run(self):
        barrier = threading.Barrier(WRITERS)
        threads = [threading.Thread(target=self._writer, args=(i, barrier))
                   for i in range(WRITERS)]
        concurrency.run_threads(threads, timeout=300)


def _code(body):
    try:
        return body['errors'][0].get('code')
    except (KeyError, IndexError, TypeError):
        return None


class _InventoryConcurrency(concurrency.BackendCase):

    def _send(self, method, path, body=None):
        """(status, decoded JSON body or None)."""
        status, text = super()._send(method, path, body)
        return status, (json.loads(text) if text else None)

    def test_writes_read_first_where_reads_wait_for_the_cluster(self):
        # Galera with wsrep_sync_wait (every node app here): a generation
        # swap begins with its locking read, which waits for the cluster,
        # not with an UPDATE, which does not (backend.writes_read_first).
        with db_api.transaction(self.placement.db) as conn:
            self.assertEqual(self.backend_name == 'galera',
                             backend.writes_read_first(conn))

    def _new_provider(self):
        rp_uuid = str(uuid.uuid4())
        status, body = self._send('POST', '/resource_providers', {
            'name': 'inv-race-%s' % rp_uuid[:8], 'uuid': rp_uuid})
        self.assertEqual(200, status, body)
        return rp_uuid

    def _check(self, writes, rp_uuid):
        self.assertEqual([], writes.unexpected)
        self.assertEqual(WRITERS * WRITES_PER_WRITER,
                         len(writes.landed) + len(writes.refused))
        self.assertTrue(writes.landed, 'no write landed at all')
        status, body = self._send(
            'GET', '/resource_providers/%s/inventories' % rp_uuid)
        final_generation = body['resource_provider_generation']
        # Every landed write bumped the generation exactly once.
        self.assertEqual(len(writes.landed), final_generation)
        seen = [gen for gen, _ in writes.landed if gen is not None]
        self.assertEqual(len(seen), len(set(seen)), 'a generation twice')
        self.assertTrue(set(seen) <= set(range(1, final_generation + 1)))
        # The stored VCPU is what the write with the top generation asked.
        by_generation = dict(writes.landed)
        missing = set(range(1, final_generation + 1)) - set(seen)
        for generation in missing:
            by_generation[generation] = None    # a DELETE landed there
        expected = by_generation[final_generation]
        stored = body['inventories'].get('VCPU', {}).get('total')
        self.assertEqual(expected, stored)

    def _storm(self):
        rp_uuid = self._new_provider()
        writes = _Writes(self._send, rp_uuid)
        writes.run()
        self._check(writes, rp_uuid)
        return writes

    def test_writers_land_once_or_conflict(self):
        for level in concurrency.ISOLATION_LEVELS[self.backend_name]:
            with self.subTest(isolation=level):
                self._set_isolation(level)
                writes = self._storm()
                # The storm must have produced real races.
                self.assertTrue(writes.refused, 'no write was refused')

    def _create_classes(self, method, names):
        """Create ``names`` from WRITERS threads at once; {name: [status]}."""
        results = {}
        lock = threading.Lock()
        barrier = threading.Barrier(WRITERS)

        def writer(index):
            barrier.wait()
            for name in names[index::WRITERS]:
                if method == 'POST':
                    status, _ = self._send('POST', '/resource_classes',
                                           {'name': name})
                else:
                    status, _ = self._send('PUT', '/resource_classes/' + name)
                with lock:
                    results.setdefault(name, []).append(status)

        threads = [threading.Thread(target=writer, args=(i,))
                   for i in range(WRITERS)]
        concurrency.run_threads(threads, timeout=300)
        return results

    def _custom_ids(self):
        from placement.objects import resource_class as rc_obj
        return {rc.name: rc.id
                for rc in rc_obj.list_resource_classes(self.placement.db)
                if not rc.is_standard}

    def test_custom_classes_get_distinct_ids(self):
        for level in concurrency.ISOLATION_LEVELS[self.backend_name]:
            with self.subTest(isolation=level):
                self._set_isolation(level)
                tag = uuid.uuid4().hex[:6].upper()
                names = ['CUSTOM_RACE_%s_%d' % (tag, i)
                         for i in range(WRITERS * 4)]
                results = self._create_classes('POST', names)
                self.maxDiff = None
                self.assertEqual({name: [201] for name in names}, results)
                ids = self._custom_ids()
                mine = [ids[name] for name in names]
                self.assertEqual(len(mine), len(set(mine)))
                self.assertTrue(min(ids.values()) >= 10000)

    def test_one_name_is_created_once(self):
        for level in concurrency.ISOLATION_LEVELS[self.backend_name]:
            with self.subTest(isolation=level):
                self._set_isolation(level)
                name = 'CUSTOM_SAME_%s' % uuid.uuid4().hex[:6].upper()
                results = self._create_classes('PUT', [name] * WRITERS)
                self.assertEqual([201] + [204] * (WRITERS - 1),
                                 sorted(results[name]))


class InventoryConcurrencyMySQL(_InventoryConcurrency, unittest.TestCase):
    backend_name = 'mysql'


class InventoryConcurrencyPostgreSQL(_InventoryConcurrency,
                                     unittest.TestCase):
    backend_name = 'postgresql'


class InventoryConcurrencyGalera(_InventoryConcurrency, unittest.TestCase):
    backend_name = 'galera'
