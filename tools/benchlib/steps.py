"""The route steps of ``bench routes``, ``bench cpu routes`` and
``profile writes``: one request each, given a server and a counter.

A server here is anything with ``call(method, path, body=None,
version=None, parse=True)``, ``uuids`` (the loaded providers, by id) and
``generation`` ({uuid: generation}, kept up to date by the PUT steps):
routes.Server over HTTP, or profile_writes' in-process one.
"""
import uuid

from tools.benchlib import data
from tools.benchlib import queries


def _provider(server, i):
    return server.uuids[i % len(server.uuids)]


def _get(path_of, version=None):
    def step(server, i):
        server.call('GET', path_of(server, i), version=version, parse=False)
    return step


def _create(server, i):
    rp = str(uuid.uuid4())
    server.call('POST', '/resource_providers',
                {'name': 'bench-%s' % rp, 'uuid': rp})


def _create_tree(server, i):
    root = str(uuid.uuid4())
    server.call('POST', '/resource_providers',
                {'name': 'bench-%s' % root, 'uuid': root})
    for _ in range(2):
        child = str(uuid.uuid4())
        server.call('POST', '/resource_providers',
                    {'name': 'bench-%s' % child, 'uuid': child,
                     'parent_provider_uuid': root})


def _put(what, body_of):
    """PUT /resource_providers/{u}/<what> with the provider's generation,
    on the providers in turn (their generation remembered)."""
    def step(server, i):
        rp = _provider(server, i)
        body = dict(body_of(i),
                    resource_provider_generation=server.generation[rp])
        _, answer = server.call(
            'PUT', '/resource_providers/%s/%s' % (rp, what), body)
        server.generation[rp] = answer['resource_provider_generation']
    return step


def _inventory_body(i):
    return {'inventories': {
        'VCPU': {'total': 32 + i % 2, 'max_unit': 32},
        'MEMORY_MB': {'total': 131072, 'max_unit': 131072},
        'DISK_GB': {'total': 2000, 'max_unit': 2000}}}


def _traits_body(i):
    return {'traits': ['HW_CPU_X86_AVX2'] + (['HW_CPU_X86_SSE'] if i % 2
                                             else [])}


def _aggregates_body(i):
    return {'aggregates': [data.AGG] + ([str(uuid.UUID(int=i % 7 + 1))]
                                        if i % 2 else [])}


def _post_allocations(server, i):
    body = {}
    for k in range(2):
        body[str(uuid.uuid4())] = {
            'allocations': {_provider(server, 2 * i + k): {
                'resources': {'VCPU': 1, 'MEMORY_MB': 64}}},
            'project_id': data.PROJECT, 'user_id': data.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    server.call('POST', '/allocations', body)


def _put_allocations(server, i):
    server.call('PUT', '/allocations/%s' % uuid.uuid4(), {
        'allocations': {_provider(server, 3 * i + 1): {
            'resources': {'VCPU': 1, 'DISK_GB': 1}}},
        'project_id': data.PROJECT, 'user_id': data.USER,
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})


def steps():
    """[(name, step)] in the order they run."""
    rp = '/resource_providers'
    flat = queries.FLAT_QUERY
    return [
        ('GET /resource_providers (all)', _get(lambda s, i: rp)),
        ('GET ?resources=VCPU:1,DISK_GB:10', _get(
            lambda s, i: rp + '?resources=VCPU:1,DISK_GB:10')),
        ('GET ?in_tree=', _get(
            lambda s, i: rp + '?in_tree=' + _provider(s, i))),
        ('GET ?member_of=', _get(lambda s, i: rp + '?member_of=' + data.AGG)),
        ('GET ?required=HW_CPU_X86_AVX2', _get(
            lambda s, i: rp + '?required=HW_CPU_X86_AVX2')),
        ('GET {rp}/inventories', _get(
            lambda s, i: '%s/%s/inventories' % (rp, _provider(s, i)))),
        ('GET {rp}/traits', _get(
            lambda s, i: '%s/%s/traits' % (rp, _provider(s, i)))),
        ('GET {rp}/aggregates', _get(
            lambda s, i: '%s/%s/aggregates' % (rp, _provider(s, i)))),
        ('GET /allocation_candidates', _get(
            lambda s, i: '/allocation_candidates?' + flat)),
        ('GET /allocation_candidates limit=10', _get(
            lambda s, i: '/allocation_candidates?%s&limit=10' % flat)),
        ('POST /resource_providers', _create),
        ('nested tree (3 POSTs)', _create_tree),
        ('PUT {rp}/inventories', _put('inventories', _inventory_body)),
        ('PUT {rp}/traits', _put('traits', _traits_body)),
        ('PUT {rp}/aggregates', _put('aggregates', _aggregates_body)),
        ('POST /allocations (2 consumers)', _post_allocations),
        ('PUT /allocations/{c}', _put_allocations),
        # 1.37: from 1.38 (usages by consumer type) upstream 16.0.0
        # answers 500 on PostgreSQL (a GROUP BY error).
        ('GET /usages?project_id= (1.37)', _get(
            lambda s, i: '/usages?project_id=' + data.PROJECT, '1.37')),
    ]
