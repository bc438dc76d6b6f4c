"""benchlib.inprocess.Statements counts the round trips MariaDB receives.

Each request runs on the one pooled connection of each engine (the
writer, and on MySQL the autocommit engine of the reads without
snapshot), between two looks at their sessions' ``Questions`` (what the
server counts, as placement/tests/functional/test_db_reader.py reads
it): the difference, less the first look's ROLLBACK on the writer and
the second look's SHOWs, is what the request sent, and the counter must
say the same.
"""
import unittest
import uuid

import sqlalchemy as sa

from placement.testing import concurrency
from tools.benchlib import inprocess


class MySQLCounterTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        backend = concurrency.backend('mysql')
        if backend is None:
            self.skipTest('mysql is not available')
        url = backend.create()
        self.addCleanup(backend.drop, url)
        self.app, db = inprocess.build(
            url, **{'placement_database.max_pool_size': 1,
                    'placement_database.max_overflow': 0})
        self.addCleanup(db.dispose)
        self.engines = db.engines()
        self.assertEqual(2, len(self.engines))
        self.counter = inprocess.Statements(*self.engines)

    def _questions(self):
        """The sessions' Questions, summed; each look is one SHOW, then
        (on the writer only, not in autocommit) one ROLLBACK."""
        total = 0
        with self.counter.detached():
            for engine in self.engines:
                with engine.connect() as conn:
                    total += int(conn.execute(sa.text(
                        "SHOW SESSION STATUS LIKE 'Questions'")).one()[1])
        return total

    def _trips(self, method, path, body=None, status=None):
        """(round trips MariaDB received, round trips counted)."""
        before = self._questions()
        counted = self.counter.trips
        got, answer = inprocess.call(self.app, path, method, body)
        if status is not None:
            self.assertEqual(status, got, answer)
        counted = self.counter.trips - counted
        return self._questions() - before - 1 - len(self.engines), counted

    def test_writes_reads_and_a_failed_write(self):
        rp = str(uuid.uuid4())
        inventories = '/resource_providers/%s/inventories' % rp
        requests = [
            ('POST', '/resource_providers', {'name': 'a",["', 'uuid': rp},
             200),
            ('PUT', inventories, {'resource_provider_generation': 0,
                                  'inventories': {'VCPU': {'total': 8}}},
             200),
            ('GET', inventories, None, 200),
            ('GET', '/resource_providers', None, 200),
            ('PUT', '/allocations/%s' % uuid.uuid4(),
             {'allocations': {rp: {'resources': {'VCPU': 1}}},
              'project_id': 'p', 'user_id': 'u',
              'consumer_generation': None, 'consumer_type': 'INSTANCE'},
             204),
            # A lost generation: the write's ROLLBACK, none after it.
            ('PUT', inventories, {'resource_provider_generation': 0,
                                  'inventories': {'VCPU': {'total': 4}}},
             409),
            ('GET', '/allocation_candidates?resources=VCPU:1', None, 200),
        ]
        for method, path, body, status in requests:
            server, counted = self._trips(method, path, body, status)
            self.assertGreater(server, 0)
            self.assertEqual(server, counted, '%s %s' % (method, path))
