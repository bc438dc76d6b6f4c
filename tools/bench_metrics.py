"""The cost of the capacity metrics: one /metrics scrape against the
1 + 3N API requests openstack-exporter sends for the same data (a tool,
not a test).

For each N in ``--n``, both databases are loaded with exactly N flat
providers (benchlib's flat shape: VCPU, MEMORY_MB and DISK_GB each)
and one consumer on every other provider (4 VCPU, 8 GiB). Then:

- ours: ``--repeat`` GETs of /metrics (start ours with ``[metrics]
  enabled``, ``allow_anonymous`` and ``capacity_cache_seconds = 0``, so
  that every scrape computes): the median and p95 milliseconds, and the
  server's CPU per scrape (uwsgi master and workers, every thread);
- the exporter's way, against upstream (``--compare-url``): GET
  /resource_providers, then GET inventories, usages and allocations of
  every provider from ``--concurrency`` threads (a new connection per
  request, as uwsgi's --http-socket closes each): the requests sent,
  wall-clock milliseconds and upstream's CPU; with ``--exporter-on-ours``
  the same against ours too. ``--exporter-sample K`` sends the three
  GETs of K providers only (evenly spread) and scales the figures to N.

Example (servers from tools/bench servers, with the environment
OS_METRICS__ENABLED=true OS_METRICS__ALLOW_ANONYMOUS=true
OS_METRICS__CAPACITY_CACHE_SECONDS=0):

    .venv/bin/python tools/bench_metrics.py --n 1000,10000 \\
        --url http://127.0.0.1:19702 --db mysql+pymysql://root@127.0.0.1/a \\
        --pid 123 --compare-url http://127.0.0.1:19701 \\
        --compare-db mysql+pymysql://root@127.0.0.1/b --compare-pid 456
"""
import argparse
import concurrent.futures
import os
import statistics
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from tools.benchlib import candidates  # noqa: E402
from tools.benchlib import data  # noqa: E402
from tools.benchlib import http  # noqa: E402
from tools.benchlib import procstat  # noqa: E402
from tools.benchlib import stats  # noqa: E402


def allocate(db_url):
    """One consumer of 4 VCPU and 8 GiB on every other provider (SQL)."""
    data.allocate_every_other(db_url)


def load(db_url, n):
    data.load_sql(db_url, data.flat_nodes(n))
    allocate(db_url)


def _cpu(pid):
    return procstat.cpu_seconds([pid]) if pid else 0.0


def scrapes(url, pid, repeat):
    """([ms of each scrape], server CPU ms per scrape, bytes)."""
    times = []
    size = 0
    cpu = _cpu(pid)
    for _ in range(repeat):
        start = time.perf_counter()
        status, body = http.exchange(url, 'GET', '/metrics')
        times.append((time.perf_counter() - start) * 1000)
        if status != 200:
            raise RuntimeError('/metrics answered %d' % status)
        size = len(body)
    return times, (_cpu(pid) - cpu) * 1000 / repeat, size


def exporter(url, pid, concurrency, sample=None):
    """(requests, wall ms, server CPU ms) of the exporter's requests;
    with ``sample``, the three GETs of only that many providers (evenly
    spread), the listing always whole."""
    cpu = _cpu(pid)
    start = time.perf_counter()
    _, listing = http.request(url, 'GET', '/resource_providers')
    providers = listing['resource_providers']
    if sample and sample < len(providers):
        step = len(providers) / sample
        providers = [providers[int(i * step)] for i in range(sample)]
    paths = ['/resource_providers/%s/%s' % (rp['uuid'], what)
             for rp in providers
             for what in ('inventories', 'usages', 'allocations')]

    def get(path):
        status, _ = http.exchange(url, 'GET', path)
        if status != 200:
            raise RuntimeError('%s answered %d' % (path, status))
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(get, paths))
    wall = (time.perf_counter() - start) * 1000
    return 1 + len(paths), wall, (_cpu(pid) - cpu) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--n', default='1000,10000')
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--exporter-on-ours', action='store_true')
    parser.add_argument('--exporter-sample', type=int,
                        help='send the per-provider GETs of only this many '
                             'providers and scale the figures to N')
    candidates.add_pair_arguments(parser)
    args = parser.parse_args()
    for n in [int(x) for x in args.n.split(',')]:
        load(args.db, n)
        load(args.compare_db, n)
        times, cpu, size = scrapes(args.url, args.pid, args.repeat)
        print('N=%d ours /metrics: 1 request, %d bytes, median %.1f ms, '
              'p95 %.1f ms, server CPU %.1f ms per scrape'
              % (n, size, statistics.median(times), stats.p95(times), cpu))
        targets = [('upstream', args.compare_url, args.compare_pid)]
        if args.exporter_on_ours:
            targets.append(('ours', args.url, args.pid))
        for label, url, pid in targets:
            count, wall, cpu = exporter(url, pid, args.concurrency,
                                        args.exporter_sample)
            print('N=%d exporter on %s: %d requests sent, %.0f ms, server '
                  'CPU %.0f ms' % (n, label, count, wall, cpu))
            if count < 1 + 3 * n:
                scale = 3 * n / (count - 1)
                print('    all 1 + 3N = %d requests (scaled): ~%.0f ms, '
                      'server CPU ~%.0f ms' % (1 + 3 * n, wall * scale,
                                               cpu * scale))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
