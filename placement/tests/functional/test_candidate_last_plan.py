"""The remembered plan of a candidates query (objects.candidates.gather's
last_plans) only saves a statement: when the deployment changes the
plan between two identical queries, the answer is the fresh plan's.
"""
import json
import unittest
import uuid

import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement import deploy
from placement.objects.candidates import gather
from placement.testing import app as app_fixture

QUERY = '/allocation_candidates?resources=VCPU:2'


def _call(app, method, path, body=None):
    req = webob.Request.blank(path, method=method)
    req.headers['x-auth-token'] = 'admin'
    req.headers['openstack-api-version'] = 'placement 1.39'
    req.headers['accept'] = 'application/json'
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int < 400, (method, path, resp.status, resp.body)
    return json.loads(resp.body) if resp.body else None


def _provider(app, name, parent=None):
    rp_uuid = str(uuid.uuid4())
    body = {'name': name, 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    _call(app, 'POST', '/resource_providers', body)
    _call(app, 'PUT', '/resource_providers/%s/inventories' % rp_uuid,
          {'resource_provider_generation': 0,
           'inventories': {'VCPU': {'total': 8}}})
    return rp_uuid


class TestLastPlan(unittest.TestCase):

    def test_a_changed_plan_is_read_anew(self):
        app_fixture.on_each_backend(self, self._check)

    def _statements(self, engine):
        executed = []

        def count(*args):
            executed.append(args[2])
        sa.event.listen(engine, 'before_cursor_execute', count)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        count)
        return executed

    def _candidates(self, app):
        found = _call(app, 'GET', QUERY)
        return sorted(tuple(sorted(req['allocations']))
                      for req in found['allocation_requests'])

    def _check(self, placement):
        reader = placement.app
        # Another application (another process's memo) writes.
        writer_db = db_api.create_database(placement.conf)
        self.addCleanup(writer_db.dispose)
        writer = deploy.loadapp(placement.conf, db=writer_db)
        memo = gather.last_plans(placement.db.reader)
        memo.clear()

        root = _provider(writer, 'root')
        self.assertEqual([(root,)], self._candidates(reader))
        self.assertEqual([True], [plan.flat for plan in memo.values()])
        executed = self._statements(placement.db.alone)
        self.assertEqual([(root,)], self._candidates(reader))
        # The lookups (of resource_classes) and the remembered plan's
        # read (of allocations) in one statement, on every backend.
        lookups = [sql for sql in executed if 'resource_classes' in sql]
        self.assertEqual(1, len(lookups))
        self.assertIn('allocations', lookups[0])
        self.assertFalse([sql for sql in executed if 'allocations' in sql
                          and sql not in lookups])

        # A child makes the deployment nested: the flat plan's read is
        # not used.
        child = _provider(writer, 'child', parent=root)
        self.assertEqual(sorted([(root,), (child,)]),
                         self._candidates(reader))
        self.assertEqual([False], [plan.flat for plan in memo.values()])
        self.assertEqual(sorted([(root,), (child,)]),
                         self._candidates(reader))
