"""Server CPU per request over HTTP, ours against another
(``bench cpu candidates``, ``bench cpu routes``).

Wall-clock latency on a shared host measures the neighbours as much as
the servers; CPU time per request is the robust figure.

candidates: over ``--repeat`` requests of each query of the shape, sent
one at a time (after five to warm), the CPU the uwsgi workers of each
server used (all their threads) and, on PostgreSQL, the CPU of the
database backends connected to each one's database; then the ratios
(other / ours). On MariaDB the server's threads are not told apart by
database: that column stays at zero. The data must be loaded already
(``bench candidates --load sql``).

routes: for each route step named with ``--only`` (a substring), loads N
flat providers, sends ``--repeat`` requests to each server interleaved
request by request, and reports per request the CPU of the server's
uwsgi processes (master and workers) and the median latency.
"""
import statistics
import time

from tools.benchlib import candidates
from tools.benchlib import http
from tools.benchlib import procstat
from tools.benchlib import queries
from tools.benchlib import routes
from tools.benchlib import steps as route_steps

WARM = 5


def add_candidates_arguments(parser):
    for name in ('--url', '--db', '--compare-url', '--compare-db'):
        parser.add_argument(name, required=True)
    parser.add_argument('--pid', type=int, required=True)
    parser.add_argument('--compare-pid', type=int, required=True)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--repeat', type=int, default=100)
    parser.add_argument('--only', help='queries whose name starts so')


def add_routes_arguments(parser):
    candidates.add_pair_arguments(parser)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=300)
    parser.add_argument('--only', action='append', required=True)


def measure(url, master_pid, db_url, path, repeat):
    """(worker CPU ms, database CPU ms) per request of ``path``."""
    for _ in range(WARM):
        http.fetch(url, path)
    workers = procstat.children(master_pid)
    backends = procstat.postgresql_backends(db_url)

    def cpu_ms():
        return (procstat.cpu_seconds(workers, family=False) * 1000,
                procstat.cpu_seconds(backends, family=False) * 1000)
    app, db = cpu_ms()
    for _ in range(repeat):
        http.fetch(url, path)
    app_after, db_after = cpu_ms()
    return (app_after - app) / repeat, (db_after - db) / repeat


def _ratio(other, ours):
    return '%.1fx' % (other / ours) if ours else '-'


def run_candidates(args):
    print('%-32s %15s %15s %15s' % (
        args.shape, 'app ms o/other', 'db ms o/other', 'ratio app/db/all'))
    for name, query in queries.QUERIES[args.shape]:
        if args.only and not name.startswith(args.only):
            continue
        path = '/allocation_candidates?' + query
        ours = measure(args.url, args.pid, args.db, path, args.repeat)
        other = measure(args.compare_url, args.compare_pid,
                        args.compare_db, path, args.repeat)
        print('%-32s %7.2f/%-7.2f %7.2f/%-7.2f %5s %5s %5s' % (
            name, ours[0], other[0], ours[1], other[1],
            _ratio(other[0], ours[0]), _ratio(other[1], ours[1]),
            _ratio(sum(other), sum(ours))), flush=True)


def run_routes(args):
    if args.pid is None:
        raise SystemExit('--pid is required')
    servers = routes.servers_of(args)
    for server in servers:
        server.load(args.n)
    chosen = [(name, step) for name, step in route_steps.steps()
              if any(only in name for only in args.only)]
    counter = 10_000
    for name, step in chosen:
        for server in servers:
            for _ in range(WARM):
                counter += 1
                step(server, counter)
        cpu = {server.label: 0.0 for server in servers}
        latency = {server.label: [] for server in servers}
        for _ in range(args.repeat):
            counter += 1
            for server in servers:
                before = procstat.cpu_seconds([server.pid])
                start = time.perf_counter()
                step(server, counter)
                latency[server.label].append(
                    (time.perf_counter() - start) * 1000)
                cpu[server.label] += (procstat.cpu_seconds([server.pid])
                                      - before)
        print('%-30s %s' % (name, _cells(cpu, latency, args.repeat)),
              flush=True)


def _cells(cpu, latency, repeat):
    cells = ['%s cpu %.2f ms, latency %.2f ms' % (
        label, cpu[label] * 1000 / repeat,
        statistics.median(latency[label])) for label in cpu]
    if len(cpu) > 1:
        cells.append('cpu ratio %.2fx, latency ratio %.2fx' % (
            cpu['other'] / cpu['ours'],
            statistics.median(latency['other'])
            / statistics.median(latency['ours'])))
    return ' | '.join(cells)
