"""Benchmark GET /allocation_candidates (a tool, not a test).

Loads N providers, then times the typical scheduler queries and prints the
median and p95 latency, optionally against a second server side by side
(the requests to the two interleaved one by one, so that the load of a
shared machine falls on both alike), with the ratio and a warning when the
two answer with different numbers of candidates; the requests per second
at ``--concurrency``; and the memory of each server's workers (RSS, and
the proportional and private sizes that count pages shared after fork
once). The CPU time per request in process, and where it goes, is
tools/profile_candidates.py.

Shapes:
  flat    N roots (default 1,000) with VCPU/MEMORY_MB/DISK_GB; every other
          one in one aggregate, every other pair with HW_CPU_X86_AVX2 (a
          quarter match the flat query); plain and limit=10.
  nested  N/7 compute trees (default N=1,750: 250 trees): CN (DISK_GB) >
          NUMA0, NUMA1 (VCPU, MEMORY_MB, HW_NUMA_ROOT) > one FPGA
          (CUSTOM_FPGA_A) and one PGPU (CUSTOM_GPU_B) grandchild under
          each NUMA. Queries: the gate (isolate + same_subtree, 2 per
          tree) and its limit=10; the same without same_subtree under
          isolate and under none (8 per tree); two FPGA groups with an
          unsuffixed FPGA (12 per tree: 3,000); one unsuffixed group
          spread over four providers of a tree (16 per tree: 4,000); wide
          (three groups, none).

Loading: ``--load http`` goes through the API (parallel requests);
``--load sql`` writes the same rows straight into the database given with
``--db`` (and ``--compare-db``), which is much faster for 50,000 providers;
the schema is the one both services share. Either way the data tables are
emptied first (``--load none`` keeps what is there).

Example (both servers from tools/bench-servers, which prints the
arguments after ``--load sql``; randomization on in its environment):

    OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES=True \\
        tools/bench-servers start mysql      # or postgresql
    .venv/bin/python tools/bench_candidates.py --shape flat --load sql \\
        --repeat 40 --concurrency 10 <printed arguments>
    .venv/bin/python tools/bench_candidates.py --shape nested --load sql \\
        --repeat 20 <printed arguments>

Servers (each with its own MariaDB database, noauth2):

    OS_PLACEMENT_CONFIG_DIR=<dir with an empty placement.conf> \\
    OS_PLACEMENT_DATABASE__CONNECTION=mysql+pymysql://root@127.0.0.1/DB \\
    OS_PLACEMENT_DATABASE__SYNC_ON_STARTUP=True OS_API__AUTH_STRATEGY=noauth2 \\
    <venv>/bin/uwsgi --http-socket 127.0.0.1:PORT --processes 2 --threads 10 \\
        --master --module placement.wsgi.api:application
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import statistics
import sys
import time
import urllib.parse
import uuid

import requests
import sqlalchemy as sa

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'connection': 'close',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.39'}
AGG = '5d3b7d3e-8c8a-4bbf-9a1b-0b7a8f6f1c11'
FLAT_QUERY = ('resources=VCPU:1,DISK_GB:10,MEMORY_MB:256'
              '&member_of=%s&required=HW_CPU_X86_AVX2' % AGG)
NESTED_QUERY = ('resources=DISK_GB:10'
                '&resources_COMPUTE=VCPU:2,MEMORY_MB:1024'
                '&required_COMPUTE=HW_NUMA_ROOT'
                '&resources_ACCEL=FPGA:1&required_ACCEL=CUSTOM_FPGA_A'
                '&resources_GPU=PGPU:1&required_GPU=CUSTOM_GPU_B'
                '&group_policy=isolate'
                '&same_subtree=_COMPUTE,_ACCEL,_GPU')
NESTED_WIDE_QUERY = ('resources_COMPUTE=VCPU:1'
                     '&resources_ACCEL=FPGA:1&resources_GPU=PGPU:1'
                     '&group_policy=none')
# The gate query without same_subtree: every NUMA node with every FPGA
# and GPU of its tree (8 per tree), under isolate and under none.
NESTED_ISOLATE_QUERY = NESTED_QUERY.replace(
    '&same_subtree=_COMPUTE,_ACCEL,_GPU', '')
NESTED_NONE_QUERY = NESTED_ISOLATE_QUERY.replace('group_policy=isolate',
                                                 'group_policy=none')
# Two FPGA groups and an unsuffixed FPGA over the two FPGAs of a tree (6
# ways, three units never on one 2-unit FPGA) times the two NUMA nodes:
# 12 per tree, 3,000 at 250 trees.
NESTED_FPGA_QUERY = ('resources=FPGA:1&resources_COMPUTE=VCPU:1'
                     '&resources_ACCEL1=FPGA:1&resources_ACCEL2=FPGA:1'
                     '&group_policy=none')
# One unsuffixed group whose classes come from four providers of a tree
# (2 x 2 x 2 x 2 ways per tree, 4,000 at 250 trees).
NESTED_SPREAD_QUERY = 'resources=VCPU:1,MEMORY_MB:1024,FPGA:1,PGPU:1'
QUERIES = {
    'flat': [('flat', FLAT_QUERY), ('flat limit=10', FLAT_QUERY + '&limit=10')],
    'nested': [('nested gate (isolate+subtree)', NESTED_QUERY),
               ('nested gate limit=10', NESTED_QUERY + '&limit=10'),
               ('nested isolate, no subtree', NESTED_ISOLATE_QUERY),
               ('nested none, no subtree', NESTED_NONE_QUERY),
               ('nested two FPGA groups', NESTED_FPGA_QUERY),
               ('nested unsuffixed spread', NESTED_SPREAD_QUERY),
               ('nested wide (4 combos/tree)', NESTED_WIDE_QUERY),
               ('nested wide limit=10', NESTED_WIDE_QUERY + '&limit=10')],
}
# The default sizes: 1,000 flat providers; 250 nested trees of 7.
DEFAULT_N = {'flat': '1000', 'nested': '1750'}
DATA_TABLES = ('allocations', 'inventories', 'resource_provider_traits',
               'resource_provider_aggregates', 'placement_aggregates',
               'consumers', 'resource_providers')
CUSTOM_TRAITS = ('CUSTOM_FPGA_A', 'CUSTOM_GPU_B')


# --- the data, as plain rows --------------------------------------------

def flat_nodes(count):
    """[(name, parent name, {class: total}, [traits], [aggregates])]."""
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


# --- loading through SQL --------------------------------------------------

def load_sql(db_url, nodes):
    engine = sa.create_engine(db_url)
    meta = sa.MetaData()
    meta.reflect(engine)
    t = meta.tables
    with engine.begin() as conn:
        _reset(conn)
        rc_ids = dict(conn.execute(sa.text(
            'SELECT name, id FROM resource_classes')).all())
        for name in CUSTOM_TRAITS:
            if not conn.execute(sa.text('SELECT id FROM traits WHERE '
                                        'name = :n'), {'n': name}).first():
                conn.execute(t['traits'].insert().values(name=name))
        trait_ids = dict(conn.execute(sa.text(
            'SELECT name, id FROM traits')).all())
        agg_id = conn.execute(t['placement_aggregates'].insert().values(
            uuid=AGG)).inserted_primary_key[0]
        start = (conn.execute(sa.text(
            'SELECT COALESCE(MAX(id), 0) FROM resource_providers')).scalar()
            + 1)
        ids = {node[0]: start + i for i, node in enumerate(nodes)}
        _insert_rows(conn, t, nodes, ids, rc_ids, trait_ids, agg_id)
        if engine.dialect.name == 'postgresql':
            # Rows written with explicit ids leave the sequence behind:
            # the next provider made through the API would take a used id.
            conn.execute(sa.text(
                "SELECT setval(pg_get_serial_sequence("
                "'resource_providers', 'id'), "
                "(SELECT MAX(id) FROM resource_providers))"))
    _analyze(engine)
    engine.dispose()


def _analyze(engine):
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


def _reset(conn):
    conn.execute(sa.text('UPDATE resource_providers SET '
                         'parent_provider_id = NULL, root_provider_id = NULL'))
    for table in DATA_TABLES:
        conn.execute(sa.text('DELETE FROM %s' % table))


def _root(nodes_by_name, name):
    while nodes_by_name[name][1]:
        name = nodes_by_name[name][1]
    return name


def _insert_rows(conn, t, nodes, ids, rc_ids, trait_ids, agg_id):
    by_name = {node[0]: node for node in nodes}
    rps, invs, traits, aggs = [], [], [], []
    for name, parent, inventory, trait_names, agg_uuids in nodes:
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
    # Nodes list parents before children, so each row's parent (and
    # root, possibly the row itself) exists when it is checked.
    for batch in _batched(rps, 5000):
        conn.execute(t['resource_providers'].insert(), batch)
    for table, rows in (('inventories', invs),
                        ('resource_provider_traits', traits),
                        ('resource_provider_aggregates', aggs)):
        for batch in _batched(rows, 5000):
            conn.execute(t[table].insert(), batch)


def _batched(rows, size):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


# --- loading through the API ---------------------------------------------

def load_http(url, nodes, db_url=None, workers=8):
    """Create ``nodes`` through the API, parents before children, in
    parallel; with ``db_url`` the data tables are emptied first.
    """
    if db_url:
        engine = sa.create_engine(db_url)
        with engine.begin() as conn:
            _reset(conn)
        engine.dispose()
    for name in CUSTOM_TRAITS:
        requests.put(url + '/traits/' + name, headers=HEADERS)
    uuids = {node[0]: str(uuid.uuid4()) for node in nodes}
    depth = {}
    for name, parent, *_ in nodes:
        depth[name] = 0 if parent is None else depth[parent] + 1
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for level in sorted(set(depth.values())):
            batch = [n for n in nodes if depth[n[0]] == level]
            list(pool.map(lambda n: _create_http(url, n, uuids), batch))


def _create_http(url, node, uuids):
    name, parent, inventory, traits, aggs = node
    s = requests  # uwsgi --http-socket closes each connection
    rp_uuid = uuids[name]
    body = {'name': '%s-%s' % (name, rp_uuid[:8]), 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = uuids[parent]
    s.post(url + '/resource_providers', json=body,
           headers=HEADERS).raise_for_status()
    gen = 0
    base = url + '/resource_providers/' + rp_uuid
    if inventory:
        r = s.put(base + '/inventories', headers=HEADERS, json={
            'resource_provider_generation': gen,
            'inventories': {rc: {'total': n, 'max_unit': n}
                            for rc, n in inventory.items()}})
        r.raise_for_status()
        gen = r.json()['resource_provider_generation']
    if traits:
        r = s.put(base + '/traits', headers=HEADERS, json={
            'resource_provider_generation': gen, 'traits': traits})
        r.raise_for_status()
        gen = r.json()['resource_provider_generation']
    if aggs:
        s.put(base + '/aggregates', headers=HEADERS, json={
            'resource_provider_generation': gen,
            'aggregates': aggs}).raise_for_status()


# --- timing ----------------------------------------------------------------

def fetch(url, path):
    """GET ``path`` on a new connection (uwsgi --http-socket closes each
    one); the body, raising on an error status.

    The timed requests go through http.client rather than requests: a
    requests.get builds a Session and its adapters every time, about half
    a millisecond of the client's own Python per request (measured on
    GET /: 0.93 ms against 0.43 ms), which would be counted against both
    servers alike and only blur their ratio.
    """
    parsed = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port or 80)
    try:
        conn.request('GET', parsed.path + path, headers=HEADERS)
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    if resp.status >= 400:
        raise RuntimeError('GET %s: %d %s' % (path, resp.status, body[:200]))
    return body


def time_interleaved(urls, query, repeats):
    """[(median ms, p95 ms, result count)] per url, the requests to the
    servers interleaved one by one (so that the load of a shared machine
    falls on each alike); ``repeats`` per url.
    """
    path = '/allocation_candidates?' + query
    counts = [len(json.loads(fetch(url, path))['allocation_requests'])
              for url in urls]
    samples = [[] for _ in urls]
    for i in range(max(repeats)):
        for url, repeat, found in zip(urls, repeats, samples):
            if i < repeat:
                start = time.perf_counter()
                fetch(url, path)
                found.append((time.perf_counter() - start) * 1000)
    return [(statistics.median(found), p95(found), count)
            for found, count in zip(samples, counts)]


def p95(samples):
    """The 95th percentile of ``samples`` (nearest rank)."""
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(round(0.95 * len(samples))) - 1)]


def throughput(url, query, concurrency, total):
    """Requests per second with ``concurrency`` clients, ``total`` in all."""
    path = '/allocation_candidates?' + query

    def one(_):
        fetch(url, path)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(total)))
    return total / (time.perf_counter() - start)


def children(pid):
    """The pids of the processes whose parent is ``pid`` (Linux)."""
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            return [int(child) for child in f.read().split()]
    except OSError:
        return []


def cpu_seconds(pids, family=True):
    """CPU seconds used so far by every thread of ``pids`` and, with
    ``family``, of their children (a uwsgi master and its workers), from
    /proc/PID/task/TID/schedstat (nanoseconds); a process or thread that
    just ended counts for nothing."""
    total = 0
    for pid in pids:
        for member in [pid] + (children(pid) if family else []):
            try:
                tids = os.listdir('/proc/%d/task' % member)
            except OSError:
                continue
            for tid in tids:
                try:
                    with open('/proc/%d/task/%s/schedstat'
                              % (member, tid)) as f:
                        total += int(f.read().split()[0])
                except OSError:
                    continue
    return total / 1e9


def worker_rss(master_pid, field='VmRSS', source='status'):
    """{pid: MiB} of the children of ``master_pid``: their resident size
    now (VmRSS) or at its peak so far (VmHWM), from /proc/PID/status; or,
    with source='smaps_rollup', their proportional share (Pss: pages
    shared with the master and the other workers counted in part) or
    their own pages (Private_Dirty).
    """
    found = {}
    for pid in children(master_pid):
        try:
            with open('/proc/%d/%s' % (pid, source)) as f:
                for line in f:
                    if line.startswith(field + ':'):
                        found[pid] = int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return found


MEMORY_FIGURES = (('VmRSS', 'status', 'RSS now'),
                  ('VmHWM', 'status', 'RSS peak'),
                  ('Pss', 'smaps_rollup', 'PSS now'),
                  ('Private_Dirty', 'smaps_rollup', 'private now'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', required=True)
    parser.add_argument('--db', help='database URL for --load sql')
    parser.add_argument('--compare-url')
    parser.add_argument('--compare-db')
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--n',
                        help='comma-separated provider counts (default: '
                             '1000 flat, 1750 nested: 250 trees)')
    parser.add_argument('--load', choices=('http', 'sql', 'none'),
                        default='http')
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--compare-repeat', type=int,
                        help='repeats against the other server (default: '
                             '--repeat); fewer keeps slow runs short')
    parser.add_argument('--concurrency', type=int, default=0,
                        help='also measure requests/s with this many '
                             'parallel clients (the first query)')
    parser.add_argument('--pid', type=int, help='uwsgi master pid (RSS)')
    parser.add_argument('--compare-pid', type=int)
    args = parser.parse_args()
    targets = [('ours', args.url, args.db, args.pid)]
    if args.compare_url:
        targets.append(('other', args.compare_url, args.compare_db,
                        args.compare_pid))
    sizes = args.n or DEFAULT_N[args.shape]
    for n in [int(x) for x in sizes.split(',')]:
        run_size(args, targets, n)


def run_size(args, targets, n):
    nodes = (flat_nodes if args.shape == 'flat' else nested_nodes)(n)
    for label, url, db, _ in targets:
        start = time.time()
        if args.load == 'sql':
            load_sql(db, nodes)
        elif args.load == 'http':
            load_http(url, nodes, db)
        print('# %s: loaded %d providers (%s) in %.1fs'
              % (label, len(nodes), args.load, time.time() - start))
    print('%-32s %7s | %-28s | %-28s | ratio' % (
        '%s N=%d' % (args.shape, len(nodes)), 'results',
        'ours median/p95 ms', 'other median/p95 ms'))
    repeats = [args.repeat, args.compare_repeat or args.repeat]
    for name, query in QUERIES[args.shape]:
        figures = time_interleaved([url for _, url, _, _ in targets],
                                   query, repeats[:len(targets)])
        row = '%-32s %7d | %12.1f / %-12.1f' % (
            name, figures[0][2], figures[0][0], figures[0][1])
        if len(figures) > 1:
            row += ' | %12.1f / %-12.1f | %6.1fx' % (
                figures[1][0], figures[1][1], figures[1][0] / figures[0][0])
            if figures[1][2] != figures[0][2]:
                row += ' COUNTS DIFFER (other %d)' % figures[1][2]
        print(row, flush=True)
    if args.concurrency:
        name, query = QUERIES[args.shape][0]
        rates = [throughput(url, query, args.concurrency,
                            args.concurrency * args.repeat)
                 for _, url, _, _ in targets]
        print('# %s at concurrency %d: %s req/s' % (
            name, args.concurrency,
            ' vs '.join('%.1f' % rate for rate in rates)))
    for label, _, _, pid in targets:
        if pid:
            for field, source, what in MEMORY_FIGURES:
                sizes = worker_rss(pid, field, source)
                print('# %s worker MiB (%s): %s' % (
                    label, what, ', '.join(
                        '%.0f' % v for v in sorted(sizes.values()))))


if __name__ == '__main__':
    sys.exit(main())
