"""The key a refused provider create names when both the uuid and the
name are taken: the uuid on MariaDB/MySQL (and SQLite), the name on
PostgreSQL, as the upstream release answers on each (it reports the
unique key the database checks first).
"""
import json
import unittest
import uuid

import webob

from placement.testing import app as app_fixture

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.39'}


def _post(app, body):
    req = webob.Request.blank('/resource_providers', method='POST',
                              headers=HEADERS)
    req.body = json.dumps(body).encode('utf-8')
    resp = req.get_response(app)
    return resp.status_int, json.loads(resp.text)


class CreateConflictTest(unittest.TestCase):

    def test_the_key_named_when_both_are_taken(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        for rp_uuid, name in ((first, 'n1'), (second, 'n2')):
            self.assertEqual(200, _post(placement.app, {
                'uuid': rp_uuid, 'name': name})[0])
        named = ('name: n2' if placement.backend.name == 'postgresql'
                 else 'uuid: %s' % first)
        for name in ('n2', 'n1'):  # another row's name, the row's own
            status, body = _post(placement.app, {'uuid': first,
                                                 'name': name})
            self.assertEqual(409, status)
            error = body['errors'][0]
            self.assertEqual('placement.duplicate_name', error['code'])
            expected = ('name: %s' % name
                        if placement.backend.name == 'postgresql' else named)
            self.assertIn('Conflicting resource provider %s already '
                          'exists.' % expected, error['detail'])
        # Only one key taken: that one, everywhere.
        status, body = _post(placement.app, {'uuid': first, 'name': 'n3'})
        self.assertIn('uuid: %s already' % first,
                      body['errors'][0]['detail'])
        status, body = _post(placement.app, {'uuid': str(uuid.uuid4()),
                                             'name': 'n1'})
        self.assertIn('name: n1 already', body['errors'][0]['detail'])
