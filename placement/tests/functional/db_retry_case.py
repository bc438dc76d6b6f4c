"""The base of the tests of the retry policy against real failures.

``RetryCase`` gives each test a fresh database of its backend (MariaDB
or PostgreSQL), reached by the app through a TCP proxy the test
controls (fixtures.tcp_proxy), an admin engine that goes around the
proxy, and the helpers the tests share: requests, a provider and a
claim through the API, the rows as stored, the retries the policy
logged, and ending a session server side (KILL, pg_terminate_backend:
what a dead node or a failover does to it, through the servers' own
commands rather than the drivers' sockets).
"""
import json
import logging
import threading
import uuid

from oslo_middleware import http_proxy_to_wsgi
import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement import deploy
from placement import policy
from placement.testing import app as app_fixture
from placement.testing import concurrency
from placement.testing import tcp_proxy


HEADERS = dict(concurrency.HEADERS,
               **{'openstack-api-version': 'placement 1.38'})
# The budget of the requests that must succeed after their retries.
RETRY_BUDGET = 30.0
# The budget of the requests that must run out of it, and a bound on
# their wait far beyond it: a request that ignored its budget would wait
# for the driver's 60 s timeouts, or retry for ever.
BUDGET = 3.0
PATIENCE = 10 * BUDGET
# Its driver timeouts fit it (db.engine.fitted_timeouts: at most half).
SHORT = {'placement_database.retry_budget': BUDGET,
         'placement_database.read_timeout': 1,
         'placement_database.write_timeout': 1}
# Longer than any budget here, shorter than the driver timeouts (60 s):
# a request still waiting then was not ended by its budget.
THAW_AFTER = 45.0
OVERRIDES = {
    'placement_database.retry_budget': RETRY_BUDGET,
    'placement_database.retry_backoff': 0.02,
    'placement_database.retry_backoff_max': 0.1,
    'placement_database.connect_timeout': 1,
    'placement_database.read_timeout': 5,
    'placement_database.write_timeout': 5,
}
DEFAULT_PORTS = {'mysql': 3306, 'postgresql': 5432}


def send(app, method, path, body=None):
    """(status, headers, parsed JSON body or None) of one request."""
    req = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        req.body = json.dumps(body).encode('utf-8')
    resp = req.get_response(app)
    data = json.loads(resp.text) if resp.text else None
    return resp.status_int, resp.headers, data


def claim_body(rp_uuid, vcpu=1, generation=None):
    return {'allocations': {rp_uuid: {'resources': {'VCPU': vcpu}}},
            'project_id': 'p', 'user_id': 'u',
            'consumer_generation': generation, 'consumer_type': 'INSTANCE'}


class RetryCase:
    """A mixin of unittest.TestCase; ``backend_name`` says which."""

    backend_name = None

    def setUp(self):
        super().setUp()
        self.backend = concurrency.backend(self.backend_name)
        if self.backend is None:
            self.skipTest('%s is not available' % self.backend_name)
        # The proxy's port, and one nothing ever listens on.
        self.proxy_port = tcp_proxy.port_block()
        self.closed_port = self.proxy_port + 1
        self.url = self.backend.create()
        self.addCleanup(self.backend.drop, self.url)
        real = sa.engine.make_url(self.url)
        self.proxy = tcp_proxy.TCPProxy(self.proxy_port, (
            real.host or '127.0.0.1',
            real.port or DEFAULT_PORTS[self.backend_name]))
        self.proxy.start()
        self.addCleanup(self.proxy.stop)
        self.app, self.db = self._app(real.set(port=self.proxy_port))
        app_fixture.create_schema(self.db)
        self.admin = sa.create_engine(self.url, pool_pre_ping=False)
        self.addCleanup(self.admin.dispose)
        self.retries = self._record_retries()

    def _record_retries(self):
        """The messages of the retry policy, as it logs each retry."""
        records = []
        handler = logging.Handler(logging.INFO)
        handler.emit = lambda record: records.append(record.getMessage())
        logger = logging.getLogger('placement.db.retry')
        level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
        self.addCleanup(logger.setLevel, level)
        self.addCleanup(logger.removeHandler, handler)
        return records

    def _assert_retried(self, *words):
        self.assertTrue(any(all(word in message for word in words)
                            for message in self.retries), self.retries)

    def _app(self, url, **overrides):
        conf = app_fixture.make_conf(
            url.set(host='127.0.0.1').render_as_string(hide_password=False),
            **dict(OVERRIDES, **overrides))
        conf.set_override('max_retries', 0, group='placement_database')
        db = db_api.create_database(conf)
        self.addCleanup(db.dispose)
        # As deploy.loadapp, without its start-up writes: this app may
        # have no database to reach.
        http_proxy_to_wsgi.HTTPProxyToWSGI(None, conf)
        return deploy.build_app(conf, db, policy.build_enforcer(conf)), db

    def _send(self, method, path, body=None):
        return send(self.app, method, path, body)

    def _provider(self, vcpu=8):
        rp_uuid = str(uuid.uuid4())
        status, _, _ = self._send('POST', '/resource_providers',
                                  {'name': rp_uuid, 'uuid': rp_uuid})
        self.assertEqual(200, status)
        status, _, _ = self._send(
            'PUT', '/resource_providers/%s/inventories' % rp_uuid,
            {'resource_provider_generation': 0,
             'inventories': {'VCPU': {'total': vcpu}}})
        self.assertEqual(200, status)
        return rp_uuid

    def _claim(self, rp_uuid, vcpu=1):
        consumer = str(uuid.uuid4())
        status, _, body = self._send('PUT', '/allocations/%s' % consumer,
                                     claim_body(rp_uuid, vcpu))
        self.assertEqual(204, status, body)
        return consumer

    def _stored(self, consumer):
        """(consumer generation or None, [(class id, used)]) as stored."""
        with self.admin.connect() as conn:
            generation = conn.execute(sa.text(
                'SELECT generation FROM consumers WHERE uuid = :c'),
                {'c': consumer}).scalar()
            rows = conn.execute(sa.text(
                'SELECT resource_class_id, used FROM allocations '
                'WHERE consumer_id = :c'), {'c': consumer}).all()
        return generation, [tuple(row) for row in rows]

    def _in_thread(self, func):
        result = {}
        thread = threading.Thread(
            target=lambda: result.setdefault('value', func()))
        thread.start()
        return thread, result

    def _assert_503(self, answer):
        status, headers, body = answer
        self.assertEqual(503, status, body)
        self.assertEqual('5', headers['Retry-After'])
        self.assertEqual('application/json', headers['Content-Type'])
        error = body['errors'][0]
        self.assertEqual('placement.database.unavailable', error['code'])
        self.assertEqual(503, error['status'])

    def _proxied(self):
        return sa.engine.make_url(self.url).set(port=self.proxy_port)

    def _kill(self, dbapi_conn):
        """End the session of ``dbapi_conn`` server side, as a dead node
        or failover would: its next statement fails."""
        with self.admin.connect() as conn:
            if self.backend_name == 'mysql':
                conn.execute(sa.text('KILL %d' % dbapi_conn.thread_id()))
            else:
                conn.execute(sa.text('SELECT pg_terminate_backend(:pid)'),
                             {'pid': dbapi_conn.info.backend_pid})
