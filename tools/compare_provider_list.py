"""Compare GET /resource_providers filters: a live server vs this app.

Not a test: a developer tool. It builds the same small forest (8
providers, inventories with reserved/ratio/min/max/step, allocations,
aggregates, traits) on a running placement (upstream, by default
http://127.0.0.1:8779, noauth2) and on this app in-process on a fresh
database of the given backend, then asks both ~80 filter queries
(resources, member_of, required, in_tree and pairs of them) and prints
every difference in status or in the ordered list of its own providers:

    python tools/compare_provider_list.py [sqlite|mysql|postgresql] [URL]

Names and custom traits carry a random suffix, so a shared server is fine.
"""
import json
import os
import random
import sys
import urllib.request
import uuid

import webob

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

from placement.tests.functional.fixtures import app as app_fixture  # noqa
from placement.tests.functional.fixtures import backends  # noqa: E402

URL = sys.argv[2] if len(sys.argv) > 2 else 'http://127.0.0.1:8779'

S = uuid.uuid4().hex[:6].upper()
HDR = {'x-auth-token': 'admin', 'content-type': 'application/json', 'accept': 'application/json'}

def up(method, path, body=None, mv='1.39'):
    h = dict(HDR, **{'openstack-api-version': 'placement %s' % mv})
    req = urllib.request.Request(URL + path, method=method, headers=h,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        r = urllib.request.urlopen(req)
    except urllib.error.HTTPError as e:
        r = e
    return r.status, r.read().decode()

pa = app_fixture.PlacementApp(backends.BACKENDS[sys.argv[1] if len(sys.argv) > 1 else 'sqlite'])
def me(method, path, body=None, mv='1.39'):
    h = dict(HDR, **{'openstack-api-version': 'placement %s' % mv})
    req = webob.Request.blank(path, method=method, headers=h)
    if body is not None: req.body = json.dumps(body).encode()
    r = req.get_response(pa.app)
    return r.status_int, r.text

rnd = random.Random(7)
uuids = [str(uuid.uuid4()) for _ in range(8)]
aggs = [str(uuid.uuid4()) for _ in range(3)]
traits = ['CUSTOM_AG_%s_%d' % (S, i) for i in range(3)] + ['HW_CPU_X86_AVX', 'HW_CPU_X86_SSE']
parents = [None, 0, 0, 1, None, 4, None, 6]
for send in (up, me):
    for t in traits[:3]:
        send('PUT', '/traits/' + t)
    for i, u in enumerate(uuids):
        body = {'name': 'ag-%s-%d' % (S, i), 'uuid': u}
        if parents[i] is not None: body['parent_provider_uuid'] = uuids[parents[i]]
        assert send('POST', '/resource_providers', body)[0] == 200
for i, u in enumerate(uuids):
    r = random.Random(i)
    inv = {'VCPU': {'total': r.choice([4, 8, 16]), 'reserved': r.choice([0, 1, 2]), 'allocation_ratio': r.choice([1.0, 1.5, 2.0]),
                    'min_unit': r.choice([1, 2]), 'max_unit': r.choice([4, 8, 16]), 'step_size': r.choice([1, 2])}}
    if i % 2: inv['MEMORY_MB'] = {'total': 1024, 'step_size': 256}
    my_aggs = r.sample(aggs, r.randint(0, 2)); my_traits = r.sample(traits, r.randint(0, 3))
    for send in (up, me):
        assert send('PUT', '/resource_providers/%s/inventories' % u, {'resource_provider_generation': 0, 'inventories': inv})[0] == 200
        assert send('PUT', '/resource_providers/%s/aggregates' % u, {'resource_provider_generation': 1, 'aggregates': my_aggs})[0] == 200
        assert send('PUT', '/resource_providers/%s/traits' % u, {'resource_provider_generation': 2, 'traits': my_traits})[0] == 200
        if i in (1, 2, 5):
            c = str(uuid.uuid5(uuid.NAMESPACE_OID, u))
            st = send('PUT', '/allocations/' + c, {'allocations': {u: {'resources': {'VCPU': inv['VCPU']['min_unit'] * 2 if inv['VCPU']['min_unit']*2 <= inv['VCPU']['max_unit'] else inv['VCPU']['min_unit']}}},
                      'consumer_generation': None, 'project_id': 'p', 'user_id': 'u', 'consumer_type': 'INSTANCE'})[0]

queries = []
for a in range(1, 10): queries.append('resources=VCPU:%d' % a)
queries += ['resources=VCPU:2,MEMORY_MB:256', 'resources=MEMORY_MB:1024', 'resources=MEMORY_MB:300']
for ag in aggs: queries += ['member_of=' + ag, 'member_of=!' + ag]
queries += ['member_of=in:%s,%s' % (aggs[0], aggs[1]), 'member_of=%s&member_of=%s' % (aggs[0], aggs[1]), 'member_of=!in:%s,%s' % (aggs[0], aggs[2])]
for t in traits: queries += ['required=' + t, 'required=!' + t]
queries += ['required=%s,%s' % (traits[0], traits[3]), 'required=in:%s,%s' % (traits[1], traits[4]), 'required=in:%s,%s&required=!%s' % (traits[0], traits[1], traits[2])]
for u in uuids[:3] + uuids[4:5]: queries.append('in_tree=' + u)
combo = list(queries)
for _ in range(40):
    queries.append('&'.join(rnd.sample(combo, 2)))
bad = 0; nonempty = 0
for q in queries:
    s1, t1 = up('GET', '/resource_providers?' + q)
    s2, t2 = me('GET', '/resource_providers?' + q)
    if s1 != s2:
        bad += 1; print('STATUS', q, s1, s2, t1[:200], t2[:200]); continue
    if s1 != 200: continue
    l1 = [p['uuid'] for p in json.loads(t1)['resource_providers'] if p['uuid'] in uuids]
    l2 = [p['uuid'] for p in json.loads(t2)['resource_providers']]
    nonempty += bool(l2)
    if l1 != l2:
        bad += 1; print('DIFF', q, [uuids.index(x) for x in l1], [uuids.index(x) for x in l2])
print('queries', len(queries), 'differences', bad, 'nonempty', nonempty)
pa.cleanup()
# Leave the live server as it was: consumers, then children before parents.
for u in uuids:
    up('DELETE', '/allocations/%s' % uuid.uuid5(uuid.NAMESPACE_OID, u))
for index in (3, 2, 1, 0, 5, 4, 7, 6):
    up('DELETE', '/resource_providers/%s' % uuids[index])
for t in traits[:3]:
    up('DELETE', '/traits/' + t)
