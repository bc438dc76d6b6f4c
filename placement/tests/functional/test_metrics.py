"""/metrics under uwsgi with two workers, scraped by a real Prometheus.

The service runs with ``[metrics] enabled`` (anonymous: Prometheus sends
no Keystone token) on MariaDB (else PostgreSQL, else SQLite). Checked
with PromQL through Prometheus' HTTP API:

- ``openstack_placement_resource_usage / openstack_placement_resource_total``
  of each provider and class equals usage / total as the API reports them;
- the requests sent add up, over both workers (each served some, as the
  multiprocess directory shows), to what ``placement_http_requests_total``
  counts for their route;
- every metric the Grafana dashboard and the alert rules of
  ``etc/placement/monitoring`` use is in a scrape, and each of their
  expressions is valid PromQL that Prometheus evaluates.

Without a token, /metrics answers 401 when not anonymous, 403 to a
caller the ``placement:metrics`` rule refuses, 200 to an admin.
"""
import json
import os
import re
import tempfile
import threading
import unittest
import uuid

import yaml

from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import prometheus
from placement.testing import uwsgi

ADMIN = {'x-auth-token': 'admin', 'content-type': 'application/json',
         'openstack-api-version': 'placement 1.39'}
MONITORING = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                          'etc', 'placement', 'monitoring')
DASHBOARD = os.path.join(MONITORING, 'placement-grafana-dashboard.json')
ALERTS = os.path.join(MONITORING, 'placement-alert-rules.yaml')
# Grafana's variables, as a query of the dashboard would get them.
VARIABLES = {'$__rate_interval': '1m', '$__interval': '1m',
             '$__range': '5m', '$resourcetype': 'VCPU',
             '$hostname': '.*', '$route': '.*'}
# Ours, and os-capacity's families (openstack_free_capacity_*,
# openstack_project_usage, openstack_hypervisor_placement_*).
METRIC_RE = re.compile(
    r'\b((?:openstack_)?placement_[a-zA-Z0-9_]+|openstack_free_capacity_'
    r'[a-zA-Z0-9_]+|openstack_project_usage|openstack_hypervisor_placement_'
    r'[a-zA-Z0-9_]+)')
SHAPES = '[capacity]\nshape = small = resources=VCPU:1\n'
# (name, {class: (total, used)}) of the providers the test makes.
PROVIDERS = (
    ('metrics-cn1', {'VCPU': (8, 3), 'MEMORY_MB': (4096, 1024)}),
    ('metrics-cn2', {'VCPU': (16, 0), 'DISK_GB': (100, 40)}),
    ('metrics-cn3', {'VCPU': (4, 4)}),
)
GETS = 40
# Rounds of GETS before the test gives up on the second worker.
MAX_ROUNDS = 25


def _backend():
    """MariaDB, else PostgreSQL, else SQLite (a file both workers see)."""
    available = {backend.name: backend for backend in backends.available()}
    for name in ('mysql', 'postgresql', 'sqlite'):
        if name in available:
            return available[name]
    raise unittest.SkipTest('no database backend available')


def expressions():
    """Every PromQL expression of the dashboard and the alert rules."""
    with open(DASHBOARD) as handle:
        dashboard = json.load(handle)
    found = [target['expr'] for panel in dashboard['panels']
             for target in panel.get('targets', ()) if 'expr' in target]
    with open(ALERTS) as handle:
        rules = yaml.safe_load(handle)
    found += [rule['expr'] for group in rules['groups']
              for rule in group['rules']]
    return found


def substituted(expr):
    for name, value in VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


class MetricsScrapeTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        backend = _backend()
        self.url = backend.create()
        self.addCleanup(backend.drop, self.url)
        db = app_fixture.open_database(app_fixture.make_conf(self.url))
        db.dispose()
        self.metrics_dir = tempfile.mkdtemp(prefix='placement-metrics-')
        self.env = {'OS_METRICS__ENABLED': 'true',
                    'OS_METRICS__ALLOW_ANONYMOUS': 'true',
                    'OS_METRICS__MULTIPROCESS_DIR': self.metrics_dir,
                    'OS_METRICS__CAPACITY_CACHE_SECONDS': '1'}

    def _provider(self, port, name, classes):
        rp_uuid = str(uuid.uuid4())
        status, _, _ = uwsgi.http(port, 'POST', '/resource_providers',
                                  {'name': name, 'uuid': rp_uuid}, ADMIN)
        self.assertEqual(200, status)
        inventories = {rc: {'total': total}
                       for rc, (total, _) in classes.items()}
        status, text, _ = uwsgi.http(
            port, 'PUT', '/resource_providers/%s/inventories' % rp_uuid,
            {'resource_provider_generation': 0,
             'inventories': inventories}, ADMIN)
        self.assertEqual(200, status, text)
        used = {rc: amount for rc, (_, amount) in classes.items() if amount}
        if used:
            status, text, _ = uwsgi.http(
                port, 'PUT', '/allocations/%s' % uuid.uuid4(),
                {'allocations': {rp_uuid: {'resources': used}},
                 'project_id': 'p', 'user_id': 'u',
                 'consumer_generation': None,
                 'consumer_type': 'INSTANCE'}, ADMIN)
            self.assertEqual(204, status, text)
        return rp_uuid

    def _api_ratios(self, port, uuids):
        """{(name, class): usage / total} as the API reports them."""
        ratios = {}
        for name, rp_uuid in uuids.items():
            base = '/resource_providers/%s' % rp_uuid
            _, text, _ = uwsgi.http(port, 'GET', base + '/inventories',
                                    headers=ADMIN)
            totals = json.loads(text)['inventories']
            _, text, _ = uwsgi.http(port, 'GET', base + '/usages',
                                    headers=ADMIN)
            for rc, used in json.loads(text)['usages'].items():
                ratios[(name, rc)] = used / totals[rc]['total']
        return ratios

    def _get_concurrently(self, port, count):
        """``count`` GETs from four threads at once."""
        statuses = []

        def get(n):
            for _ in range(n):
                statuses.append(uwsgi.http(
                    port, 'GET', '/resource_providers', headers=ADMIN)[0])
        threads = [threading.Thread(target=get, args=(count // 4,))
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([200] * count, statuses)

    def _get_until_both_workers_served(self, port):
        """Send rounds of GETS concurrent GETs until both workers have
        counted some (which worker accepts a request is the kernel's
        choice: one round may all go to one); the number sent."""
        sent = 0
        for _ in range(MAX_ROUNDS):
            self._get_concurrently(port, GETS)
            sent += GETS
            if len(self._workers_with_counters()) >= 2:
                return sent
        self.fail('one worker served all %d GETs: %s'
                  % (sent, os.listdir(self.metrics_dir)))

    def _workers_with_counters(self):
        return {name for name in os.listdir(self.metrics_dir)
                if name.startswith('counter_')}

    def test_prometheus_sees_capacity_and_requests_of_both_workers(self):
        # One shape, so that the dashboard's free capacity panels have
        # series.
        with uwsgi.serve(self.url, processes=2, threads=2, env=self.env,
                         conf_text=SHAPES) as port:
            uuids = {name: self._provider(port, name, classes)
                     for name, classes in PROVIDERS}
            # An empty answer, for the reasons counter.
            status, _, _ = uwsgi.http(
                port, 'GET', '/allocation_candidates?resources=VCPU:1000',
                headers=ADMIN)
            self.assertEqual(200, status)
            sent = self._get_until_both_workers_served(port)
            expected = self._api_ratios(port, uuids)
            with prometheus.scraping(port) as server:
                self._check_ratios(server, expected)
                self._check_request_count(server, sent)
                self._check_dashboard(server, port)

    def _check_ratios(self, server, expected):
        query = ('openstack_placement_resource_usage{hostname=~"metrics-.*"}'
                 ' / openstack_placement_resource_total')
        result = server.wait_for(query,
                                 lambda result: len(result) == len(expected))
        got = {(item['metric']['hostname'], item['metric']['resourcetype']):
               float(item['value'][1]) for item in result}
        self.assertEqual(expected, got)

    def _check_request_count(self, server, sent):
        query = ('sum(placement_http_requests_total{route='
                 '"/resource_providers",method="GET",status="200"})')
        server.wait_for(query, lambda result: result and float(
            result[0]['value'][1]) == sent)

    def _check_dashboard(self, server, port):
        _, scrape, _ = uwsgi.http(port, 'GET', '/metrics')
        exposed = set(re.findall(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)', scrape,
                                 re.MULTILINE))
        for expr in expressions():
            with self.subTest(expr=expr):
                used = set(METRIC_RE.findall(expr))
                self.assertTrue(used, expr)
                self.assertEqual(set(), used - exposed)
                server.query(substituted(expr))


class AlertRulesTest(unittest.TestCase):

    def test_promtool_accepts_the_alert_rules(self):
        import subprocess
        out = subprocess.run([prometheus.promtool(), 'check', 'rules',
                              ALERTS], capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(0, out.returncode, out.stdout + out.stderr)
