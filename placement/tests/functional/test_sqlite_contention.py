"""Contended writes on SQLite answer as on any backend: never a 500.

SQLite lets one writer at a time; a transaction that read and then wants
to write while another writes is refused at once ("database is locked",
SQLITE_BUSY), whatever its busy timeout. That is a race lost, not a
fault: the operation is run again (db/retry.py), and when the lock
outlasts the retry budget the answer is 503 placement.database.unavailable
with its JSON body, never 500.
"""
import json
import threading
import unittest
import uuid

from placement.testing import concurrency

THREADS = 8
CLAIMS = 6


class SQLiteContentionTest(concurrency.BackendCase, unittest.TestCase):
    backend_name = 'sqlite'

    def setUp(self):
        super().setUp()
        self.providers = []
        for index in range(2):
            rp = str(uuid.uuid4())
            status, _ = self._send('POST', '/resource_providers',
                                   {'name': 'rp%d' % index, 'uuid': rp})
            self.assertEqual(200, status)
            status, _ = self._send(
                'PUT', '/resource_providers/%s/inventories' % rp,
                {'resource_provider_generation': 0,
                 'inventories': {'VCPU': {'total': THREADS * CLAIMS}}})
            self.assertEqual(200, status)
            self.providers.append(rp)

    def _claims(self, index, barrier, statuses):
        barrier.wait()
        for attempt in range(CLAIMS):
            consumer = str(uuid.uuid4())
            status, text = self._send('PUT', '/allocations/%s' % consumer, {
                'allocations': {self.providers[(index + attempt) % 2]: {
                    'resources': {'VCPU': 1}}},
                'project_id': 'p%d' % index, 'user_id': 'u%d' % index,
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})
            statuses.append((status, text))

    def test_racing_claims_are_retried_not_500(self):
        statuses, barrier = [], threading.Barrier(THREADS)
        concurrency.run_threads([
            threading.Thread(target=self._claims,
                             args=(index, barrier, statuses))
            for index in range(THREADS)], timeout=120)
        self.assertEqual(THREADS * CLAIMS, len(statuses))
        for status, text in statuses:
            self.assertIn(status, (204, 409, 503), text)
            if status == 503:
                error = json.loads(text)['errors'][0]
                self.assertEqual('placement.database.unavailable',
                                 error['code'])
        # The server_errors cleanup of BackendCase asserts no 5xx but the
        # 503s above; on a quiet machine every claim lands.
        self.server_errors[:] = [error for error in self.server_errors
                                 if error[2] != 503]
