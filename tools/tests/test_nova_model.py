"""tools/nova_fleet: the Nova model's timeline and the asyncio client."""
import asyncio
import collections
import threading
import unittest
import wsgiref.simple_server

from tools.benchlib import aioload
from tools.benchlib import nova_model

UUIDS = ['rp%d' % i for i in range(100)]


class TestTimeline(unittest.TestCase):

    def test_rates_are_novas(self):
        model = nova_model.Model(migrations=0.0)
        events = nova_model.timeline(model, UUIDS, 600.0, 1.0, 7)
        kinds = collections.Counter(kind for _, kind, _ in events)
        # 100 nodes: an allocations read a minute, a refresh each 300 s.
        self.assertEqual(1000, kinds['periodic'])
        self.assertEqual(200, kinds['refresh'])
        self.assertEqual(20, kinds['metrics'])
        self.assertEqual(5, kinds['capacity'])
        self.assertLess(abs(kinds['boot'] - 600), 100)  # Poisson, 1/s

    def test_seeded_ordered_and_bounded(self):
        model = nova_model.Model()
        first = nova_model.timeline(model, UUIDS, 120.0, 5.0, 3)
        self.assertEqual(first, nova_model.timeline(model, UUIDS, 120.0,
                                                    5.0, 3))
        self.assertNotEqual(first, nova_model.timeline(model, UUIDS, 120.0,
                                                       5.0, 4))
        times = [at for at, _, _ in first]
        self.assertEqual(sorted(times), times)
        self.assertLess(times[-1], 120.0)

    def test_speed_compresses_time(self):
        model = nova_model.Model(scheduler=False, scrapes=False)
        events = nova_model.timeline(model, UUIDS, 60.0, 5.0, 1)
        self.assertEqual(500, sum(1 for e in events if e[1] == 'periodic'))
        self.assertEqual(500.0, nova_model.node_minutes(model, 100, 60.0,
                                                        5.0))

    def test_parts_can_be_run_alone(self):
        model = nova_model.Model(nodes=False, scrapes=False)
        kinds = {kind for _, kind, _ in nova_model.timeline(
            model, UUIDS, 300.0, 1.0, 1)}
        self.assertEqual({'boot', 'migrate'}, kinds)


def _app(environ, start_response):
    body = b'{"path": "%s"}' % environ['PATH_INFO'].encode()
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', str(len(body)))])
    return [body]


class TestPool(unittest.TestCase):

    def test_requests_through_the_pool(self):
        # wsgiref answers HTTP/1.0: each answer ends its connection.
        server = wsgiref.simple_server.make_server('127.0.0.1', 0, _app)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)

        async def run():
            pool = aioload.Pool('http://127.0.0.1:%d' % server.server_port,
                                2)
            found = await asyncio.gather(*[
                pool.json('GET', '/x/%d' % i) for i in range(5)])
            await pool.close()
            return found
        found = asyncio.run(run())
        self.assertEqual([{'path': '/x/%d' % i} for i in range(5)], found)

    def test_loopback_only(self):
        self.assertRaises(ValueError, aioload.Pool, 'http://10.0.0.1:80', 1)
