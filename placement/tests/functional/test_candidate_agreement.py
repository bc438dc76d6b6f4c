"""Agreement: GET /allocation_candidates equals the brute-force oracle run
over the whole database, read naively, on every backend.

The HTTP answer goes through the real gather (filters pushed into SQL,
chunks of roots with a limit); the oracle sees every row. A difference
means a SQL prefilter or chunking bug.
"""
import json
import os
import random
import unittest
import urllib.parse
import uuid

import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement.db import models
from placement.handlers import querystring
from placement import microversion
from placement.solver import model
from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import candidate_trees as ct
from placement.tests.unit.solver import oracle

CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
TRAITS = ('CUSTOM_T1', 'CUSTOM_T2', 'CUSTOM_T3')
AGGS = ('AGGA', 'AGGB')
NESTING = float(os.environ.get("AGREEMENT_NESTING", .6))
SCENARIOS = int(os.environ.get("AGREEMENT_SCENARIOS", 6))
QUERIES = 12


def random_tree(rng, count, nesting=NESTING):
    nodes, depth = [], {}
    for i in range(count):
        parents = [n.name for n in nodes if depth[n.name] < 2]
        parent = rng.choice(parents) if parents and rng.random() < nesting \
            else None
        name = 'P%d' % i
        depth[name] = 0 if parent is None else depth[parent] + 1
        inventory = {rc: {'total': rng.randint(1, 4),
                          'max_unit': rng.randint(1, 4),
                          'step_size': rng.choice((1, 1, 2))}
                     for rc in rng.sample(CLASSES, rng.randint(0, 2))}
        used = {rc: 1 for rc in inventory if rng.random() < .2}
        traits = rng.sample(TRAITS, rng.randint(0, 2))
        if parent is None and rng.random() < nesting / 2.4:
            traits.append(ct.SHARES)
        nodes.append(ct.Node(name, parent, inventory, traits,
                             rng.sample(AGGS, rng.randint(0, 1)), used))
    return nodes


def random_query(rng, uuids):
    """A query string (1.39) mixing the features the oracle knows."""
    parts, suffixes = [], []

    def traits():
        picked = rng.sample(TRAITS, 2)
        return rng.choice([picked[0], '!' + picked[0],
                           'in:%s,%s' % tuple(picked)])

    def group(sfx, resourceless=False):
        if not resourceless:
            parts.append('resources%s=%s' % (sfx, ','.join(
                '%s:%d' % (rc, rng.randint(1, 2))
                for rc in rng.sample(CLASSES, rng.randint(1, 2)))))
        if resourceless or rng.random() < .4:
            parts.append('required%s=%s' % (sfx, traits()))
        if rng.random() < .25:
            agg = uuids[rng.choice(AGGS)]
            parts.append('member_of%s=%s' % (
                sfx, rng.choice([agg, '!' + agg])))
        if rng.random() < .15:
            parts.append('in_tree%s=%s' % (sfx, rng.choice(
                [u for n, u in uuids.items() if n.startswith('P')])))
    if rng.random() < .7:
        group('')
    for n in range(rng.randint(0 if parts else 1, 2)):
        suffixes.append('_G%d' % n)
        group('_G%d' % n)
    if suffixes and rng.random() < .4:
        suffixes.append('_R')
        group('_R', resourceless=True)
        parts.append('same_subtree=%s' % ','.join(suffixes))
    if len(suffixes) > 1 or rng.random() < .5:
        parts.append('group_policy=%s' % rng.choice(('none', 'isolate')))
    if rng.random() < .2:
        parts.append('root_required=%s' % rng.choice(TRAITS))
    return '&'.join(parts)


def naive_snapshot(conn):
    """A Snapshot of every row, read without filters."""
    rp, inv = models.resource_providers, models.inventories
    providers = {r.id: model.Provider(r.id, r.uuid, r.parent_provider_id,
                                      r.root_provider_id)
                 for r in conn.execute(sa.select(rp))}
    names = dict(conn.execute(sa.select(models.resource_classes.c.id,
                                        models.resource_classes.c.name)
                              ).all())
    used = {}
    for a in conn.execute(sa.select(models.allocations)):
        key = (a.resource_provider_id, a.resource_class_id)
        used[key] = used.get(key, 0) + a.used
    inventories = {}
    for r in conn.execute(sa.select(inv)):
        inventories.setdefault(r.resource_provider_id, {})[
            names[r.resource_class_id]] = model.Inventory(
                model.capacity(r.total, r.reserved, r.allocation_ratio),
                used.get((r.resource_provider_id, r.resource_class_id), 0),
                r.min_unit, r.max_unit, r.step_size)
    traits, aggs = {}, {}
    trait_names = dict(conn.execute(sa.select(models.traits.c.id,
                                              models.traits.c.name)).all())
    for r in conn.execute(sa.select(models.resource_provider_traits)):
        traits.setdefault(r.resource_provider_id, set()).add(
            trait_names[r.trait_id])
    agg_uuids = dict(conn.execute(sa.select(
        models.placement_aggregates.c.id,
        models.placement_aggregates.c.uuid)).all())
    for r in conn.execute(sa.select(models.resource_provider_aggregates)):
        aggs.setdefault(r.resource_provider_id, set()).add(
            agg_uuids[r.aggregate_id])
    sharing = {p for p, names_ in traits.items() if ct.SHARES in names_}
    anchors = {s: frozenset(providers[p].root_id for p in aggs
                            if aggs[p] & aggs.get(s, set()))
               for s in sharing}
    return model.Snapshot(
        providers, inventories,
        {k: frozenset(v) for k, v in traits.items()},
        {k: frozenset(v) for k, v in aggs.items()}, frozenset(sharing),
        anchors, tuple(sorted(p for p in providers
                              if providers[p].parent_id is None)),
        any(p.parent_id for p in providers.values()))


def _as_uuids(candidates, snapshot):
    uuid_of = {p.id: p.uuid for p in snapshot.providers.values()}
    return sorted(json.dumps([
        sorted((uuid_of[p], rc, n) for p, rc, n in c.allocations),
        sorted((s, sorted(uuid_of[p] for p in ids))
               for s, ids in c.mappings)]) for c in candidates)


def _from_http(body, ordered=False):
    found = []
    for req in body['allocation_requests']:
        allocations = sorted(
            (rp_uuid, rc, n) for rp_uuid, a in req['allocations'].items()
            for rc, n in a['resources'].items())
        mappings = sorted((s, sorted(u)) for s, u in req['mappings'].items())
        found.append(json.dumps([allocations, mappings]))
    return found if ordered else sorted(found)


class TestAgreement(unittest.TestCase):

    def _get(self, app, query):
        req = webob.Request.blank('/allocation_candidates?' + query)
        req.headers['x-auth-token'] = 'admin'
        req.headers['openstack-api-version'] = 'placement 1.39'
        return req.get_response(app)

    def _check_backend(self, backend):
        placement = app_fixture.PlacementApp(backend)
        self.addCleanup(placement.cleanup)
        rng = random.Random(backend.name)
        with db_api.transaction(placement.db) as conn:
            conn.execute(sa.insert(models.traits),
                         [{'name': name} for name in TRAITS])
        mv = microversion.Version(1, 39)
        for scenario in range(SCENARIOS):
            with db_api.transaction(placement.db) as conn:
                for table in ('allocations', 'inventories',
                              'resource_provider_traits',
                              'resource_provider_aggregates',
                              'placement_aggregates'):
                    conn.execute(sa.delete(getattr(models, table)))
                conn.execute(sa.update(models.resource_providers).values(
                    parent_provider_id=None, root_provider_id=None))
                conn.execute(sa.delete(models.resource_providers))
            # Every other scenario is flat: no nesting, no sharing.
            tree = random_tree(rng, rng.choice((3, 6, 9, 40)),
                               NESTING if scenario % 2 else 0)
            aggs = {a: str(uuid.UUID(int=rng.getrandbits(128)))
                    for a in AGGS}
            os.environ.update({a + '_UUID': u for a, u in aggs.items()})
            uuids = ct.build(placement.db, tree)
            uuids.update(aggs)
            with db_api.reader(placement.db) as conn:
                snapshot = naive_snapshot(conn)
            for _ in range(QUERIES):
                query = random_query(rng, uuids)
                self._check_query(placement.app, snapshot, query, mv)

    def _check_query(self, app, snapshot, query, mv):
        resp = self._get(app, query)
        self.assertEqual(200, resp.status_int, (query, resp.text))
        params = {}
        for key, value in urllib.parse.parse_qsl(query):
            params.setdefault(key, []).append(value)
        parsed = querystring.parse_candidate_query(params, mv)
        expected = _as_uuids(oracle.candidates(snapshot, parsed), snapshot)
        self.assertEqual(expected, _from_http(resp.json), query)
        in_order = _from_http(resp.json, ordered=True)
        for limit in (1, 7):
            got = _from_http(self._get(
                app, query + '&limit=%d' % limit).json, ordered=True)
            self.assertEqual(in_order[:limit], got, query)

    def test_http_equals_oracle(self):
        for backend in backends.available():
            with self.subTest(backend=backend.name):
                self._check_backend(backend)
