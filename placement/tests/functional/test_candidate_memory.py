"""The per-process memory of provider inventories and traits
(objects.candidates.memory) never shows a stale answer.

Two applications on one database stand for two worker processes: one
reads candidates (and so remembers providers), the other writes. Every
kind of write a candidate answer depends on is made through the second
and must show at once through the first: inventory and trait changes
(which bump the generation), and allocation deletion and re-parenting
(which do not, and so must never come from memory).
"""
import json
import unittest
import uuid

import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement.db import models
from placement import deploy
from placement.objects.candidates import memory
from placement.testing import app as app_fixture

VERSION = 'placement 1.39'
QUERY = 'resources=VCPU:2'


class _Client:

    def __init__(self, app):
        self.app = app

    def call(self, method, path, body=None, version=VERSION):
        req = webob.Request.blank(path, method=method)
        req.headers['x-auth-token'] = 'admin'
        req.headers['openstack-api-version'] = version
        req.headers['accept'] = 'application/json'
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        resp = req.get_response(self.app)
        assert resp.status_int < 400, (method, path, resp.status,
                                       resp.body)
        return json.loads(resp.body) if resp.body else None

    def generation(self, rp_uuid):
        return self.call('GET', '/resource_providers/' + rp_uuid)[
            'generation']

    def candidates(self, query):
        return self.call('GET', '/allocation_candidates?' + query)

    def put_inventories(self, rp_uuid, inventories, generation=None):
        """PUT the provider's inventories, at its current generation
        unless ``generation`` is given."""
        if generation is None:
            generation = self.generation(rp_uuid)
        self.call('PUT', '/resource_providers/%s/inventories' % rp_uuid,
                  {'resource_provider_generation': generation,
                   'inventories': inventories})


class TestCandidateMemory(unittest.TestCase):

    def test_writes_elsewhere_show_at_once(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        reader = _Client(placement.app)
        # A second application with its own engine and its own memory.
        writer_db = db_api.create_database(placement.conf)
        self.addCleanup(writer_db.dispose)
        writer = _Client(deploy.loadapp(placement.conf, db=writer_db))

        store = memory.store_for(placement.db.reader)
        self.assertEqual(placement.backend.name != 'sqlite', store.enabled)

        root, child, other = (str(uuid.uuid4()) for _ in range(3))
        writer.call('POST', '/resource_providers',
                    {'name': 'root', 'uuid': root})
        writer.call('POST', '/resource_providers',
                    {'name': 'other', 'uuid': other})
        writer.call('POST', '/resource_providers',
                    {'name': 'child', 'uuid': child,
                     'parent_provider_uuid': root})
        writer.call('PUT', '/traits/CUSTOM_FAST')
        writer.put_inventories(child, {'VCPU': {'total': 4}})

        found = reader.candidates(QUERY)
        self.assertEqual(1, len(found['allocation_requests']))
        self.assertEqual([], found['provider_summaries'][child]['traits'])
        if store.enabled:
            self.assertEqual({root, child, other},
                             {e.uuid for e in store.entries.values()})
        self._check_bumping_writes(reader, writer, child)
        self._check_allocations(reader, writer, child)
        self._check_reparenting(reader, writer, root, child, other)
        self._check_recreated(reader, writer, child)

    def _check_bumping_writes(self, reader, writer, child):
        # An inventory change (generation bump) elsewhere.
        writer.put_inventories(child, {'VCPU': {'total': 1}})
        self.assertEqual([], reader.candidates(QUERY)['allocation_requests'])
        writer.put_inventories(
            child, {'VCPU': {'total': 8, 'allocation_ratio': 0.5}})
        found = reader.candidates(QUERY)
        self.assertEqual(
            {'capacity': 4, 'used': 0},
            found['provider_summaries'][child]['resources']['VCPU'])

        # A trait change (generation bump) elsewhere: summaries and filters.
        writer.call('PUT', '/resource_providers/%s/traits' % child,
                    {'resource_provider_generation':
                     writer.generation(child), 'traits': ['CUSTOM_FAST']})
        found = reader.candidates(QUERY + '&required=CUSTOM_FAST')
        self.assertEqual(1, len(found['allocation_requests']))
        self.assertEqual(['CUSTOM_FAST'],
                         found['provider_summaries'][child]['traits'])

    def _check_allocations(self, reader, writer, child):
        # Allocations come and go without bumping on deletion: usage is
        # never remembered.
        consumer = str(uuid.uuid4())
        writer.call('PUT', '/allocations/' + consumer, {
            'allocations': {child: {'resources': {'VCPU': 3}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        self.assertEqual([], reader.candidates(QUERY)['allocation_requests'])
        before = writer.generation(child)
        writer.call('DELETE', '/allocations/' + consumer)
        self.assertEqual(before, writer.generation(child))
        self.assertEqual(1, len(
            reader.candidates(QUERY)['allocation_requests']))

    def _check_reparenting(self, reader, writer, root, child, other):
        # Re-parenting does not bump either: the tree is read every time.
        writer.call('PUT', '/resource_providers/' + child,
                    {'name': 'child', 'parent_provider_uuid': other},
                    version='placement 1.37')
        found = reader.candidates(QUERY)
        self.assertEqual(
            other, found['provider_summaries'][child]['root_provider_uuid'])
        self.assertIn(other, found['provider_summaries'])
        self.assertNotIn(root, found['provider_summaries'])

    def _check_recreated(self, reader, writer, child):
        # A provider deleted and made again with the same uuid is another
        # provider: nothing of the old one may show.
        writer.call('DELETE', '/resource_providers/' + child)
        writer.call('POST', '/resource_providers',
                    {'name': 'child', 'uuid': child})
        writer.put_inventories(child, {'VCPU': {'total': 2}}, generation=0)
        found = reader.candidates(QUERY)
        self.assertEqual(1, len(found['allocation_requests']))
        self.assertEqual([], found['provider_summaries'][child]['traits'])
        self.assertEqual(
            {'capacity': 2, 'used': 0},
            found['provider_summaries'][child]['resources']['VCPU'])


class TestAlikeProviders(unittest.TestCase):

    def test_alike_providers_share_their_loaded_values(self):
        # On every backend, SQLite's disabled store included: the solver
        # tells alike trees apart by the inventories' key and the trait
        # set (one shared instance each).
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        client = _Client(placement.app)
        names = ('one', 'two')
        for name in names:
            rp_uuid = str(uuid.uuid4())
            client.call('POST', '/resource_providers',
                        {'name': name, 'uuid': rp_uuid})
            client.put_inventories(rp_uuid, {'VCPU': {'total': 4}})
        rps = models.resource_providers
        with placement.db.reader.connect() as conn:
            keys = conn.execute(
                sa.select(rps.c.id, rps.c.uuid, rps.c.generation)
                .where(rps.c.name.in_(names))).all()
            one, two = memory.entries(
                conn, memory.Store(enabled=False), keys).values()
        self.assertIs(one.inventories, two.inventories)
        self.assertIs(one.traits, two.traits)
        self.assertEqual(one.inventories_key, two.inventories_key)
        self.assertNotEqual(0, one.inventories_key)


class TestStore(unittest.TestCase):
    """The store's own rules, without a database."""

    def test_key_is_id_uuid_and_generation(self):
        store = memory.Store()
        entry = memory.Entry('u1', 3, (), frozenset())
        store.keep({1: entry})
        found, missing = store.fresh([(1, 'u1', 3), (1, 'u1', 4),
                                      (1, 'u2', 3), (2, 'u1', 3)])
        self.assertEqual({1: entry}, found)
        self.assertEqual([(1, 'u1', 4), (1, 'u2', 3), (2, 'u1', 3)], missing)

    def test_disabled_store_keeps_nothing(self):
        store = memory.Store(enabled=False)
        intern, key_of = store.interner()
        intern((1, 2, 0, 1.0, 1, 2, 1))
        key_of(((1, 2, 0, 1.0, 1, 2, 1),))
        store.keep({1: memory.Entry('u1', 0, (), frozenset())})
        self.assertEqual({}, store.entries)
        self.assertEqual({}, store.interned)
        self.assertEqual({}, store.keys)

    def test_equal_values_are_shared_within_a_load_when_disabled(self):
        # SQLite: nothing is kept, but alike providers of one request
        # still share their rows and their inventories' key (the solver
        # groups alike trees by it).
        for enabled in (True, False):
            intern, key_of = memory.Store(enabled=enabled).interner()
            first = intern(tuple([1, 2, 0, 1.0]))
            self.assertIs(first, intern(tuple([1, 2, 0, 1.0])))
            rows = ((1, 2, 0, 1.0),)
            self.assertEqual(key_of(rows), key_of(tuple(list(rows))))
            self.assertNotEqual(key_of(rows), key_of(((1, 3, 0, 1.0),)))

    def test_keys_are_never_reused_after_starting_over(self):
        # A request may hold entries loaded before the store started
        # over beside entries loaded after: their keys must differ.
        store = memory.Store()
        original = memory.MAX_ENTRIES
        self.addCleanup(setattr, memory, 'MAX_ENTRIES', original)
        memory.MAX_ENTRIES = 1
        _, key_of = store.interner()
        before = key_of(((1, 2, 0, 1.0),))
        store.keep({1: memory.Entry('u', 0, (), frozenset())})
        store.keep({2: memory.Entry('u', 0, (), frozenset())})
        _, key_of = store.interner()
        self.assertNotEqual(before, key_of(((1, 5, 0, 1.0),)))

    def test_full_store_starts_over(self):
        store = memory.Store()
        original = memory.MAX_ENTRIES
        self.addCleanup(setattr, memory, 'MAX_ENTRIES', original)
        memory.MAX_ENTRIES = 2
        for rp_id in range(1, 4):
            store.keep({rp_id: memory.Entry('u', 0, (), frozenset())})
        self.assertEqual([3], sorted(store.entries))
