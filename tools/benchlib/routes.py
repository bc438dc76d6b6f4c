"""The read and write routes, side by side (``bench routes``).

Loads N flat providers into each server's database (SQL), then times
every route a cloud leans on, the servers taking turns (benchlib.pacing):

  reads   GET /resource_providers (all), ?resources=, ?in_tree=,
          ?member_of=, ?required=; a provider's inventories, traits and
          aggregates; GET /usages?project_id=; GET /allocation_candidates
          (plain and limit=10)
  writes  POST /resource_providers; a nested tree (a root and two
          children); PUT inventories, traits, aggregates of a provider;
          POST /allocations (two consumers); PUT /allocations/{consumer}
  rate    GET /resource_providers (all) at concurrency C, requests/s,
          alternating bursts between the servers; measured after the
          reads and before the writes, on the N loaded providers only
          (upstream 16.0.0 answers this listing with a 500 once
          providers created through its API sit beside the loaded
          ones, whose timestamps are NULL)

Each route is measured in ``--rounds`` rounds; a round's figure is the
median over ``--repeat`` requests. The table gives the median of the
rounds' medians (and of their p95s), the ratio other / ours (median and
range over the rounds); ``cpu ms``, the servers' CPU time per request
(uwsgi master and workers, every thread; ``--pid``, ``--compare-pid``)
and its ratio, robust on a busy machine; and ``client ms``, this
client's own CPU per request, to show it is small beside the servers'.
A request's latency runs from the connect to the last byte of the body.
"""
import concurrent.futures
import os
import statistics
import time

from tools.benchlib import candidates
from tools.benchlib import data
from tools.benchlib import http
from tools.benchlib import pacing
from tools.benchlib import stats
from tools.benchlib import steps as route_steps

# The first step that writes: the rate phase runs before it.
FIRST_WRITE = 'POST /resource_providers'
# The step that reads what the writes made: planner statistics are
# refreshed before it (on a PostgreSQL without autovacuum, the ones of
# load time, empty consumers and allocations, planned the usage report
# of both services as a nested loop over every pair: 90-200 ms).
AFTER_WRITES = 'GET /usages?project_id= (1.37)'


class Server:
    """One server under test and what the write steps remember."""

    def __init__(self, label, url, db, pid=None):
        self.label, self.url, self.db, self.pid = label, url, db, pid
        self.uuids = []
        self.generation = {}
        self.failures = []

    def call(self, method, path, body=None, version=None, parse=True):
        return http.request(self.url, method, path, body, version, parse)

    def load(self, n):
        data.load_sql(self.db, data.flat_nodes(n))
        rows = data.provider_generations(self.db)
        self.uuids = [row[0] for row in rows]
        self.generation = dict(rows)

    def analyze(self):
        """Fresh planner statistics, as the server's own would soon be."""
        data.analyze_url(self.db)


def servers_of(args):
    found = [Server('ours', args.url, args.db, args.pid)]
    if args.compare_url:
        found.append(Server('other', args.compare_url, args.compare_db,
                            args.compare_pid))
    return found


def add_arguments(parser):
    candidates.add_pair_arguments(parser)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--only', action='append',
                        help='substring of the routes to run (repeatable; '
                             '"rate" for the rate phase)')
    pacing.add_arguments(parser)


def interleaved(servers, step, repeat, counter, pace=pacing.Pace()):
    """({label: [ms]}, {label: server CPU ms per request or None},
    {label: client CPU ms per request}): ``repeat`` timed requests to
    each, the servers taking turns (pacing.take_turns)."""
    def call(server):
        counter[0] += 1
        step(server, counter[0])

    timings = pacing.take_turns(
        servers, [repeat] * len(servers), pace, call,
        lambda server: [server.pid] if server.pid else None)
    labels = [s.label for s in servers]
    return ({label: t.samples for label, t in zip(labels, timings)},
            {label: None if t.cpu is None else t.cpu * 1000 / repeat
             for label, t in zip(labels, timings)},
            {label: t.client * 1000 / repeat
             for label, t in zip(labels, timings)})


def rate(server, step, concurrency, total, counter):
    """Answers/s of ``total`` requests by ``concurrency`` clients; a
    failed one (upstream 16.0.0 sometimes answers 500 here) is counted in
    server.failures, not in the rate."""
    def one(i):
        try:
            step(server, i)
            return 1
        except RuntimeError as exc:
            server.failures.append(str(exc)[:160])
            return 0
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        done = sum(pool.map(one, range(counter[0], counter[0] + total)))
    counter[0] += total
    return done / (time.perf_counter() - start)


def _summary(rounds, labels):
    """'median [p95]' per label over rounds, the ratio and its range;
    then server CPU per request and its ratio, and the client's CPU."""
    cells = []
    for label in labels:
        cells.append('%8.1f [%6.1f]' % (
            statistics.median(r[label][0] for r in rounds),
            statistics.median(r[label][1] for r in rounds)))
    if len(labels) > 1:
        ratios = [r[labels[1]][0] / r[labels[0]][0] for r in rounds]
        cells.append('%5.2fx (%.2f-%.2f)' % (statistics.median(ratios),
                                             min(ratios), max(ratios)))
    cpus = [[r[label][2] for r in rounds] for label in labels]
    if all(None not in c for c in cpus):
        cell = '/'.join('%.2f' % statistics.median(c) for c in cpus)
        if len(labels) > 1:
            cell += ' %5.2fx' % statistics.median(
                [b / a for a, b in zip(*cpus) if a])
        cells.append('%-18s' % cell)
    client = [r[label][3] for r in rounds for label in labels]
    cells.append('%5.2f' % statistics.median(client))
    return ' | '.join(cells)


def run(args):
    servers = servers_of(args)
    for server in servers:
        server.load(args.n)
    print('# N=%d flat providers, %d rounds x %d requests (%s), load %s'
          % (args.n, args.rounds, args.repeat, pacing.of(args).describe(),
             os.getloadavg()))
    print('%-36s | %17s | %17s | ratio (range)      | %-18s | %s' % (
        'route', 'ours ms [p95]', 'other ms [p95]',
        'cpu ms ours/other', 'client ms'))
    counter = [0]
    rate_done = False
    for name, step in route_steps.steps():
        if not rate_done and name == FIRST_WRITE:
            rate_done = _maybe_rates(servers, args, counter)
        if args.only and not any(part in name for part in args.only):
            continue
        if name == AFTER_WRITES:
            for server in servers:
                server.analyze()
        print('%-36s | %s' % (name, _measure(servers, step, args, counter)),
              flush=True)
    if not rate_done:
        _maybe_rates(servers, args, counter)
    print('# load after: %s' % (os.getloadavg(),))


def _measure(servers, step, args, counter):
    for server in servers:  # warm both (caches, statements)
        step(server, counter[0])
        counter[0] += 1
    rounds = []
    for _ in range(args.rounds):
        samples, cpu, client = interleaved(servers, step, args.repeat,
                                           counter, pacing.of(args))
        rounds.append({k: (statistics.median(v), stats.p95(v), cpu[k],
                           client[k]) for k, v in samples.items()})
    return _summary(rounds, [s.label for s in servers])


def _maybe_rates(servers, args, counter):
    if args.concurrency and (not args.only or 'rate' in args.only):
        _print_rates(servers, args, counter)
    return True


def _listing_unparsed(server, i):
    server.call('GET', '/resource_providers', parse=False)


def _print_rates(servers, args, counter):
    rates = {s.label: [] for s in servers}
    for _ in range(args.rounds):
        for server in servers:
            rates[server.label].append(rate(
                server, _listing_unparsed, args.concurrency,
                args.concurrency * args.repeat // 2, counter))
    row = ' | '.join('%8.1f req/s' % statistics.median(rates[s.label])
                     for s in servers)
    if len(servers) > 1:
        # A round where the other server answered nothing (all failed)
        # has no finite ratio.
        ratios = [a / b if b else float('inf')
                  for a, b in zip(rates['ours'], rates['other'])]
        row += ' | %.2fx ours/other (%.2f-%.2f)' % (
            statistics.median(ratios), min(ratios), max(ratios))
    print('%-36s | %s' % ('GET /resource_providers c=%d'
                          % args.concurrency, row))
    for server in servers:
        if server.failures:
            print('# %s: %d failed, e.g. %s' % (
                server.label, len(server.failures), server.failures[0]))
