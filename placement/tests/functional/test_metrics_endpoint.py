"""Who may read /metrics, and nothing of it while it is off.

In-process requests (the counting itself, which happens as the WSGI
server closes each answer, is tested under uwsgi in test_metrics).
"""
import os
import tempfile
import unittest

import webob

from placement.testing import app as app_fixture
from placement.testing import backends

SYSTEM_READER = {'x-auth-token': 'watcher', 'x-roles': 'reader',
                 'openstack-system-scope': 'all'}


class MetricsEndpointTest(unittest.TestCase):

    def app(self, **overrides):
        placement = app_fixture.PlacementApp(
            backends.BACKENDS['sqlite'], **overrides)
        self.addCleanup(placement.cleanup)
        return placement.app

    def enabled(self, anonymous=False):
        return self.app(**{
            'metrics.enabled': True,
            'metrics.allow_anonymous': anonymous,
            'metrics.multiprocess_dir': tempfile.mkdtemp()})

    @staticmethod
    def get(app, headers=None, method='GET'):
        req = webob.Request.blank('/metrics', method=method,
                                  headers=headers or {})
        return req.get_response(app)

    def test_off_by_default_a_404(self):
        self.assertEqual(404, self.get(self.app(), {
            'x-auth-token': 'admin'}).status_int)

    def test_a_token_the_rule_allows(self):
        app = self.enabled()
        self.assertEqual(401, self.get(app).status_int)
        refused = self.get(app, {'x-auth-token': 'bob'})
        self.assertEqual(403, refused.status_int)
        self.assertIn('placement:metrics', refused.json['errors'][0][
            'detail'])
        for headers in ({'x-auth-token': 'admin'}, SYSTEM_READER):
            resp = self.get(app, headers)
            self.assertEqual(200, resp.status_int, headers)
            self.assertEqual('text/plain; version=0.0.4; charset=utf-8',
                             resp.headers['content-type'])
            self.assertIn('openstack_placement_up 1', resp.text)

    def test_anonymous_when_allowed(self):
        self.assertEqual(200, self.get(self.enabled(anonymous=True))
                         .status_int)

    def test_only_get_and_head(self):
        app = self.enabled(anonymous=True)
        self.assertEqual(405, self.get(app, method='POST').status_int)
        head = self.get(app, method='HEAD')
        self.assertEqual(200, head.status_int)
        self.assertEqual(b'', head.body)

    def test_nothing_of_prometheus_is_imported_while_off(self):
        handle, path = tempfile.mkstemp(suffix='.db')
        os.close(handle)
        self.addCleanup(os.unlink, path)
        self.assertEqual([], app_fixture.modules_after_loading(
            path, ['prometheus_client', 'placement.metrics']))
