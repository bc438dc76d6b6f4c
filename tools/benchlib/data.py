"""The benchmark data: shapes as plain rows, and loading them.

Shapes (``nodes(shape, n)``), each a list of
``(name, parent name, {class: total}, [traits], [aggregates])`` with
parents before children:

  flat    N roots with VCPU/MEMORY_MB/DISK_GB; every other one in one
          aggregate, every other pair with HW_CPU_X86_AVX2 (a quarter
          match the flat query).
  nested  N/7 compute trees: CN (DISK_GB) > NUMA0, NUMA1 (VCPU,
          MEMORY_MB, HW_NUMA_ROOT) > one FPGA (CUSTOM_FPGA_A) and one
          PGPU (CUSTOM_GPU_B) grandchild under each NUMA.

``load_sql`` writes the rows straight into a database with the placement
schema (the one both services share), after emptying its data tables;
``load_http`` creates them through the API.
"""
import concurrent.futures
import uuid

import requests
import sqlalchemy as sa

from tools.benchlib import http

AGG = '5d3b7d3e-8c8a-4bbf-9a1b-0b7a8f6f1c11'
PROJECT = 'b0b0b0b0-0000-4000-8000-000000000001'
USER = 'b0b0b0b0-0000-4000-8000-000000000002'
# The default sizes: 1,000 flat providers; 250 nested trees of 7.
DEFAULT_N = {'flat': 1000, 'nested': 1750}
DATA_TABLES = ('allocations', 'inventories', 'resource_provider_traits',
               'resource_provider_aggregates', 'placement_aggregates',
               'consumers', 'resource_providers')
CUSTOM_TRAITS = ('CUSTOM_FPGA_A', 'CUSTOM_GPU_B')


def flat_nodes(count):
    nodes = []
    for i in range(count):
        nodes.append(('cn%d' % i, None,
                      {'VCPU': 32, 'MEMORY_MB': 131072, 'DISK_GB': 2000},
                      ['HW_CPU_X86_AVX2'] if (i // 2) % 2 == 0 else [],
                      [AGG] if i % 2 == 0 else []))
    return nodes


def nested_nodes(count):
    nodes = []
    for t in range(max(1, count // 7)):
        cn = 'cn%d' % t
        nodes.append((cn, None, {'DISK_GB': 2000}, [], []))
        for n in (0, 1):
            numa = '%s_numa%d' % (cn, n)
            nodes.append((numa, cn, {'VCPU': 16, 'MEMORY_MB': 65536},
                          ['HW_NUMA_ROOT'], []))
            nodes.append(('%s_fpga' % numa, numa, {'FPGA': 2},
                          ['CUSTOM_FPGA_A'], []))
            nodes.append(('%s_gpu' % numa, numa, {'PGPU': 2},
                          ['CUSTOM_GPU_B'], []))
    return nodes


def nodes(shape, count=None):
    """The rows of ``shape`` ('flat' or 'nested') at ``count`` providers."""
    count = count or DEFAULT_N[shape]
    return (flat_nodes if shape == 'flat' else nested_nodes)(count)


# --- loading through SQL --------------------------------------------------

def load_sql(db_url, rows):
    """Empty the data tables of ``db_url`` and write ``rows``."""
    engine = sa.create_engine(db_url)
    meta = sa.MetaData()
    meta.reflect(engine)
    with engine.begin() as conn:
        reset(conn)
        rc_ids, trait_ids = _names(conn, meta.tables)
        agg_id = conn.execute(meta.tables['placement_aggregates'].insert(
        ).values(uuid=AGG)).inserted_primary_key[0]
        start = (conn.execute(sa.text(
            'SELECT COALESCE(MAX(id), 0) FROM resource_providers')).scalar()
            + 1)
        ids = {node[0]: start + i for i, node in enumerate(rows)}
        _insert_rows(conn, meta.tables, rows, ids, (rc_ids, trait_ids,
                                                    agg_id))
        if engine.dialect.name == 'postgresql':
            # Rows written with explicit ids leave the sequence behind:
            # the next provider made through the API would take a used id.
            conn.execute(sa.text(
                "SELECT setval(pg_get_serial_sequence("
                "'resource_providers', 'id'), "
                "(SELECT MAX(id) FROM resource_providers))"))
    analyze(engine)
    engine.dispose()


def _names(conn, tables):
    """({class: id}, {trait: id}), the custom traits created first."""
    rc_ids = dict(conn.execute(sa.text(
        'SELECT name, id FROM resource_classes')).all())
    for name in CUSTOM_TRAITS:
        if not conn.execute(sa.text('SELECT id FROM traits WHERE '
                                    'name = :n'), {'n': name}).first():
            conn.execute(tables['traits'].insert().values(name=name))
    return rc_ids, dict(conn.execute(sa.text(
        'SELECT name, id FROM traits')).all())


def analyze(engine):
    """Fresh planner statistics for the bulk-loaded tables, as a server's
    own statistics (PostgreSQL's autovacuum, InnoDB's) would soon have:
    right after a bulk load PostgreSQL plans both services from the
    empty tables' estimates. On PostgreSQL a VACUUM too, so that the
    dead rows of the load before (the tables are emptied first) do not
    weigh on the next figures: the same query cost one run's database
    1.6 ms and a reloaded one's 2.9 ms.
    """
    if engine.dialect.name == 'postgresql':
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            conn.execute(sa.text('VACUUM ANALYZE'))
        return
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('ANALYZE TABLE %s' % ', '.join(
                DATA_TABLES + ('traits',)))).all()


def analyze_url(db_url):
    engine = sa.create_engine(db_url)
    analyze(engine)
    engine.dispose()


def reset(conn):
    """Delete every provider, consumer and their rows."""
    conn.execute(sa.text('UPDATE resource_providers SET '
                         'parent_provider_id = NULL, root_provider_id = NULL'))
    for table in DATA_TABLES:
        conn.execute(sa.text('DELETE FROM %s' % table))


def _root(nodes_by_name, name):
    while nodes_by_name[name][1]:
        name = nodes_by_name[name][1]
    return name


def _insert_rows(conn, tables, rows, ids, lookups):
    rc_ids, trait_ids, agg_id = lookups
    by_name = {node[0]: node for node in rows}
    rps, invs, traits, aggs = [], [], [], []
    for name, parent, inventory, trait_names, agg_uuids in rows:
        rp_id = ids[name]
        rps.append({'id': rp_id, 'uuid': str(uuid.uuid4()), 'name': name,
                    'generation': 1,
                    'parent_provider_id': ids[parent] if parent else None,
                    'root_provider_id': ids[_root(by_name, name)]})
        for rc, total in inventory.items():
            invs.append({'resource_provider_id': rp_id,
                         'resource_class_id': rc_ids[rc], 'total': total,
                         'reserved': 0, 'min_unit': 1, 'max_unit': total,
                         'step_size': 1, 'allocation_ratio': 1.0})
        traits += [{'resource_provider_id': rp_id,
                    'trait_id': trait_ids[n]} for n in trait_names]
        aggs += [{'resource_provider_id': rp_id, 'aggregate_id': agg_id}
                 for _ in agg_uuids]
    # Parents come before children, so each row's parent (and root,
    # possibly the row itself) exists when it is checked.
    for table, found in (('resource_providers', rps), ('inventories', invs),
                         ('resource_provider_traits', traits),
                         ('resource_provider_aggregates', aggs)):
        for batch in batched(found, 5000):
            conn.execute(tables[table].insert(), batch)


def batched(rows, size):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def allocate_every_other(db_url, name_like=None):
    """One consumer of 4 VCPU and 8 GiB on every other provider (in id
    order; of the providers whose name is LIKE ``name_like``, when
    given), written in SQL, then ANALYZE."""
    engine = sa.create_engine(db_url)
    meta = sa.MetaData()
    meta.reflect(engine)
    t = meta.tables
    with engine.begin() as conn:
        rc = dict(conn.execute(sa.select(t['resource_classes'].c.name,
                                         t['resource_classes'].c.id)).all())
        project, user = [conn.execute(t[table].insert().values(
            external_id=str(uuid.uuid4()))).inserted_primary_key[0]
            for table in ('projects', 'users')]
        rp = t['resource_providers']
        query = sa.select(rp.c.id).order_by(rp.c.id)
        if name_like is not None:
            query = query.where(rp.c.name.like(name_like))
        ids = conn.execute(query).scalars().all()[::2]
        consumers = [str(uuid.uuid4()) for _ in ids]
        conn.execute(t['consumers'].insert(), [
            {'uuid': c, 'project_id': project, 'user_id': user,
             'generation': 1} for c in consumers])
        rows = []
        for rp_id, consumer in zip(ids, consumers):
            rows += [{'resource_provider_id': rp_id, 'consumer_id': consumer,
                      'resource_class_id': rc['VCPU'], 'used': 4},
                     {'resource_provider_id': rp_id, 'consumer_id': consumer,
                      'resource_class_id': rc['MEMORY_MB'], 'used': 8192}]
        for part in batched(rows, 5000):
            conn.execute(t['allocations'].insert(), part)
    analyze(engine)
    engine.dispose()


def provider_generations(db_url):
    """[(uuid, generation)] of every provider, by id."""
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        rows = conn.execute(sa.text(
            'SELECT uuid, generation FROM resource_providers '
            'ORDER BY id')).all()
    engine.dispose()
    return [tuple(row) for row in rows]


# --- loading through the API ---------------------------------------------

def load_http(url, rows, db_url=None, workers=8):
    """Create ``rows`` through the API, parents before children, in
    parallel; with ``db_url`` the data tables are emptied first."""
    if db_url:
        engine = sa.create_engine(db_url)
        with engine.begin() as conn:
            reset(conn)
        engine.dispose()
    for name in CUSTOM_TRAITS:
        requests.put(url + '/traits/' + name, headers=http.HEADERS)
    uuids = {node[0]: str(uuid.uuid4()) for node in rows}
    depth = {}
    for name, parent, *_ in rows:
        depth[name] = 0 if parent is None else depth[parent] + 1
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for level in sorted(set(depth.values())):
            batch = [n for n in rows if depth[n[0]] == level]
            list(pool.map(lambda n: _create_http(url, n, uuids), batch))


def _create_http(url, node, uuids):
    name, parent, inventory, traits, aggs = node
    rp_uuid = uuids[name]
    body = {'name': '%s-%s' % (name, rp_uuid[:8]), 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = uuids[parent]
    requests.post(url + '/resource_providers', json=body,
                  headers=http.HEADERS).raise_for_status()
    gen = 0
    base = url + '/resource_providers/' + rp_uuid
    for what, value in (('inventories', {
            rc: {'total': n, 'max_unit': n} for rc, n in inventory.items()}),
            ('traits', traits), ('aggregates', aggs)):
        if value:
            r = requests.put(base + '/' + what, headers=http.HEADERS, json={
                'resource_provider_generation': gen, what: value})
            r.raise_for_status()
            gen = r.json()['resource_provider_generation']
