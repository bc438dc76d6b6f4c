"""The order of the headers of each kind of answer, as upstream sends it.

Gabbi compares headers as a mapping, so the order is checked here, on
the WSGI app, against what upstream 16.0.0 sends (seen over HTTP,
2026-11-24). Each handler of upstream sets its headers in its own order;
the middleware adds openstack-api-version (first where there is no Vary)
and Vary last.
"""
import json
import unittest
import uuid

import webob

from placement.tests.functional.fixtures import app as app_fixture

IGNORED = {'x-openstack-request-id', 'openstack-request-id'}
RP = str(uuid.UUID(int=1))


def _call(app, method, path, body=None, mv='1.39', **headers):
    req = webob.Request.blank(path, method=method)
    req.headers['x-auth-token'] = 'admin'
    req.headers['x-roles'] = 'admin,service'
    req.headers['openstack-api-version'] = 'placement %s' % mv
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    req.headers.update(headers)
    resp = req.get_response(app)
    return [name.lower() for name, _ in resp.headerlist
            if name.lower() not in IGNORED]


JSON = ['content-length', 'content-type', 'last-modified', 'cache-control',
        'openstack-api-version', 'vary']
CACHE_FIRST = ['content-length', 'content-type', 'cache-control',
               'last-modified', 'openstack-api-version', 'vary']
DATES_FIRST = ['last-modified', 'cache-control', 'content-length',
               'content-type', 'openstack-api-version', 'vary']
ERROR = ['content-length', 'content-type', 'openstack-api-version', 'vary']
ERROR_NO_VARY = ['openstack-api-version', 'content-length', 'content-type']
EMPTY = ['content-length', 'openstack-api-version', 'vary']


class TestHeaderOrder(unittest.TestCase):

    def test_each_kind_of_answer(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        app = placement.app
        cases = [
            (['location'] + JSON, 'POST', '/resource_providers',
             {'name': 'r1', 'uuid': RP}),
            (JSON, 'GET', '/resource_providers', None),
            (JSON, 'PUT', '/resource_providers/%s/inventories' % RP,
             {'resource_provider_generation': 0,
              'inventories': {'VCPU': {'total': 4}}}),
            (CACHE_FIRST, 'GET', '/', None),
            (CACHE_FIRST, 'GET', '/resource_providers/%s/usages' % RP, None),
            (CACHE_FIRST, 'GET', '/resource_providers/%s/aggregates' % RP,
             None),
            (CACHE_FIRST, 'GET', '/resource_classes/VCPU', None),
            (CACHE_FIRST, 'GET', '/allocation_candidates?resources=VCPU:1',
             None),
            (DATES_FIRST, 'GET', '/traits', None),
            (DATES_FIRST, 'GET', '/resource_providers/%s/traits' % RP, None),
            (['content-length', 'location', 'openstack-api-version',
              'vary'], 'PUT', '/resource_classes/CUSTOM_A', None),
            (['content-length', 'location', 'last-modified',
              'cache-control', 'openstack-api-version', 'vary'],
             'PUT', '/traits/CUSTOM_T', None),
            (EMPTY, 'DELETE', '/traits/CUSTOM_T', None),
            (ERROR, 'POST', '/resource_providers', {'nam': 'x'}),
            (ERROR, 'GET', '/resource_providers?foo=1', None),
            (ERROR_NO_VARY, 'GET', '/nothing-here', None),
            (ERROR_NO_VARY, 'GET', '/resource_providers/%s'
             % uuid.UUID(int=2), None),
        ]
        for expected, method, path, body in cases:
            with self.subTest(method=method, path=path):
                self.assertEqual(expected, _call(app, method, path, body))
        self.assertEqual(
            ['allow'] + ERROR, _call(app, 'PATCH', '/resource_providers'))
