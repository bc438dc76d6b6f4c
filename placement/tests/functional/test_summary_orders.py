"""The order of provider_summaries on PostgreSQL, pinned by scenario.

Upstream lists the summaries as its database's plan returns them, and on
PostgreSQL over trees that plan changes with the request
(objects/summary_order.postgresql_order): in heap order, by id, or as a
hash join returns them (providers with inventory in the order of their
first inventory row, the others by hash bucket of their id). Each
scenario below writes a tree on a fresh database (the ids, hence the
buckets, start at 1) with rows updated after they were written, and the
expected orders are upstream's (openstack-placement 16.0.0 on PostgreSQL
15, asked at 1.36), taken by experiment with tools/differential.
``scenario`` takes a ``send`` so it can be replayed against upstream
over HTTP; this test sends at 1.39, as test_list_orders does.

The other backends are not pinned here: MariaDB's order is
test_summary_order's and the gabbi suite's.
"""
import unittest

from placement.tests.functional.fixtures import app as app_fixture
from placement.tests.functional.fixtures import backends
from placement.tests.functional import test_list_orders as list_orders

VF = 'SRIOV_NET_VF'

# name: (writes, {query: provider names in upstream's order}). A write
# is 'P name [parent]' (create) or 'I name CLASS' (inventory of 4).
SCENARIOS = {
    'spread over children, root with inventory': (
        ['P cn', 'P d cn', 'P a cn', 'P a1 a', 'P b cn', 'I cn VCPU',
         'I b ' + VF, 'I a1 ' + VF],
        {'resources=%s:1' % VF: ['cn', 'b', 'a1', 'd', 'a'],
         'resources=VCPU:1,%s:1' % VF: ['cn', 'b', 'a1', 'd', 'a'],
         'resources=%s:1&resources_A=VCPU:1' % VF:
             ['cn', 'b', 'a1', 'd', 'a'],
         # Only the root, or suffixed groups only, in one tree: by id.
         'resources=VCPU:1': ['cn', 'd', 'a', 'a1', 'b'],
         'resources_A=%s:1' % VF: ['cn', 'd', 'a', 'a1', 'b'],
         'resources=VCPU:1&resources_A=%s:1' % VF:
             ['cn', 'd', 'a', 'a1', 'b']}),
    'four without inventory, by bucket': (
        ['P cn', 'P d cn', 'P a cn', 'P a1 a', 'P a11 a1', 'P b cn',
         'I a11 ' + VF, 'I b ' + VF],
        {'resources=%s:1' % VF: ['a11', 'b', 'd', 'a1', 'cn', 'a']}),
    'two trees, one child each': (
        ['P r1', 'P k1 r1', 'P k2 r1', 'P k3 r1', 'P r2', 'P j1 r2',
         'I k3 VCPU', 'I j1 VCPU'],
        {'resources=VCPU:1': ['k3', 'j1', 'k1', 'r2', 'r1', 'k2']}),
    'a child and the root': (
        ['P cn', 'P k1 cn', 'P k2 cn', 'I k2 VCPU', 'I cn VCPU',
         'I k1 MEMORY_MB'],
        {'resources=VCPU:1': ['k2', 'cn', 'k1'],
         'resources_A=MEMORY_MB:1': ['cn', 'k1', 'k2']}),
    # Suffixed groups only: three trees are joined by hash, two come in
    # heap order (the inventories moved the children after the roots).
    'three trees, suffixed only': (
        [write for tree in '123' for write in (
            'P r' + tree, 'P a%s r%s' % (tree, tree),
            'P b%s r%s' % (tree, tree))]
        + [write for tree in '123' for write in (
            'I b%s VCPU' % tree, 'I a%s VCPU' % tree)],
        {'resources_A=VCPU:1': ['b1', 'a1', 'b2', 'a2', 'b3', 'a3', 'r2',
                                'r1', 'r3']}),
    'two trees, suffixed only': (
        ['P r1', 'P a1 r1', 'P b1 r1', 'P r2', 'P a2 r2', 'P b2 r2',
         'I b1 VCPU', 'I a1 VCPU', 'I b2 VCPU', 'I a2 VCPU'],
        {'resources_A=VCPU:1': ['r1', 'r2', 'b1', 'a1', 'b2', 'a2']}),
    # 24 providers, 12 without inventory.
    'three trees of eight': (
        [write for tree in '123' for write in (
            'P r' + tree, 'P n%sa r%s' % (tree, tree),
            'P n%sb r%s' % (tree, tree), 'P f%sa n%sa' % (tree, tree),
            'P f%sb n%sa' % (tree, tree), 'P f%sc n%sb' % (tree, tree),
            'P x%s r%s' % (tree, tree), 'P y%s r%s' % (tree, tree))]
        + [write for tree in '123' for write in (
            'I n%sb VCPU' % tree, 'I f%sa FPGA' % tree,
            'I n%sa VCPU' % tree, 'I f%sc FPGA' % tree)],
        {'resources=FPGA:1': [
            'n1b', 'f1a', 'n1a', 'f1c', 'n2b', 'f2a', 'n2a', 'f2c', 'n3b',
            'f3a', 'n3a', 'f3c', 'r3', 'x2', 'f2b', 'f3b', 'f1b', 'y3',
            'y1', 'y2', 'x3', 'r1', 'r2', 'x1']}),
    # One child serves the unsuffixed group: heap order (the root's
    # inventory, written last, moved its row last).
    'one child, heap order': (
        ['P r1', 'P k1 r1', 'P k2 r1', 'P k3 r1', 'I k3 VCPU',
         'I r1 DISK_GB'],
        {'resources=VCPU:1': ['k1', 'k2', 'k3', 'r1'],
         'resources=VCPU:1,DISK_GB:1': ['k1', 'k2', 'k3', 'r1']}),
}


def _uuid(index):
    return '10000000-0000-4000-8000-%012d' % index


def scenario(send, writes, queries):
    """Make the writes; {query: summary provider names in order}."""
    uuids, generations = {}, {}
    for write in writes:
        kind, name, *rest = write.split()
        if kind == 'P':
            uuids[name] = _uuid(len(uuids) + 1)
            body = {'name': name, 'uuid': uuids[name]}
            if rest:
                body['parent_provider_uuid'] = uuids[rest[0]]
            status, answer = send('POST', '/resource_providers', body)
            generations[name] = 0
        else:
            status, answer = send(
                'PUT', '/resource_providers/%s/inventories' % uuids[name],
                {'inventories': {rest[0]: {'total': 4}},
                 'resource_provider_generation': generations[name]})
            generations[name] += 1
        assert status == 200, answer
    names = {uuid: name for name, uuid in uuids.items()}
    found = {}
    for query in queries:
        status, answer = send('GET', '/allocation_candidates?' + query)
        assert status == 200, answer
        found[query] = [names[uuid] for uuid in answer['provider_summaries']]
    return found


class SummaryOrderTest(unittest.TestCase):

    def test_postgresql_summary_orders(self):
        postgresql = [backend for backend in backends.available()
                      if backend.name == 'postgresql']
        if not postgresql:
            if backends.required():
                self.fail('PostgreSQL is not available')
            self.skipTest('PostgreSQL is not available')
        for title, (writes, queries) in SCENARIOS.items():
            with self.subTest(scenario=title):
                placement = app_fixture.PlacementApp(postgresql[0])
                self.addCleanup(placement.cleanup)
                send = list_orders.webob_sender(placement.app)
                found = scenario(send, writes, queries)
                self.assertEqual(queries, found)
