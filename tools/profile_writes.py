"""Profile the write routes in process (a tool, not a test).

Builds the application on the database given with ``--db`` (the schema is
created when missing, N flat providers loaded as bench_routes does), then
drives each write step of tools/bench_routes.py straight through the WSGI
callable, no HTTP: per request, the median CPU time of this process
(``time.process_time``: Python work plus the driver's, not the
database's), the SQL statements sent and the rows they returned. With
``--sql`` it prints the statements of one request of each step; with
``--profile NAME`` a cProfile (CPU time) of that step. Last, 10 threads
claim 1 VCPU each on ``--claims`` providers of 16 VCPU until all are full
(tools/bench_claims.py's load, in process): CPU, statements, round trips
and attempts (retries after a lost generation race) per request.

    .venv/bin/python tools/profile_writes.py --n 1000 \\
        --db mysql+pymysql://root@127.0.0.1/perf_writes_prof
"""
import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
import uuid

import sqlalchemy as sa
import webob

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_routes as br  # noqa: E402
import profile_routes  # noqa: E402

from placement import deploy  # noqa: E402
from placement.tests.functional.fixtures import app as app_fixture  # noqa


class InProcess(br.Server):
    """A bench_routes Server whose requests go to the WSGI callable."""

    def __init__(self, app, db_url):
        super().__init__('in-process', None, db_url)
        self.app = app

    def call(self, method, path, body=None, version=None):
        headers = dict(br.HEADERS)
        if version:
            headers['openstack-api-version'] = 'placement ' + version
        req = webob.Request.blank(
            path, method=method, headers=headers,
            body=b'' if body is None else json.dumps(body).encode())
        resp = req.get_response(self.app)
        if resp.status_int >= 400:
            raise RuntimeError('%s %s: %s %s' % (method, path, resp.status,
                                                 resp.body[:300]))
        return resp.status_int, json.loads(resp.body) if resp.body else None


class Counter:
    """Statements (and their text) sent on the engine, and the round
    trips (profile_routes.Counter)."""

    def __init__(self, engine):
        self.statements = []
        self.trips = profile_routes.Counter(engine)
        sa.event.listen(engine, 'before_cursor_execute', self._before)

    def _before(self, conn, cursor, statement, parameters, context,
                executemany):
        self.statements.append(statement)


def _app(url):
    conf = app_fixture.make_conf(url)
    db = app_fixture.open_database(conf)
    return deploy.loadapp(conf, db=db), db


WRITES = ('POST /resource_providers', 'nested tree (3 POSTs)',
          'PUT {rp}/inventories', 'PUT {rp}/traits', 'PUT {rp}/aggregates',
          'POST /allocations (2 consumers)', 'PUT /allocations/{c}',
          'DELETE /allocations/{c}')


def _delete_allocations(server, i):
    consumer = server.consumers.pop()
    server.call('DELETE', '/allocations/%s' % consumer)


def _steps():
    steps = dict(br.steps())
    steps['DELETE /allocations/{c}'] = _delete_allocations
    return [(name, steps[name]) for name in WRITES]


def _consumers(server):
    """Remember the consumers bench steps created (for the deletes)."""
    engine = sa.create_engine(server.db)
    with engine.connect() as conn:
        server.consumers = [row[0] for row in conn.execute(sa.text(
            'SELECT uuid FROM consumers'))]
    engine.dispose()


def measure(server, counter, step, repeat, start):
    """(median CPU ms, statements, round trips per request) over
    ``repeat`` requests."""
    cpu = []
    before, commands = len(counter.statements), counter.trips.trips
    for i in range(start, start + repeat):
        t0 = time.process_time()
        step(server, i)
        cpu.append((time.process_time() - t0) * 1000)
    return (statistics.median(cpu),
            (len(counter.statements) - before) / repeat,
            (counter.trips.trips - commands) / repeat)


# --- claims under contention, in process -----------------------------------

def claims(server, counter, providers, claimers):
    """``claimers`` threads claim 1 VCPU each on random providers (16 VCPU
    each) until all are full, through the WSGI callable (one process, so
    the GIL serializes the Python work: the figures are CPU and statements
    per request, and attempts per request, not a rate). Return a line."""
    import random
    import threading
    from placement.objects import allocation as alloc_obj
    rps = []
    for i in range(providers):
        rp = str(uuid.uuid4())
        rps.append(rp)
        server.call('POST', '/resource_providers', {'name': 'c-' + rp,
                                                    'uuid': rp})
        server.call('PUT', '/resource_providers/%s/inventories' % rp, {
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 16}}})
    attempts = [0]
    write = alloc_obj.write_allocations

    def counted(conn, requests):
        attempts[0] += 1
        return write(conn, requests)
    alloc_obj.write_allocations = counted
    full, counts, lock = set(), {'204': 0, '409': 0}, threading.Lock()

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
                counts[str(status)] += 1
                if status == 409:
                    full.add(rp)
    before, cpu = len(counter.statements), time.process_time()
    trips = counter.trips.trips
    threads = [threading.Thread(target=claimer, args=(i,))
               for i in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alloc_obj.write_allocations = write
    requests = sum(counts.values())
    return ('claims: %d granted, %d refused; per request %.2f cpu ms, '
            '%.1f statements, %.1f round trips, %.2f attempts' % (
                counts['204'], counts['409'],
                (time.process_time() - cpu) * 1000 / requests,
                (len(counter.statements) - before) / requests,
                (counter.trips.trips - trips) / requests,
                attempts[0] / requests))


def _claim(server, rp):
    body = {'allocations': {rp: {'resources': {'VCPU': 1}}},
            'project_id': br.PROJECT, 'user_id': br.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    req = webob.Request.blank(
        '/allocations/%s' % uuid.uuid4(), method='PUT',
        headers=dict(br.HEADERS), body=json.dumps(body).encode())
    return req.get_response(server.app).status_int


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', required=True)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=200)
    parser.add_argument('--sql', action='store_true')
    parser.add_argument('--profile')
    parser.add_argument('--only')
    parser.add_argument('--claims', type=int, default=40, metavar='P',
                        help='providers for the contended claims (0: none)')
    args = parser.parse_args()
    app, db = _app(args.db)
    server = InProcess(app, args.db)
    server.load(args.n)
    counter = Counter(db.writer)
    steps = [(name, step) for name, step in _steps()
             if not args.only or args.only in name]
    print('%-34s %8s %6s %6s' % ('route', 'cpu ms', 'stmts', 'trips'))
    for k, (name, step) in enumerate(steps):
        if name.startswith('DELETE'):
            _consumers(server)
        for i in range(10):  # warm up
            step(server, 10_000 + 100 * k + i)
        cpu, stmts, trips = measure(server, counter, step, args.repeat,
                                    1000 * k)
        print('%-34s %8.2f %6.1f %6.1f' % (name, cpu, stmts, trips))
        if args.sql:
            before = len(counter.statements)
            step(server, 999_000 + k)
            for statement in counter.statements[before:]:
                print('    ' + ' '.join(statement.split())[:300])
        if args.profile and args.profile in name:
            prof = cProfile.Profile(time.process_time)
            prof.enable()
            for i in range(args.repeat):
                step(server, 500_000 + i)
            prof.disable()
            if os.environ.get('DUMP'):
                prof.dump_stats(os.environ['DUMP'])
            pstats.Stats(prof).sort_stats(
                os.environ.get('SORT', 'cumulative')).print_stats(
                int(os.environ.get('LINES', '45')))
    if args.claims:
        print(claims(server, counter, args.claims, 10))
    db.dispose()


if __name__ == '__main__':
    main()
