"""Placement on a real three-node MariaDB Galera cluster.

One cluster (testing/galera.py) serves the whole class; each test has a
fresh database. Each scenario runs uwsgi API servers pinned one per node
or behind HAProxy, fills 20 providers with unpaced claims and deletes,
hits node 2 with a fault mid-run (killed, frozen, or its proxied
connections cut while it stalls), then checks (testing/
galera_scenarios.py): no over-commit at any instant on node 0 nor at the
end on any node, every 2xx claim present exactly once unless deleted,
every failed write absent, no orphan consumer, identical rows on every
node, no 5xx but 503 with Retry-After while a pinned host's node cannot
serve, and behind HAProxy no error at all. The pinned fault scenarios set
retry_budget to 20 s (why: see galera_scenarios.SCENARIOS); the HAProxy
ones run with the default.

The concurrency tests (test_*_concurrency.py, ``Galera*`` classes) run on
a cluster of their own with writers spread over the nodes
(testing/galera_backend.py).

Skipped when mariadbd, galera-4, rsync, haproxy or uwsgi is missing,
unless PLACEMENT_TEST_REQUIRE_BACKENDS is set (as .ci/run does): then it
fails. PLACEMENT_TEST_GALERA_PORT moves the block of ports used (base to
base + 18; default 18200). With PLACEMENT_TEST_GALERA_REPORT naming a
file, each scenario's figures are appended to it.
"""
import json
import os
import unittest
import uuid

from placement.db import api as db_api
from placement.db import health
from placement import deploy
from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import concurrency
from placement.testing import galera
from placement.testing import galera_load
from placement.testing import galera_scenarios
from placement.testing import late_commit
from placement.testing import tcp_proxy

BASE_PORT = int(os.environ.get('PLACEMENT_TEST_GALERA_PORT', '18200'))
API_PORTS = [BASE_PORT + galera.PORTS + index for index in range(4)]


def _missing():
    missing = []
    if not galera.available():
        missing.append('mariadbd, galera-4 or rsync')
    if not galera_load.haproxy_available():
        missing.append('haproxy')
    if not galera_load.uwsgi_available():
        missing.append('uwsgi')
    return missing


class GaleraClusterTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        missing = _missing()
        if missing:
            message = 'not installed: %s' % ', '.join(missing)
            if backends.required():
                raise RuntimeError(message)
            raise unittest.SkipTest(message)
        cls.cluster = galera.Cluster(BASE_PORT)
        cls.cluster.start()
        cls.health = galera.HealthCheck(cls.cluster)
        cls.health.start()

    @classmethod
    def tearDownClass(cls):
        cls.health.stop()
        cls.cluster.stop()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self._heal()
        self.database = galera_scenarios.database_name()
        self.cluster.create_database(self.database)
        self.addCleanup(self.cluster.drop_database, self.database)
        conf = app_fixture.make_conf(self.cluster.url(0, self.database))
        db = db_api.create_database(conf)
        try:
            app_fixture.create_schema(db)
        finally:
            db.dispose()

    def _heal(self):
        """Every node running and synced (a failed test may leave one
        down or frozen)."""
        for node in self.cluster.nodes:
            if not node.running:
                node.start()
            self.cluster.thaw(node.index)
        for node in self.cluster.nodes:
            self.cluster.wait_synced(node.index, timeout=120)

    def _scenario(self, name):
        scenario = galera_scenarios.SCENARIOS[name]
        report = galera_scenarios.run(self.cluster, scenario, API_PORTS,
                                      self.database)
        lines = '\n'.join(report.lines())
        path = os.environ.get('PLACEMENT_TEST_GALERA_REPORT')
        if path:
            with open(path, 'a') as out:
                out.write(lines + '\n')
        self.assertEqual([], report.problems, lines)
        claims = report.figures['claim statuses']
        self.assertGreater(claims.get('200', 0) + claims.get('204', 0), 50,
                           lines)
        return report

    def test_writers_on_every_node(self):
        self._scenario('multi-writer')

    def test_pinned_node_killed_and_rejoins_by_ist(self):
        self._scenario('kill-pinned')

    def test_pinned_node_frozen(self):
        self._scenario('freeze-pinned')

    def test_haproxy_single_writer_killed(self):
        self._scenario('haproxy-single-kill')

    def test_haproxy_round_robin_node_killed(self):
        self._scenario('haproxy-roundrobin-kill')

    def test_haproxy_round_robin_node_frozen(self):
        self._scenario('haproxy-roundrobin-freeze')

    def test_haproxy_round_robin_sessions_cut(self):
        """HAProxy closes node 2's connections while the node stalls,
        again and again: COMMITs lost in flight, checked on the other
        nodes while the stalled one may still land them."""
        self._scenario('haproxy-roundrobin-cut')

    # --- a COMMIT lost on node 2, checked on node 0 before it lands ------

    def _app_via_proxy_to(self, index):
        """(app, db, proxy): an in-process app reaching node ``index``
        through a proxy (testing/late_commit.py), with read-your-writes
        as a round-robin deployment has it."""
        proxy = tcp_proxy.TCPProxy(tcp_proxy.port_block(), (
            '127.0.0.1', self.cluster.nodes[index].port))
        proxy.start()
        self.addCleanup(proxy.stop)
        url = self.cluster.url(index, self.database).replace(
            ':%d/' % self.cluster.nodes[index].port, ':%d/' % proxy.port)
        conf = app_fixture.make_conf(
            url, **{'placement_database.mysql_wsrep_sync_wait': 1})
        db = db_api.create_database(conf)
        self.addCleanup(db.dispose)
        return deploy.loadapp(conf, db=db), db, proxy

    def _send(self, app, method, path, body=None, expect=None):
        status, text = concurrency.send(app, method, path, body)
        if expect is not None:
            self.assertEqual(expect, status, text)
        return status, text

    def _provider(self, app):
        rp_uuid = str(uuid.uuid4())
        self._send(app, 'POST', '/resource_providers',
                   {'name': rp_uuid, 'uuid': rp_uuid}, expect=200)
        self._send(app, 'PUT', '/resource_providers/%s/inventories'
                   % rp_uuid, {'resource_provider_generation': 0,
                               'inventories': {'VCPU': {'total': 8}}},
                   expect=200)
        return rp_uuid

    def _claim_path_body(self, rp_uuid, vcpu):
        return '/allocations/%s' % uuid.uuid4(), {
            'allocations': {rp_uuid: {'resources': {'VCPU': vcpu}}},
            'project_id': galera_load.PROJECT, 'user_id': galera_load.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}

    def _allocations_everywhere(self, consumer):
        sql = ('SELECT resource_provider_id, used FROM allocations '
               'WHERE consumer_id = %s')
        return [list(self.cluster.rows(node.index, self.database, sql,
                                       [consumer]))
                for node in self.cluster.nodes]

    def test_delete_landing_late_on_another_node_answers_204(self):
        """The check on node 0 missed the DELETE still in flight on node
        2; the next attempt found nothing: 204, not its 404."""
        app, db, proxy = self._app_via_proxy_to(2)
        path, body = self._claim_path_body(self._provider(app), 2)
        self._send(app, 'PUT', path, body, expect=204)
        late_commit.arrange(self, db, proxy, then_to=(
            '127.0.0.1', self.cluster.nodes[0].port))
        self._send(app, 'DELETE', path, expect=204)
        consumer = path.rsplit('/', 1)[1]
        self.assertEqual([[]] * 3, self._allocations_everywhere(consumer))

    def test_claim_landing_late_on_another_node_answers_204(self):
        """The check on node 0 missed the claim still in flight on node
        2; the next attempt found its consumer: 204, not its 409."""
        app, db, proxy = self._app_via_proxy_to(2)
        rp_uuid = self._provider(app)
        path, body = self._claim_path_body(rp_uuid, 3)
        late_commit.arrange(self, db, proxy, then_to=(
            '127.0.0.1', self.cluster.nodes[0].port))
        self._send(app, 'PUT', path, body, expect=204)
        consumer = path.rsplit('/', 1)[1]
        rows = self._allocations_everywhere(consumer)
        self.assertEqual(1, len(rows[0]), rows)
        self.assertEqual([rows[0]] * 3, rows)
        status, text = self._send(
            app, 'GET', '/resource_providers/%s/usages' % rp_uuid,
            expect=200)
        self.assertEqual({'VCPU': 3}, json.loads(text)['usages'])

    def test_health_probe_names_each_node_and_its_state(self):
        """/healthcheck's database probe: the node that answered, Synced
        and Primary; a frozen node gets its bounded no-answer."""
        engines = []
        for node in self.cluster.nodes:
            engine = health.probe_engine(
                self.cluster.url(node.index, self.database), 2.0)
            engines.append(engine)
            answer = health.run_probe(engine)
            self.assertTrue(answer.is_galera)
            self.assertTrue(answer.is_ready, answer)
            self.assertTrue(answer.node.endswith(':%d' % node.port), answer)
        self.cluster.freeze(2)
        try:
            probe = health.BoundedProbe(
                lambda: health.run_probe(engines[2]), 2.0)
            with self.assertRaises(health.NoAnswer) as caught:
                probe.check()
            self.assertIn('no answer within', caught.exception.reason)
        finally:
            self.cluster.thaw(2)

    def test_read_your_writes_across_nodes(self):
        """With wsrep_sync_wait on, a claim made through the host on
        node 0 is at once visible through the host on node 1."""
        options = {'placement_database.mysql_wsrep_sync_wait': 1}
        servers = [galera_load.ApiServer(
            'api%d' % index, API_PORTS[index],
            self.cluster.url(index, self.database), options)
            for index in range(2)]
        for server in servers:
            server.start()
            self.addCleanup(server.stop)
        for server in servers:
            server.wait()
        load = galera_load.Load(servers, providers=1, capacity=1000)
        load.setup()
        writer, reader = (server.port for server in servers)
        provider = load.providers[0]
        for count in range(1, 41):
            consumer = str(uuid.uuid4())
            status, text, _ = galera_load.http_request(
                writer, 'PUT', '/allocations/%s' % consumer, {
                    'allocations': {provider: {'resources': {'VCPU': 1}}},
                    'project_id': galera_load.PROJECT,
                    'user_id': galera_load.USER,
                    'consumer_generation': None})
            self.assertEqual(204, status, text)
            status, text, _ = galera_load.http_request(
                reader, 'GET', '/allocations/%s' % consumer)
            self.assertEqual(200, status, text)
            self.assertEqual({provider: {'resources': {'VCPU': 1}}},
                             {rp: {'resources': alloc['resources']}
                              for rp, alloc in json.loads(text)[
                                  'allocations'].items()})
            status, text, _ = galera_load.http_request(
                reader, 'GET', '/resource_providers/%s/usages' % provider)
            self.assertEqual(count, json.loads(text)['usages']['VCPU'])
