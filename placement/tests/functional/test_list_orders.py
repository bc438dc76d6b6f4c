"""The orders of the lists upstream leaves to its database, the same on
every backend.

Upstream's lists with no ORDER BY come in the order of its database's
plan: on MariaDB by primary key (or by the index the plan used), on
PostgreSQL in the heap's physical order or as a hash join returns them.
That order is not part of the contract (see the differences page); ours
is by id on every backend: providers, traits (the provider's, and the
PUT's answer too) and a provider's allocations. The scenarios below
write rows in an order that differs from their ids and from their
physical order on PostgreSQL (rows updated after they were written);
``scenario`` takes a ``send`` so it can be replayed against upstream over
HTTP.
"""
import json
import unittest

import webob

from placement.testing import app as app_fixture

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39'}
AGG_A = 'aaaaaaaa-0000-4000-8000-00000000000a'
AGG_B = 'bbbbbbbb-0000-4000-8000-00000000000b'
AGG_C = 'cccccccc-0000-4000-8000-00000000000c'
# name: (uuid, parent name)
PROVIDERS = {
    'r1': ('00000000-0000-4000-8000-000000000001', None),
    'r2': ('00000000-0000-4000-8000-000000000002', None),
    'c11': ('00000000-0000-4000-8000-000000000003', 'r1'),
    'c21': ('00000000-0000-4000-8000-000000000004', 'r2'),
    'c12': ('00000000-0000-4000-8000-000000000005', 'r1'),
    'c22': ('00000000-0000-4000-8000-000000000006', 'r2'),
    'r3': ('00000000-0000-4000-8000-000000000007', None),
    'g1': ('00000000-0000-4000-8000-000000000008', 'c11'),
}
BY_ID = list(PROVIDERS)
# The last write of each provider comes in this order (on PostgreSQL its
# place in the heap).
LAST_WRITTEN = ['g1', 'c11', 'r2', 'c22', 'r1', 'c21', 'r3', 'c12']
AVX, SSE = 'HW_CPU_X86_AVX', 'HW_CPU_X86_SSE'

# query: the providers it lists (in any order here; listed by id)
LIST_ORDERS = {
    '': BY_ID,
    'member_of=%s' % AGG_A: BY_ID,
    'member_of=%s' % AGG_B: ['r1', 'c11', 'c12', 'r3', 'g1'],
    'member_of=in:%s,%s' % (AGG_B, AGG_C): BY_ID,
    'member_of=%s&member_of=!%s' % (AGG_A, AGG_B): ['r2', 'c21', 'c22'],
    'member_of=!%s' % AGG_B: ['r2', 'c21', 'c22'],
    'required=%s' % AVX: BY_ID,
    'required=%s,%s' % (AVX, SSE): [n for n in BY_ID if n != 'r3'],
    'resources=VCPU:1': BY_ID,
    'resources=VCPU:1,DISK_GB:1': BY_ID,
    'resources=VCPU:1&member_of=%s' % AGG_A: BY_ID,
    'member_of=%s&required=%s' % (AGG_A, AVX): BY_ID,
    'in_tree=%s' % PROVIDERS['c12'][0]: ['r1', 'c11', 'c12', 'g1'],
}


def webob_sender(app):
    """send(method, path, body=None) -> (status, JSON answer) of ``app``
    at HEADERS."""
    def send(method, path, body=None):
        req = webob.Request.blank(path, method=method, headers=HEADERS)
        if body is not None:
            req.body = json.dumps(body).encode('utf-8')
            req.content_type = 'application/json'
        resp = req.get_response(app)
        return resp.status_int, (resp.json if resp.body else None)
    return send


def scenario(send):
    """Write the providers, the last write of each in LAST_WRITTEN order;
    return {query: names listed}."""
    uuids = {name: uuid for name, (uuid, _) in PROVIDERS.items()}
    for name, (uuid, parent) in PROVIDERS.items():
        body = {'name': name, 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = uuids[parent]
        assert send('POST', '/resource_providers', body)[0] == 200
    writes = (
        ('inventories', ['c22', 'r1', 'g1', 'c11', 'r3', 'c12', 'r2', 'c21'],
         lambda name: {'inventories': {'VCPU': {'total': 4},
                                       'DISK_GB': {'total': 10}}}),
        ('aggregates', ['r3', 'c12', 'c21', 'r1', 'g1', 'c22', 'r2', 'c11'],
         lambda name: {'aggregates': [AGG_A, AGG_B] if name[1] in '13'
                       else [AGG_A, AGG_C]}),
        ('traits', LAST_WRITTEN,
         lambda name: {'traits': [AVX] if name == 'r3' else [AVX, SSE]}),
    )
    for generation, (what, order, body) in enumerate(writes):
        for name in order:
            data = dict(body(name), resource_provider_generation=generation)
            status, answer = send(
                'PUT', '/resource_providers/%s/%s' % (uuids[name], what),
                data)
            assert status == 200, answer
    listed = {}
    for query in LIST_ORDERS:
        status, answer = send('GET', '/resource_providers?' + query)
        assert status == 200, answer
        listed[query] = [rp['name'] for rp in answer['resource_providers']]
    return listed


class ProviderListOrderTest(unittest.TestCase):

    def test_provider_list_orders(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        listed = scenario(webob_sender(placement.app))
        for query, names in LIST_ORDERS.items():
            expected = [name for name in BY_ID if name in names]
            self.assertEqual(expected, listed[query], query)


CUSTOM = ['CUSTOM_ZZ', 'CUSTOM_AA', 'CUSTOM_MM']
P_UUID = '10000000-0000-4000-8000-000000000001'
Q_UUID = '10000000-0000-4000-8000-000000000002'
CONSUMERS = ['20000000-0000-4000-8000-00000000000%d' % n for n in (1, 2, 3)]


def trait_scenario(send):
    """Custom traits made ZZ, AA, MM; provider p given five traits, q
    three: {what: names listed}. (Standard traits' ids, hence their
    places, vary from one database to the next: only custom ones and
    HW_NUMA_ROOT-free answers are compared.)"""
    for name in CUSTOM:
        assert send('PUT', '/traits/' + name)[0] == 201
    for uuid, name in ((P_UUID, 'p'), (Q_UUID, 'q')):
        assert send('POST', '/resource_providers',
                    {'name': name, 'uuid': uuid})[0] == 200
    found = {}

    def put(uuid, traits, generation):
        status, answer = send(
            'PUT', '/resource_providers/%s/traits' % uuid,
            {'traits': traits, 'resource_provider_generation': generation})
        assert status == 200, answer
        return answer['traits']

    found['put p'] = put(P_UUID, ['CUSTOM_AA', 'CUSTOM_MM', 'CUSTOM_ZZ'], 0)
    found['put q'] = put(Q_UUID, ['CUSTOM_MM', 'CUSTOM_ZZ'], 0)
    # q's links now: MM and ZZ, then AA written after them.
    put(Q_UUID, ['CUSTOM_MM', 'CUSTOM_ZZ', 'CUSTOM_AA'], 1)
    for uuid, name in ((P_UUID, 'p'), (Q_UUID, 'q')):
        answer = send('GET', '/resource_providers/%s/traits' % uuid)[1]
        found['get ' + name] = answer['traits']
    answer = send('GET', '/traits?name=startswith:CUSTOM_')[1]
    found['startswith'] = answer['traits']
    answer = send('GET', '/traits?name=in:CUSTOM_MM,CUSTOM_AA,CUSTOM_ZZ')[1]
    found['in'] = answer['traits']
    for query in ('', '?associated=true'):
        answer = send('GET', '/traits' + query)[1]
        found['list' + query] = [name for name in answer['traits']
                                 if name.startswith('CUSTOM_')]
    return found


# what: the traits listed, by trait id (made ZZ, AA, MM).
TRAIT_ORDERS = {
    'put p': CUSTOM,
    'put q': ['CUSTOM_ZZ', 'CUSTOM_MM'],
    'get p': CUSTOM,
    'get q': CUSTOM,
    'startswith': CUSTOM,
    'in': CUSTOM,
    'list': CUSTOM,
    'list?associated=true': CUSTOM,
}


def allocation_scenario(send):
    """Three consumers allocate on p (the second twice, moving it last):
    the classes p's allocations list for each consumer, in order."""
    assert send('POST', '/resource_providers',
                {'name': 'p', 'uuid': P_UUID})[0] == 200
    inventories = {rc: {'total': 100}
                   for rc in ('VCPU', 'MEMORY_MB', 'DISK_GB')}
    assert send('PUT', '/resource_providers/%s/inventories' % P_UUID,
                {'inventories': inventories,
                 'resource_provider_generation': 0})[0] == 200
    writes = ((0, [('VCPU', 1), ('DISK_GB', 2), ('MEMORY_MB', 3)], None),
              (1, [('MEMORY_MB', 3), ('VCPU', 1)], None),
              (2, [('DISK_GB', 2), ('VCPU', 1)], None),
              (0, [('VCPU', 2), ('DISK_GB', 2), ('MEMORY_MB', 3)], 1))
    for consumer, resources, generation in writes:
        body = {'allocations': {P_UUID: {'resources': dict(resources)}},
                'project_id': 'p', 'user_id': 'u', 'consumer_type': 'X',
                'consumer_generation': generation}
        status, answer = send('PUT', '/allocations/' + CONSUMERS[consumer],
                              body)
        assert status == 204, answer
    answer = send('GET', '/resource_providers/%s/allocations' % P_UUID)[1]
    return [(CONSUMERS.index(uuid), list(entry['resources']))
            for uuid, entry in answer['allocations'].items()]


# By allocation id: consumers in the order of their first row (the
# second consumer rewritten last), each one's classes as written.
ALLOCATION_ORDER = [(1, ['MEMORY_MB', 'VCPU']), (2, ['DISK_GB', 'VCPU']),
                    (0, ['VCPU', 'DISK_GB', 'MEMORY_MB'])]


class TraitAndAllocationOrderTest(unittest.TestCase):

    def test_trait_orders(self):
        app_fixture.on_each_backend(self, self._check_traits)

    def _check_traits(self, placement):
        found = trait_scenario(webob_sender(placement.app))
        for what, order in TRAIT_ORDERS.items():
            self.assertEqual(order, found[what], what)

    def test_allocation_orders(self):
        app_fixture.on_each_backend(self, self._check_allocations)

    def _check_allocations(self, placement):
        found = allocation_scenario(webob_sender(placement.app))
        self.assertEqual(ALLOCATION_ORDER, found)


def summary_scenario(send):
    """p then q made with VCPU; p gets traits last (its row rewritten
    after q's): (providers of the summaries, p's traits there)."""
    for uuid, name in ((P_UUID, 'p'), (Q_UUID, 'q')):
        assert send('POST', '/resource_providers',
                    {'name': name, 'uuid': uuid})[0] == 200
        assert send('PUT', '/resource_providers/%s/inventories' % uuid,
                    {'inventories': {'VCPU': {'total': 8}},
                     'resource_provider_generation': 0})[0] == 200
    for name in CUSTOM:
        assert send('PUT', '/traits/' + name)[0] == 201
    assert send('PUT', '/resource_providers/%s/traits' % P_UUID,
                {'traits': ['CUSTOM_MM', 'CUSTOM_ZZ'],
                 'resource_provider_generation': 1})[0] == 200
    assert send('PUT', '/resource_providers/%s/traits' % P_UUID,
                {'traits': ['CUSTOM_MM', 'CUSTOM_ZZ', 'CUSTOM_AA'],
                 'resource_provider_generation': 2})[0] == 200
    answer = send('GET', '/allocation_candidates?resources=VCPU:1')[1]
    summaries = answer['provider_summaries']
    return ([{P_UUID: 'p', Q_UUID: 'q'}[uuid] for uuid in summaries],
            summaries[P_UUID]['traits'])


class SummaryOrderTest(unittest.TestCase):
    """provider_summaries is a JSON object: its members' order is not
    part of the answer. A provider's traits, a list, come in trait id
    order (the order they were made) on every backend."""

    def test_summary_traits_in_id_order(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        providers, traits = summary_scenario(webob_sender(placement.app))
        self.assertEqual(['p', 'q'], sorted(providers))
        self.assertEqual(CUSTOM, traits)
