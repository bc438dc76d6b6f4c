"""The read routes in process: per-request cost (``profile routes``).

Builds the whole application (noauth2) on ``--db``, loads N flat
providers (SQL) with a creation time (an update time on half) and ten
allocations, then calls the WSGI application directly, one request after
another, and reports per route:

- ``cpu ms``, ``min ms``: this process's CPU time per request, median
  and least of ``--repeat`` (the database server's own time is not in
  it);
- ``wall ms``: elapsed time per request, median: the CPU above plus the
  waits for the database, the most distorted by a loaded machine;
- ``stmts``, ``trips``, ``rows``: statements, round trips
  (benchlib.inprocess.Statements) and rows per request; ``bytes``: the
  body.

``--profile ROUTE`` (a substring of a route name) prints a cProfile of
that route's requests, sorted by ``--sort``.
"""
import cProfile
import datetime
import io
import os
import pstats
import statistics
import time
import uuid

import sqlalchemy as sa

from tools.benchlib import data
from tools.benchlib import inprocess


def add_arguments(parser):
    parser.add_argument('--db', required=True)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=50)
    parser.add_argument('--only', help='substring of the routes to run')
    parser.add_argument('--profile', help='substring of a route: profile')
    parser.add_argument('--sort', default='tottime')
    parser.add_argument('--limit', type=int, default=40)


def routes(uuids):
    rp = '/resource_providers'

    def one(i):
        return uuids[i % len(uuids)]
    return [
        ('GET /resource_providers (all)', lambda i: rp, '1.39'),
        ('GET ?resources=VCPU:1,DISK_GB:10',
         lambda i: rp + '?resources=VCPU:1,DISK_GB:10', '1.39'),
        ('GET ?in_tree=', lambda i: rp + '?in_tree=' + one(i), '1.39'),
        ('GET ?member_of=', lambda i: rp + '?member_of=' + data.AGG, '1.39'),
        ('GET ?required=HW_CPU_X86_AVX2',
         lambda i: rp + '?required=HW_CPU_X86_AVX2', '1.39'),
        ('GET {rp}', lambda i: '%s/%s' % (rp, one(i)), '1.39'),
        ('GET {rp}/inventories',
         lambda i: '%s/%s/inventories' % (rp, one(i)), '1.39'),
        ('GET {rp}/traits', lambda i: '%s/%s/traits' % (rp, one(i)),
         '1.39'),
        ('GET {rp}/aggregates',
         lambda i: '%s/%s/aggregates' % (rp, one(i)), '1.39'),
        ('GET {rp}/usages', lambda i: '%s/%s/usages' % (rp, one(i)),
         '1.39'),
        ('GET /usages?project_id= (1.37)',
         lambda i: '/usages?project_id=' + data.PROJECT, '1.37'),
        ('GET /', lambda i: '/', '1.39'),
    ]


def measure(app, counter, path_of, version, repeat):
    """{'cpu': median ms, 'min', 'wall', 'stmts', 'trips', 'rows',
    'bytes'} per request."""
    cpu, wall = [], []
    before = counter.snapshot()
    inprocess.call(app, path_of(0), version=version)
    per = [b - a for a, b in zip(before, counter.snapshot())]
    size = 0
    with counter.detached():  # counted above, on one request
        for i in range(repeat):
            start, clock = time.process_time(), time.perf_counter()
            status, body = inprocess.call(app, path_of(i), version=version)
            cpu.append((time.process_time() - start) * 1000)
            wall.append((time.perf_counter() - clock) * 1000)
            if status != 200:
                raise RuntimeError('%s: %s %s' % (path_of(i), status,
                                                  body[:200]))
            size = len(body)
    return {'cpu': statistics.median(cpu), 'min': min(cpu),
            'wall': statistics.median(wall), 'stmts': per[0],
            'trips': per[1], 'rows': per[2], 'bytes': size}


def _profile(app, path_of, version, args):
    profiler = cProfile.Profile(time.process_time)  # CPU, not waits
    profiler.enable()
    for i in range(args.repeat):
        inprocess.call(app, path_of(i), version=version)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(
        args.limit)
    print(out.getvalue())


def _setup(url, n):
    app, db = inprocess.build(url)
    data.load_sql(url, data.flat_nodes(n))
    with db.writer.begin() as conn:
        # As providers made through the API have them (the loaded rows
        # have none): a creation time, and an update time on half.
        made = datetime.datetime(2026, 11, 24, 10)
        conn.execute(sa.text('UPDATE resource_providers SET created_at '
                             '= :t'), {'t': made})
        conn.execute(sa.text('UPDATE resource_providers SET updated_at '
                             '= :t WHERE MOD(id, 2) = 0'),
                     {'t': made + datetime.timedelta(hours=1)})
    uuids = [rp for rp, _ in data.provider_generations(url)]
    for rp in uuids[:10]:
        inprocess.checked(app, '/allocations/%s' % uuid.uuid4(), 'PUT', {
            'allocations': {rp: {'resources': {'VCPU': 1, 'MEMORY_MB': 64}}},
            'project_id': data.PROJECT, 'user_id': data.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    return app, db, uuids


def run(args):
    app, db, uuids = _setup(args.db, args.n)
    counter = inprocess.Statements(*db.engines())
    print('# %s N=%d, %d requests per route, load %s' % (
        db.dialect, args.n, args.repeat, os.getloadavg()))
    print('%-34s %8s %8s %8s %6s %6s %7s %8s' % (
        'route', 'cpu ms', 'min ms', 'wall ms', 'stmts', 'trips', 'rows',
        'bytes'))
    for name, path_of, version in routes(uuids):
        if args.only and args.only not in name:
            continue
        for i in range(3):  # warm: caches, statements, pool
            inprocess.call(app, path_of(i), version=version)
        if args.profile:
            if args.profile in name:
                _profile(app, path_of, version, args)
            continue
        fig = measure(app, counter, path_of, version, args.repeat)
        print('%-34s %8.2f %8.2f %8.2f %6.1f %6.1f %7.0f %8d' % (
            name, fig['cpu'], fig['min'], fig['wall'], fig['stmts'],
            fig['trips'], fig['rows'], fig['bytes']), flush=True)
    db.dispose()
