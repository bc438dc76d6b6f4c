"""The cost of free capacity by shape: one /metrics scrape of ours with
10 ``[capacity] shape`` values, beside os-capacity's method against the
upstream release (a tool, not a test).

For each N in ``--n``, both servers start afresh (uwsgi, 2 processes x
10 threads, noauth2, MariaDB or PostgreSQL) on a database holding N
providers: N/2 flat hosts (benchlib's flat shape) and N/2 in nested
trees of 7 (host > 2 NUMA > FPGA, PGPU), with a consumer of 4 VCPU and
8 GiB on every other flat host. Then:

- ours: ``--repeat`` GETs of /metrics (``capacity_cache_seconds = 0``:
  every scrape computes): median and p95 milliseconds, server CPU per
  scrape (uwsgi master and workers), the workers' peak RSS after;
- os-capacity's method, against upstream: per shape one GET
  /allocation_candidates with ``limit`` = N (every host), then GET
  /resource_providers and, per provider, its inventories, usages and
  aggregates (``--per-host-sample K``: those of K providers, evenly
  spread, the figures scaled to N): requests, wall milliseconds,
  server CPU, the workers' peak RSS.

    .venv/bin/python tools/bench_capacity.py --kind mysql --n 1000,10000

Upstream's virtualenv: UPSTREAM_VENV, else
``$TMPDIR/placement-upstream/venv`` (/work/shared/tools/upstream-server
makes it).
"""
import argparse
import concurrent.futures
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from tools.benchlib import data  # noqa: E402
from tools.benchlib import http  # noqa: E402
from tools.benchlib import procstat  # noqa: E402
from tools.benchlib import servers  # noqa: E402
from tools.benchlib import stats  # noqa: E402

SHAPES = (
    ('m1.tiny', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:1'),
    ('m1.small', 'resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20'),
    ('m1.medium', 'resources=VCPU:2,MEMORY_MB:4096,DISK_GB:40'),
    ('m1.large', 'resources=VCPU:4,MEMORY_MB:8192,DISK_GB:80'),
    ('m1.xlarge', 'resources=VCPU:8,MEMORY_MB:16384,DISK_GB:160'),
    ('avx.large', 'resources=VCPU:4,MEMORY_MB:8192'
                  '&required=HW_CPU_X86_AVX2'),
    ('agg.medium', 'resources=VCPU:2,MEMORY_MB:4096&member_of=%s'
                   % data.AGG),
    ('fpga.numa', 'resources=DISK_GB:20&resources_N=VCPU:4,MEMORY_MB:8192'
                  '&resources_F=FPGA:1&required_F=CUSTOM_FPGA_A'
                  '&same_subtree=_N,_F&group_policy=none'),
    ('gpu.half', 'resources_N=VCPU:8,MEMORY_MB:32768&resources_G=PGPU:1'
                 '&same_subtree=_N,_G&group_policy=isolate'),
    ('fpga.any', 'resources=VCPU:2,MEMORY_MB:2048&resources1=FPGA:1'),
)
PORTS = (18937, 18938)  # ours, upstream
PREFIX = 'capbench'


def fleet(n):
    """The rows of N providers (module docstring)."""
    nested = [('x' + name, parent and 'x' + parent, *rest)
              for name, parent, *rest in data.nested_nodes(n - n // 2)]
    return data.flat_nodes(n // 2) + nested


def allocate(db_url):
    """One consumer of 4 VCPU and 8 GiB on every other flat host."""
    data.allocate_every_other(db_url, name_like='cn%')


def _conf_text():
    lines = ['[metrics]', 'enabled = true', 'allow_anonymous = true',
             'capacity_cache_seconds = 0', '[capacity]']
    lines += ['shape = %s = %s' % shape for shape in SHAPES]
    return '\n'.join(lines) + '\n'


def serve(who, venv, port, db_url, conf_text=''):
    """Start one server under uwsgi with ``conf_text`` as its
    placement.conf; its master's pid."""
    run = servers.run_dir(PREFIX)
    env = dict(os.environ, PROMETHEUS_MULTIPROC_DIR=os.path.join(
        run, who, 'prom'))
    return servers.serve(run, who, venv, port, db_url, env, conf_text)


def _peak_mib(pid):
    return max(procstat.worker_memory(pid, 'VmHWM').values() or [0])


def scrape_ours(url, pid, repeat):
    """([ms], server CPU ms per scrape, bytes)."""
    times, size = [], 0
    cpu = procstat.cpu_seconds([pid])
    for _ in range(repeat):
        start = time.perf_counter()
        status, body = http.exchange(url, 'GET', '/metrics')
        times.append((time.perf_counter() - start) * 1000)
        if status != 200:
            raise RuntimeError('/metrics answered %d' % status)
        size = len(body)
    return times, (procstat.cpu_seconds([pid]) - cpu) * 1000 / repeat, size


def os_capacity(url, pid, n, sample, concurrency):
    """(requests, wall ms, server CPU ms, the candidates requests' wall
    ms and CPU ms), scaled to every provider when ``sample`` is smaller
    than N."""
    cpu = procstat.cpu_seconds([pid])
    start = time.perf_counter()
    sent = 0
    for _, query in SHAPES:
        http.request(url, 'GET', '/allocation_candidates?%s&limit=%d' % (
            urllib.parse.quote(query, safe='=&:,_'), n), version='1.39',
            parse=False)
        sent += 1
    _, listing = http.request(url, 'GET', '/resource_providers')
    sent += 1
    providers = listing['resource_providers']
    picked = providers
    if sample and sample < len(providers):
        step = len(providers) / sample
        picked = [providers[int(i * step)] for i in range(sample)]
    paths = ['/resource_providers/%s/%s' % (rp['uuid'], what)
             for rp in picked for what in ('inventories', 'usages',
                                           'aggregates')]

    def get(path):
        status, _ = http.exchange(url, 'GET', path, version='1.39')
        if status != 200:
            raise RuntimeError('%s answered %d' % (path, status))
    per_host_start = time.perf_counter()
    per_host_cpu = procstat.cpu_seconds([pid])
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(get, paths))
    scale = len(providers) / max(1, len(picked))
    per_host_wall = (time.perf_counter() - per_host_start) * 1000
    per_host = (procstat.cpu_seconds([pid]) - per_host_cpu) * 1000
    wall = (per_host_start - start) * 1000 + per_host_wall * scale
    total_cpu = (per_host_cpu - cpu) * 1000 + per_host * scale
    return (sent + 3 * len(providers), wall, total_cpu,
            (per_host_start - start) * 1000, (per_host_cpu - cpu) * 1000)


def run_one(args, n):
    kind = args.kind
    servers.stop(PREFIX)
    ours_db = servers.database(kind, '%s_ours' % PREFIX, 'psycopg')
    up_db = servers.database(kind, '%s_up' % PREFIX)
    pids = [serve('ours', servers.ours_venv(), PORTS[0], ours_db,
                  _conf_text()),
            serve('upstream', servers.upstream_venv(), PORTS[1], up_db)]
    try:
        for db_url in (ours_db, up_db):
            data.load_sql(db_url, fleet(n))
            allocate(db_url)
        ours_url = 'http://127.0.0.1:%d' % PORTS[0]
        up_url = 'http://127.0.0.1:%d' % PORTS[1]
        times, cpu, size = scrape_ours(ours_url, pids[0], args.repeat)
        print('N=%d ours: 1 scrape, %d bytes, median %.0f ms, p95 %.0f ms, '
              'server CPU %.0f ms per scrape, worker peak RSS %.0f MiB'
              % (n, size, statistics.median(times), stats.p95(times), cpu,
                 _peak_mib(pids[0])))
        sys.stdout.flush()
        sent, wall, up_cpu, ac_wall, ac_cpu = os_capacity(
            up_url, pids[1], n, args.sample, args.concurrency)
        print('N=%d os-capacity on upstream 16.0.0: %d requests, %.0f ms, '
              'server CPU %.0f ms (the %d candidates requests: %.0f ms, '
              'CPU %.0f ms), worker peak RSS %.0f MiB%s'
              % (n, sent, wall, up_cpu, len(SHAPES), ac_wall, ac_cpu,
                 _peak_mib(pids[1]),
                 ' (per-host GETs of %d providers, scaled)' % args.sample
                 if args.sample and args.sample < n else ''))
        sys.stdout.flush()
    finally:
        servers.stop(PREFIX)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kind', choices=('mysql', 'postgresql'),
                        default='mysql')
    parser.add_argument('--n', default='1000,10000,50000')
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--sample', type=int, default=500,
                        help='per-host GETs of this many providers, '
                             'scaled to N')
    parser.add_argument('--concurrency', type=int, default=10)
    args = parser.parse_args()
    for n in [int(x) for x in args.n.split(',')]:
        run_one(args, n)


if __name__ == '__main__':
    main()
