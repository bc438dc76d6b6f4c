"""GET /resource_providers over providers whose timestamps are NULL
(rows written by hand or by old tools) beside providers made through the
API: the upstream release answers 500 to this listing ("can't compare
offset-naive and offset-aware datetimes"); ours answers 200 with the
newest stored time as Last-Modified, on every backend.
"""
import datetime
import json
import unittest
import uuid

import sqlalchemy as sa
import webob

from placement.db import models
from placement.testing import app as app_fixture

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39'}


def _send(app, method, path, body=None):
    req = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        req.body = json.dumps(body).encode('utf-8')
        req.content_type = 'application/json'
    return req.get_response(app)


class MixedTimestampsTest(unittest.TestCase):

    def test_list_with_null_and_stored_timestamps(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        made = str(uuid.uuid4())
        resp = _send(placement.app, 'POST', '/resource_providers',
                     {'name': 'made', 'uuid': made})
        self.assertEqual(200, resp.status_int, resp.text)
        loaded = str(uuid.uuid4())
        with placement.db.writer.begin() as conn:
            conn.execute(models.resource_providers.insert().values(
                uuid=loaded, name='loaded', generation=1,
                created_at=None, updated_at=None))
            stored = conn.execute(sa.select(
                models.resource_providers.c.created_at).where(
                models.resource_providers.c.uuid == made)).scalar()
        for query in ('', '?name=loaded', '?resources=VCPU:1'):
            resp = _send(placement.app, 'GET', '/resource_providers' + query)
            self.assertEqual(200, resp.status_int, resp.text)
        resp = _send(placement.app, 'GET', '/resource_providers')
        listed = [rp['uuid'] for rp in resp.json['resource_providers']]
        self.assertEqual(sorted([made, loaded]), sorted(listed))
        self.assertEqual(
            stored.replace(tzinfo=datetime.timezone.utc),
            resp.last_modified)


class AwkwardNamesTest(unittest.TestCase):
    """Names the packed MySQL read cannot carry (quotes, backslashes,
    control characters) and ones it can (non-ASCII): the list shows each
    as stored, in id order, on every backend."""

    NAMES = ['plain', 'quote "q"', 'back\\slash', 'tab\tnew\nline',
             'caf\u00e9', '[1, 2]', 'null']

    def test_names_come_back_as_stored(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        made = []
        for name in self.NAMES:
            rp = str(uuid.uuid4())
            resp = _send(placement.app, 'POST', '/resource_providers',
                         {'name': name, 'uuid': rp})
            self.assertEqual(200, resp.status_int, resp.text)
            made.append((rp, name))
        for names in (self.NAMES, ['plain', 'caf\u00e9']):
            for rp, name in made:
                if name not in names:
                    _send(placement.app, 'DELETE',
                          '/resource_providers/%s' % rp)
            resp = _send(placement.app, 'GET', '/resource_providers')
            self.assertEqual(200, resp.status_int, resp.text)
            self.assertEqual(
                [(rp, name) for rp, name in made if name in names],
                [(p['uuid'], p['name'])
                 for p in resp.json['resource_providers']])


class UpdateLastModifiedTest(unittest.TestCase):
    """PUT /resource_providers/{uuid} answers, as the upstream release
    does, with the provider's time before the write (its previous update,
    or its creation) as Last-Modified, and a PUT that changes nothing
    (same name, same parent) leaves updated_at alone. (A provider made
    through the API has both times set, by either service.)"""

    def test_last_modified_of_an_update(self):
        app_fixture.on_each_backend(self, self._check)

    def _stored(self, placement, rp):
        table = models.resource_providers
        with placement.db.writer.begin() as conn:
            return conn.execute(sa.select(
                table.c.created_at, table.c.updated_at).where(
                table.c.uuid == rp)).one()

    def _backdate(self, placement, rp, **values):
        table = models.resource_providers
        with placement.db.writer.begin() as conn:
            conn.execute(table.update().where(table.c.uuid == rp)
                         .values(**values))

    def _put(self, placement, rp, body):
        resp = _send(placement.app, 'PUT', '/resource_providers/%s' % rp,
                     body)
        self.assertEqual(200, resp.status_int, resp.text)
        return resp.last_modified

    def _check(self, placement):
        utc = datetime.timezone.utc
        rp = str(uuid.uuid4())
        resp = _send(placement.app, 'POST', '/resource_providers',
                     {'name': 'before', 'uuid': rp})
        self.assertEqual(200, resp.status_int, resp.text)
        created = datetime.datetime(2020, 1, 2, 3, 4, 5)
        self._backdate(placement, rp, created_at=created, updated_at=None)
        # Nothing changes: no write; the creation time when never updated.
        self.assertEqual(created.replace(tzinfo=utc),
                         self._put(placement, rp, {'name': 'before'}))
        self.assertEqual((created, None), tuple(self._stored(placement, rp)))
        # (On MySQL a move touches the tree's root for Galera, the time
        # the answer shows is still the one before.)
        self.assertEqual(created.replace(tzinfo=utc), self._put(
            placement, rp, {'name': 'before', 'parent_provider_uuid': None}))
        self._backdate(placement, rp, updated_at=None)
        # A rename answers with the time before and stores a new one.
        self.assertEqual(created.replace(tzinfo=utc),
                         self._put(placement, rp, {'name': 'after'}))
        self.assertIsNotNone(self._stored(placement, rp).updated_at)
        previous = datetime.datetime(2021, 1, 2, 3, 4, 5)
        self._backdate(placement, rp, updated_at=previous)
        # The next one answers with the previous update.
        self.assertEqual(previous.replace(tzinfo=utc),
                         self._put(placement, rp, {'name': 'again'}))
        self.assertGreater(self._stored(placement, rp).updated_at, previous)
