"""The floor a periodic read is measured against: a bare WSGI
application that runs the same SQLAlchemy statement as placement, on the
same driver and pool, and encodes the same body with orjson; no
middleware, routing table, microversion, policy, context or error
handling. Served by ``tools/nova_fleet periodic`` under the same uwsgi
command as the services (``BARE_DB_URL`` names the database).

    GET /resource_providers/{uuid}/inventories
    GET /resource_providers/{uuid}/allocations
"""
import os

import orjson
import sqlalchemy as sa

from placement.db import models
from placement.objects import allocation_reads
from placement.objects import resource_provider

FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')


def _inventories_stmt():
    inv = models.inventories
    rc = models.resource_classes
    return resource_provider.select_with_children_stmt(
        (rc.c.name.label('resource_class'), inv.c.total, inv.c.reserved,
         inv.c.min_unit, inv.c.max_unit, inv.c.step_size,
         inv.c.allocation_ratio, inv.c.created_at, inv.c.updated_at),
        ((inv, lambda rp: inv.c.resource_provider_id == rp.c.id),
         (rc, lambda rp: rc.c.id == inv.c.resource_class_id)),
        (inv.c.resource_class_id,))


INVENTORIES = _inventories_stmt()
ALLOCATIONS = allocation_reads.select_provider_allocations_stmt()
ENGINE = sa.create_engine(os.environ['BARE_DB_URL'], pool_size=10,
                          max_overflow=10, pool_pre_ping=False)


def _inventories(rows):
    return {'resource_provider_generation': rows[0][0],
            'inventories': {row[1]: dict(zip(FIELDS, row[2:8]))
                            for row in rows if row[1] is not None}}


def _allocations(rows):
    consumers = {}
    for row in rows:
        if row[1] is None:
            continue
        entry = consumers.get(row[1])
        if entry is None:
            entry = consumers[row[1]] = {'resources': {}}
        entry['resources'][row[2]] = row[3]
    return {'allocations': consumers,
            'resource_provider_generation': rows[0][0]}


ROUTES = {'inventories': (INVENTORIES, _inventories),
          'allocations': (ALLOCATIONS, _allocations)}


def application(environ, start_response):
    parts = environ.get('PATH_INFO', '').split('/')
    found = ROUTES.get(parts[-1]) if len(parts) == 4 else None
    if found is None:
        start_response('200 OK', [('Content-Type', 'text/plain'),
                                  ('Content-Length', '2')])
        return [b'ok']
    stmt, render = found
    with ENGINE.connect() as conn:
        rows = conn.execute(stmt, {'provider_uuid': parts[2]}).all()
    if not rows:
        start_response('404 Not Found', [('Content-Length', '0')])
        return [b'']
    body = orjson.dumps(render(rows))
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', str(len(body)))])
    return [body]
