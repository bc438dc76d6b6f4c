"""GET /resource_providers filters: a live server against this app
(``compare provider-list``).

Builds the same small forest (8 providers, inventories with
reserved/ratio/min/max/step, allocations, aggregates, traits) on a
running placement (upstream, by default http://127.0.0.1:8779, noauth2)
and on this app in process on a fresh database of the given backend,
then asks both ~80 filter queries (resources, member_of, required,
in_tree and pairs of them) and prints every difference in status or in
the ordered list of its own providers. Names and custom traits carry a
random suffix, and what it made on the live server is deleted at the
end, so a shared server is fine. Exit status 1 when any differs.
"""
import json
import random
import urllib.error
import urllib.request
import uuid

from tools.benchlib import http
from tools.benchlib import inprocess

from placement.testing import app as app_fixture
from placement.testing import backends

PARENTS = [None, 0, 0, 1, None, 4, None, 6]
ALLOCATED = (1, 2, 5)


def add_arguments(parser):
    parser.add_argument('backend', nargs='?', default='sqlite',
                        choices=('sqlite', 'mysql', 'postgresql'))
    parser.add_argument('url', nargs='?', default='http://127.0.0.1:8779')


class Forest:
    """The random names of one run, and building it through an API."""

    def __init__(self):
        suffix = uuid.uuid4().hex[:6].upper()
        self.suffix = suffix
        self.uuids = [str(uuid.uuid4()) for _ in range(8)]
        self.aggs = [str(uuid.uuid4()) for _ in range(3)]
        self.traits = ['CUSTOM_AG_%s_%d' % (suffix, i) for i in range(3)] + [
            'HW_CPU_X86_AVX', 'HW_CPU_X86_SSE']

    def build(self, send):
        for trait in self.traits[:3]:
            send('PUT', '/traits/' + trait)
        for i, rp in enumerate(self.uuids):
            body = {'name': 'ag-%s-%d' % (self.suffix, i), 'uuid': rp}
            if PARENTS[i] is not None:
                body['parent_provider_uuid'] = self.uuids[PARENTS[i]]
            assert send('POST', '/resource_providers', body)[0] == 200
        for i, rp in enumerate(self.uuids):
            self._fill(send, i, rp)

    def _fill(self, send, i, rp):
        r = random.Random(i)
        inv = {'VCPU': {
            'total': r.choice([4, 8, 16]), 'reserved': r.choice([0, 1, 2]),
            'allocation_ratio': r.choice([1.0, 1.5, 2.0]),
            'min_unit': r.choice([1, 2]), 'max_unit': r.choice([4, 8, 16]),
            'step_size': r.choice([1, 2])}}
        if i % 2:
            inv['MEMORY_MB'] = {'total': 1024, 'step_size': 256}
        aggs = r.sample(self.aggs, r.randint(0, 2))
        traits = r.sample(self.traits, r.randint(0, 3))
        base = '/resource_providers/%s/' % rp
        for generation, what, body in ((0, 'inventories', inv),
                                       (1, 'aggregates', aggs),
                                       (2, 'traits', traits)):
            assert send('PUT', base + what, {
                'resource_provider_generation': generation,
                what: body})[0] == 200
        if i in ALLOCATED:
            vcpu = inv['VCPU']
            used = vcpu['min_unit'] * 2
            send('PUT', '/allocations/%s' % uuid.uuid5(uuid.NAMESPACE_OID,
                                                       rp), {
                'allocations': {rp: {'resources': {'VCPU': used if used <=
                                                   vcpu['max_unit'] else
                                                   vcpu['min_unit']}}},
                'consumer_generation': None, 'project_id': 'p',
                'user_id': 'u', 'consumer_type': 'INSTANCE'})

    def queries(self):
        found = ['resources=VCPU:%d' % a for a in range(1, 10)]
        found += ['resources=VCPU:2,MEMORY_MB:256',
                  'resources=MEMORY_MB:1024', 'resources=MEMORY_MB:300']
        for agg in self.aggs:
            found += ['member_of=' + agg, 'member_of=!' + agg]
        a = self.aggs
        found += ['member_of=in:%s,%s' % (a[0], a[1]),
                  'member_of=%s&member_of=%s' % (a[0], a[1]),
                  'member_of=!in:%s,%s' % (a[0], a[2])]
        for trait in self.traits:
            found += ['required=' + trait, 'required=!' + trait]
        t = self.traits
        found += ['required=%s,%s' % (t[0], t[3]),
                  'required=in:%s,%s' % (t[1], t[4]),
                  'required=in:%s,%s&required=!%s' % (t[0], t[1], t[2])]
        found += ['in_tree=' + rp for rp in self.uuids[:3] + self.uuids[4:5]]
        rnd = random.Random(7)
        return found + ['&'.join(rnd.sample(found, 2)) for _ in range(40)]

    def remove(self, send):
        """Leave the live server as it was: consumers, then children
        before parents, then the traits."""
        for rp in self.uuids:
            send('DELETE', '/allocations/%s' % uuid.uuid5(
                uuid.NAMESPACE_OID, rp))
        for index in (3, 2, 1, 0, 5, 4, 7, 6):
            send('DELETE', '/resource_providers/%s' % self.uuids[index])
        for trait in self.traits[:3]:
            send('DELETE', '/traits/' + trait)


def live(url):
    def send(method, path, body=None):
        req = urllib.request.Request(
            url + path, method=method, headers=http.HEADERS,
            data=json.dumps(body).encode() if body is not None else None)
        try:
            r = urllib.request.urlopen(req)
        except urllib.error.HTTPError as e:
            r = e
        return r.status, r.read().decode()
    return send


def local(app):
    def send(method, path, body=None):
        status, data = inprocess.call(app, path, method, body)
        return status, data.decode()
    return send


def compare(forest, up, me):
    """(differences, non-empty answers) over the forest's queries."""
    bad = nonempty = 0
    for q in forest.queries():
        s1, t1 = up('GET', '/resource_providers?' + q)
        s2, t2 = me('GET', '/resource_providers?' + q)
        if s1 != s2:
            bad += 1
            print('STATUS', q, s1, s2, t1[:200], t2[:200])
            continue
        if s1 != 200:
            continue
        l1 = [p['uuid'] for p in json.loads(t1)['resource_providers']
              if p['uuid'] in forest.uuids]
        l2 = [p['uuid'] for p in json.loads(t2)['resource_providers']]
        nonempty += bool(l2)
        if l1 != l2:
            bad += 1
            print('DIFF', q, [forest.uuids.index(x) for x in l1],
                  [forest.uuids.index(x) for x in l2])
    return bad, nonempty


def run(args):
    placement = app_fixture.PlacementApp(backends.BACKENDS[args.backend])
    forest = Forest()
    up, me = live(args.url), local(placement.app)
    try:
        for send in (up, me):
            forest.build(send)
        bad, nonempty = compare(forest, up, me)
        print('queries', len(forest.queries()), 'differences', bad,
              'nonempty', nonempty)
    finally:
        placement.cleanup()
        forest.remove(up)
    return 1 if bad else 0
