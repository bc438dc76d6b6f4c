"""GET /allocation_candidates against live servers (``bench candidates``).

Loads N providers of a shape (benchlib.data), then times the queries of
the shape (benchlib.queries) and prints the median and p95 latency,
optionally against a second server side by side (the two taking
turns, benchlib.pacing), with the ratio and a warning when the two
answer with different numbers of candidates; the requests per second at
``--concurrency``; and the memory of each server's workers (RSS, and the
proportional and private sizes that count pages shared after fork once).

Loading: ``--load sql`` writes the rows straight into the databases
(``--db``, ``--compare-db``), much faster for 50,000 providers;
``--load http`` goes through the API; either empties the data tables
first; ``--load none`` keeps what is there.
"""
import concurrent.futures
import json
import time

from tools.benchlib import data
from tools.benchlib import http
from tools.benchlib import pacing
from tools.benchlib import procstat
from tools.benchlib import queries
from tools.benchlib import stats


def add_arguments(parser):
    add_pair_arguments(parser, db_required=False)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--n', help='comma-separated provider counts '
                        '(default: 1000 flat, 1750 nested: 250 trees)')
    parser.add_argument('--load', choices=('http', 'sql', 'none'),
                        default='http')
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--compare-repeat', type=int,
                        help='repeats against the other server (default: '
                             '--repeat); fewer keeps slow runs short')
    parser.add_argument('--concurrency', type=int, default=0,
                        help='also measure requests/s with this many '
                             'parallel clients (the first query)')
    pacing.add_arguments(parser)


def add_pair_arguments(parser, db_required=True):
    """Our server (and database, uwsgi master pid) and the other one."""
    parser.add_argument('--url', required=True)
    parser.add_argument('--db', required=db_required)
    parser.add_argument('--compare-url')
    parser.add_argument('--compare-db')
    parser.add_argument('--pid', type=int,
                        help='our uwsgi master: server CPU and memory')
    parser.add_argument('--compare-pid', type=int)


def targets(args):
    """[(label, url, db, pid)]: ours, and the other server if given."""
    found = [('ours', args.url, args.db, args.pid)]
    if args.compare_url:
        found.append(('other', args.compare_url, args.compare_db,
                      args.compare_pid))
    return found


def run(args):
    sizes = args.n or str(data.DEFAULT_N[args.shape])
    for n in [int(x) for x in sizes.split(',')]:
        run_size(args, targets(args), n)


def time_interleaved(urls, query, repeats, pace=pacing.Pace()):
    """[(median ms, p95 ms, result count)] per url, the servers taking
    turns (pacing.take_turns); ``repeats`` per url."""
    path = '/allocation_candidates?' + query
    counts = [len(json.loads(http.fetch(url, path))['allocation_requests'])
              for url in urls]
    timings = pacing.take_turns(urls, repeats, pace,
                                lambda url: http.fetch(url, path))
    return [(stats.median(timing.samples), stats.p95(timing.samples), count)
            for timing, count in zip(timings, counts)]


def throughput(url, query, concurrency, total):
    """Requests per second with ``concurrency`` clients, ``total`` in all."""
    path = '/allocation_candidates?' + query
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda _: http.fetch(url, path), range(total)))
    return total / (time.perf_counter() - start)


def load(shape, n, how, servers):
    """Load ``n`` providers of ``shape`` into each (label, url, db, _);
    the number of providers."""
    rows = data.nodes(shape, n)
    for label, url, db, _ in servers:
        start = time.time()
        if how == 'sql':
            data.load_sql(db, rows)
        elif how == 'http':
            data.load_http(url, rows, db)
        print('# %s: loaded %d providers (%s) in %.1fs'
              % (label, len(rows), how, time.time() - start))
    return len(rows)


def run_size(args, servers, n):
    count = load(args.shape, n, args.load, servers)
    print('# pace: %s' % pacing.of(args).describe())
    print('%-32s %7s | %-28s | %-28s | ratio' % (
        '%s N=%d' % (args.shape, count), 'results',
        'ours median/p95 ms', 'other median/p95 ms'))
    repeats = [args.repeat, args.compare_repeat or args.repeat]
    for name, query in queries.QUERIES[args.shape]:
        figures = time_interleaved([url for _, url, _, _ in servers],
                                   query, repeats[:len(servers)],
                                   pacing.of(args))
        print(_row(name, figures), flush=True)
    if args.concurrency:
        name, query = queries.QUERIES[args.shape][0]
        rates = [throughput(url, query, args.concurrency,
                            args.concurrency * args.repeat)
                 for _, url, _, _ in servers]
        print('# %s at concurrency %d: %s req/s' % (
            name, args.concurrency,
            ' vs '.join('%.1f' % rate for rate in rates)))
    print_memory(servers)


def _row(name, figures):
    row = '%-32s %7d | %12.1f / %-12.1f' % (
        name, figures[0][2], figures[0][0], figures[0][1])
    if len(figures) > 1:
        row += ' | %12.1f / %-12.1f | %6.1fx' % (
            figures[1][0], figures[1][1], figures[1][0] / figures[0][0])
        if figures[1][2] != figures[0][2]:
            row += ' COUNTS DIFFER (other %d)' % figures[1][2]
    return row


def print_memory(servers):
    for label, _, _, pid in servers:
        if pid:
            for field, source, what in procstat.MEMORY_FIGURES:
                sizes = procstat.worker_memory(pid, field, source)
                print('# %s worker MiB (%s): %s' % (
                    label, what, ', '.join(
                        '%.0f' % v for v in sorted(sizes.values()))))
