"""/healthcheck under uwsgi with two workers, its database taken away.

The service reaches MariaDB (else PostgreSQL) through a TCP proxy
(testing/tcp_proxy.py). /healthcheck answers 200 while the database
answers; 503, naming the cause, once the proxy refuses connections and
once it forwards nothing (a frozen server: the probe's bound, not the
driver's, ends the wait); 200 again when it serves again. No token is
needed. Meanwhile the API's 503 and the database retries behind it are
counted by /metrics.

Deadlines are generous (a loaded machine): what is checked is that each
health check answers, never hangs, and answers the right status.
"""
import json
import time
import unittest

import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement.db import models
from placement import deploy
from placement.testing import app as app_fixture
from placement.testing import concurrency
from placement.testing import tcp_proxy
from placement.testing import uwsgi

DEFAULT_PORTS = {'mysql': 3306, 'postgresql': 5432}
BOUND = 2.0
# Far above the bound: a health check that takes this long is hanging.
ANSWER_DEADLINE = 30
ADMIN = {'x-auth-token': 'admin'}


class HealthcheckTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        for name in ('mysql', 'postgresql'):
            self.backend = concurrency.backend(name)
            if self.backend is not None:
                break
        else:
            self.skipTest('neither MariaDB nor PostgreSQL is available')
        self.url = self.backend.create()
        self.addCleanup(self.backend.drop, self.url)
        db = app_fixture.open_database(app_fixture.make_conf(self.url))
        db.dispose()
        real = sa.engine.make_url(self.url)
        self.proxy = tcp_proxy.TCPProxy(tcp_proxy.port_block(), (
            real.host or '127.0.0.1',
            real.port or DEFAULT_PORTS[self.backend.name]))
        self.proxy.start()
        self.addCleanup(self.proxy.stop)
        self.proxied = real.set(host='127.0.0.1', port=self.proxy.port)

    def _health(self, port):
        """(status, reasons) of one GET /healthcheck, which must answer
        well within ANSWER_DEADLINE."""
        started = time.monotonic()
        status, text, _ = uwsgi.http(
            port, 'GET', '/healthcheck',
            headers={'accept': 'application/json'}, timeout=ANSWER_DEADLINE)
        self.assertLess(time.monotonic() - started, ANSWER_DEADLINE)
        return status, json.loads(text)['reasons']

    def _until(self, port, wanted, deadline=120):
        until = time.monotonic() + deadline
        while True:
            status, reasons = self._health(port)
            if status == wanted or time.monotonic() > until:
                self.assertEqual(wanted, status, reasons)
                return reasons
            time.sleep(0.5)

    def test_healthcheck_follows_the_database(self):
        env = {'OS_HEALTHCHECK__DATABASE_TIMEOUT': str(BOUND),
               'OS_PLACEMENT_DATABASE__RETRY_BUDGET': '2',
               'OS_METRICS__ENABLED': 'true'}
        url = self.proxied.render_as_string(hide_password=False)
        with uwsgi.serve(url, processes=2, threads=2, env=env) as port:
            reasons = self._until(port, 200)
            self.assertIn('database OK', ' '.join(reasons))
            self.proxy.stop()
            reasons = self._until(port, 503)
            self.assertIn('database unavailable', ' '.join(reasons))
            status, _, _ = uwsgi.http(port, 'GET', '/resource_providers',
                                      headers=ADMIN)
            self.assertEqual(503, status)
            self.proxy.start()
            self._until(port, 200)
            self._check_counted(port)
            self.proxy.freeze()
            try:
                reasons = self._until(port, 503)
                self.assertIn('no answer within', ' '.join(reasons))
            finally:
                self.proxy.thaw()
            self._until(port, 200)

    def test_worker_started_without_database_serves_once_it_is_back(self):
        # A worker that starts while the database is away (uwsgi's lazy
        # workers, a restart during an outage) must load and answer
        # 503, not fail to load: with --need-app one such worker stops
        # the whole server. The standard rows are synced once it is back.
        # (max_retries=0: oslo.db does not wait for the database at start,
        # as the operator asked.)
        db = db_api.create_database(app_fixture.make_conf(self.url))
        models.metadata.create_all(db.writer)
        db.dispose()
        self.proxy.stop()
        conf = app_fixture.make_conf(
            self.proxied.render_as_string(hide_password=False),
            **{'placement_database.retry_budget': 1,
               'placement_database.max_retries': 0})
        app = deploy.loadapp(conf)

        def get():
            req = webob.Request.blank('/resource_classes/VCPU', headers=dict(
                ADMIN, **{'openstack-api-version': 'placement latest'}))
            return req.get_response(app)

        resp = get()
        self.assertEqual(503, resp.status_int)
        self.assertEqual('placement.database.unavailable',
                         resp.json['errors'][0]['code'])
        self.proxy.start()
        resp = get()
        self.assertEqual(200, resp.status_int, resp.text)
        self.assertEqual('VCPU', resp.json['name'])

    def _check_counted(self, port):
        status, text, _ = uwsgi.http(port, 'GET', '/metrics',
                                     headers=ADMIN)
        self.assertEqual(200, status)
        samples = dict(line.rsplit(' ', 1) for line in text.splitlines()
                       if line and not line.startswith('#'))
        self.assertGreaterEqual(float(samples[
            'placement_http_unavailable_total{cause="lost_connection"}']), 1)
        self.assertGreaterEqual(float(samples[
            'placement_database_retries_total{cause="lost_connection"}']), 1)
