"""The write routes in process (``profile writes``).

Builds the application on ``--db`` (N flat providers loaded with SQL),
then drives each write step of ``bench routes`` (benchlib.steps) and a
DELETE /allocations straight through the WSGI callable, no HTTP: per
request, the median CPU time of this process (Python work plus the
driver's, not the database's), the SQL statements sent and the round
trips (benchlib.inprocess.Statements). ``--sql`` prints the statements
of one request of each step; ``--profile NAME`` a cProfile (CPU time) of
that step. Last, 10 threads claim 1 VCPU each on ``--claims`` providers
of 16 VCPU until all are full (``bench claims``' load, in process): CPU,
statements and round trips per request (a claim retried after a lost
generation race counts its statements again).
"""
import collections
import cProfile
import pstats
import random
import statistics
import threading
import time
import uuid

import sqlalchemy as sa

from tools.benchlib import data
from tools.benchlib import inprocess
from tools.benchlib import routes
from tools.benchlib import steps as route_steps

WRITES = ('POST /resource_providers', 'nested tree (3 POSTs)',
          'PUT {rp}/inventories', 'PUT {rp}/traits', 'PUT {rp}/aggregates',
          'POST /allocations (2 consumers)', 'PUT /allocations/{c}',
          'DELETE /allocations/{c}')


def add_arguments(parser):
    parser.add_argument('--db', required=True)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=200)
    parser.add_argument('--sql', action='store_true')
    parser.add_argument('--profile')
    parser.add_argument('--only')
    parser.add_argument('--claims', type=int, default=40, metavar='P',
                        help='providers for the contended claims (0: none)')
    parser.add_argument('--lines', type=int, default=45)


class InProcess(routes.Server):
    """A routes.Server whose requests go to the WSGI callable."""

    def __init__(self, app, db_url):
        super().__init__('in-process', None, db_url)
        self.app = app
        self.consumers = []

    def call(self, method, path, body=None, version=None, parse=True):
        return 200, inprocess.checked(self.app, path, method, body,
                                      version or '1.39')


def _delete_allocations(server, i):
    server.call('DELETE', '/allocations/%s' % server.consumers.pop())


def _steps():
    found = dict(route_steps.steps())
    found['DELETE /allocations/{c}'] = _delete_allocations
    return [(name, found[name]) for name in WRITES]


def measure(server, counter, step, repeat, start):
    """(median CPU ms, statements, round trips) per request: the
    statements counted over ``repeat`` requests, the CPU timed over
    ``repeat`` more with the counter detached (Statements.detached);
    request indices from ``start`` (2 * ``repeat`` of them)."""
    before = counter.snapshot()
    for i in range(start, start + repeat):
        step(server, i)
    after = counter.snapshot()
    cpu = []
    with counter.detached():
        for i in range(start + repeat, start + 2 * repeat):
            t0 = time.process_time()
            step(server, i)
            cpu.append((time.process_time() - t0) * 1000)
    return (statistics.median(cpu), (after[0] - before[0]) / repeat,
            (after[1] - before[1]) / repeat)


def claims(server, counter, providers, claimers):
    """``claimers`` threads claim 1 VCPU each on random providers (16 VCPU
    each) until all are full, through the WSGI callable (one process: the
    GIL serializes the Python work, so the figures are per request, not a
    rate). A line."""
    rps = [str(uuid.uuid4()) for _ in range(providers)]
    for rp in rps:
        server.call('POST', '/resource_providers', {'name': 'c-' + rp,
                                                    'uuid': rp})
        server.call('PUT', '/resource_providers/%s/inventories' % rp, {
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 16}}})
    full, counts, lock = set(), collections.Counter(), threading.Lock()

    def claimer(seed):
        rng = random.Random(seed)
        while True:
            with lock:
                left = [rp for rp in rps if rp not in full]
            if not left:
                return
            rp = rng.choice(left)
            status = _claim(server, rp)
            with lock:
                counts[status] += 1
                if status != 204:  # full (409), or failing
                    full.add(rp)
    before, cpu = counter.snapshot(), time.process_time()
    threads = [threading.Thread(target=claimer, args=(i,))
               for i in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    requests = sum(counts.values())
    others = ''.join(', %d answered %d' % (n, status)
                     for status, n in sorted(counts.items())
                     if status not in (204, 409))
    return ('claims: %d granted, %d refused%s; per request %.2f cpu ms, '
            '%.1f statements, %.1f round trips' % (
                counts[204], counts[409], others,
                (time.process_time() - cpu) * 1000 / requests,
                (counter.statements - before[0]) / requests,
                (counter.trips - before[1]) / requests))


def _claim(server, rp):
    status, _body = inprocess.call(
        server.app, '/allocations/%s' % uuid.uuid4(), 'PUT', {
            'allocations': {rp: {'resources': {'VCPU': 1}}},
            'project_id': data.PROJECT, 'user_id': data.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    return status


def _profile(server, step, args):
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    for i in range(args.repeat):
        step(server, 500_000 + i)
    prof.disable()
    pstats.Stats(prof).sort_stats('cumulative').print_stats(args.lines)


def _consumers(server, needed):
    """The consumers in the database, for the deletes: at least
    ``needed``, made by the PUT /allocations step when the steps before
    (not run under ``--only DELETE``) made too few."""
    server.consumers = _stored_consumers(server.db)
    missing = needed - len(server.consumers)
    if missing > 0:
        make = dict(route_steps.steps())['PUT /allocations/{c}']
        for i in range(missing):
            make(server, 900_000 + i)
        server.consumers = _stored_consumers(server.db)


def _stored_consumers(db_url):
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        found = list(conn.execute(sa.text(
            'SELECT uuid FROM consumers')).scalars())
    engine.dispose()
    return found


def run(args):
    app, db = inprocess.build(args.db)
    server = InProcess(app, args.db)
    server.load(args.n)
    counter = inprocess.Statements(*db.engines())
    chosen = [(name, step) for name, step in _steps()
              if not args.only or args.only in name]
    print('%-34s %8s %6s %6s' % ('route', 'cpu ms', 'stmts', 'trips'))
    for k, (name, step) in enumerate(chosen):
        if name.startswith('DELETE'):
            # warm-up, the counted and the timed requests, --sql's one
            # and --profile's
            _consumers(server, 10 + 3 * args.repeat + 1)
        for i in range(10):  # warm up
            step(server, 10_000 + 100 * k + i)
        cpu, stmts, trips = measure(server, counter, step, args.repeat,
                                    max(1000, 2 * args.repeat) * k)
        print('%-34s %8.2f %6.1f %6.1f' % (name, cpu, stmts, trips))
        if args.sql:
            before = counter.statements
            step(server, 999_000 + k)
            for statement in counter.texts[before:]:
                print('    ' + ' '.join(statement.split())[:300])
        if args.profile and args.profile in name:
            _profile(server, step, args)
    if args.claims:
        print(claims(server, counter, args.claims, 10))
    db.dispose()
