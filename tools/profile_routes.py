"""Per-request cost of the read routes, in process (a tool, not a test).

Builds the whole application (deploy.loadapp, noauth2) on the database
given with ``--db``, loads N flat providers (bench_candidates' flat shape,
written with SQL) and a few allocations, then calls the WSGI application
directly, one request after another, and reports per route:

- ``cpu ms``, ``min ms``: this process's CPU time per request
  (time.process_time), median and least of ``--repeat``: what the load
  of a shared machine distorts least (the least most steady; the
  database server's own time is not in it);
- ``wall ms``: elapsed time per request, median: the CPU above plus the
  waits for the database (its work and the round trips), the most
  distorted by a loaded machine;
- ``stmts``: statements sent per request (before_cursor_execute);
- ``trips``: database round trips per request (``Counter``);
- ``rows``: rows the statements returned; ``bytes``: the body.

``--profile ROUTE`` (a substring of a route name) prints a cProfile of
that route's requests, sorted by ``--sort``.

    .venv/bin/python tools/profile_routes.py --n 1000 \\
        --db mysql+pymysql://root@127.0.0.1/perf_reads_prof
"""
import argparse
import cProfile
import datetime
import io
import os
import pstats
import statistics
import sys
import time
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402
import bench_routes  # noqa: E402

from placement import deploy  # noqa: E402
from placement.tests.functional.fixtures import app as app_fixture  # noqa

PROJECT = bench_routes.PROJECT


def _psycopg_idle(dbapi_con):
    """True when a psycopg (3 or 2) connection is in no transaction."""
    # The pool's proxy (a dialect's do_* get it) has an info of its own.
    dbapi_con = getattr(dbapi_con, 'dbapi_connection', dbapi_con)
    info = getattr(dbapi_con, 'info', None)
    status = getattr(info, 'transaction_status', None)
    if status is None:
        status = dbapi_con.get_transaction_status()
    return status == 0


class Counter:
    """Statements, rows and round trips on one engine.

    On PyMySQL every command sent is a round trip (placement's
    round_trips may send several statements in one): they are counted
    where PyMySQL sends them. On psycopg: statements, pings, and the
    COMMITs and ROLLBACKs that reach the server (none when no
    transaction is open), plus the BEGIN psycopg sends before a
    statement outside a transaction.
    """

    def __init__(self, engine):
        self.statements = self.trips = self.rows = 0
        self.psycopg = engine.dialect.driver in ('psycopg', 'psycopg2')
        sa.event.listen(engine, 'before_cursor_execute', self._before)
        sa.event.listen(engine, 'after_cursor_execute', self._after)
        if engine.dialect.driver == 'pymysql':
            self._count_pymysql_commands()
        elif self.psycopg:
            dialect = engine.dialect
            for name in ('do_ping', 'do_rollback', 'do_commit'):
                setattr(dialect, name,
                        self._counting(getattr(dialect, name)))

    def _count_pymysql_commands(self):
        import pymysql
        cls = pymysql.connections.Connection
        command, counter = cls._execute_command, self

        def counted(conn, *args):
            counter.trips += 1
            return command(conn, *args)
        cls._execute_command = counted

    def _before(self, conn, *args):
        self.statements += 1
        if not self.psycopg:
            return
        self.trips += 1
        dbapi_con = conn.connection.dbapi_connection
        if not dbapi_con.autocommit and _psycopg_idle(dbapi_con):
            self.trips += 1  # psycopg's own BEGIN

    def _after(self, conn, cursor, *args):
        if cursor.description is not None and cursor.rowcount > 0:
            self.rows += cursor.rowcount

    def _counting(self, func):
        def counted(dbapi_con, *args, **kwargs):
            # psycopg sends no COMMIT or ROLLBACK when no transaction is
            # open; a ping always goes out.
            if func.__name__ == 'do_ping' or not _psycopg_idle(dbapi_con):
                self.trips += 1
            return func(dbapi_con, *args, **kwargs)
        return counted

    def snapshot(self):
        return self.statements, self.trips, self.rows


def _environ(path, method='GET', body=None, version='1.39'):
    import webob
    req = webob.Request.blank(path, method=method, headers={
        'x-auth-token': 'admin', 'accept': 'application/json',
        'openstack-api-version': 'placement %s' % version})
    if body is not None:
        req.body = body.encode()
        req.content_type = 'application/json'
    return req.environ


def call(app, path, method='GET', body=None, version='1.39'):
    """(status line, body bytes) of one request through the whole app."""
    environ = _environ(path, method, body, version)
    state = {}

    def start_response(status, headers, exc_info=None):
        state['status'] = status
    chunks = app(environ, start_response)
    data = b''.join(chunks)
    if hasattr(chunks, 'close'):
        chunks.close()
    return state['status'], data


def routes(uuids):
    rp = '/resource_providers'

    def one(i):
        return uuids[i % len(uuids)]
    return [
        ('GET /resource_providers (all)', lambda i: rp, '1.39'),
        ('GET ?resources=VCPU:1,DISK_GB:10',
         lambda i: rp + '?resources=VCPU:1,DISK_GB:10', '1.39'),
        ('GET ?in_tree=', lambda i: rp + '?in_tree=' + one(i), '1.39'),
        ('GET ?member_of=', lambda i: rp + '?member_of=' + bc.AGG, '1.39'),
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
         lambda i: '/usages?project_id=' + PROJECT, '1.37'),
        ('GET /', lambda i: '/', '1.39'),
    ]


def _allocate(app, uuids, count):
    import json
    for i in range(count):
        body = {'allocations': {uuids[i]: {'resources': {
            'VCPU': 1, 'MEMORY_MB': 64}}},
            'project_id': PROJECT, 'user_id': bench_routes.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
        status, data = call(app, '/allocations/%s' % uuid.uuid4(), 'PUT',
                            json.dumps(body))
        assert status.startswith('204'), (status, data)


def measure(app, counter, path_of, version, repeat):
    """{'cpu': median ms, 'min', 'wall', 'stmts', 'trips', 'rows',
    'bytes'} per request."""
    cpu, wall = [], []
    before = counter.snapshot()
    size = 0
    for i in range(repeat):
        start, clock = time.process_time(), time.perf_counter()
        status, data = call(app, path_of(i), version=version)
        cpu.append((time.process_time() - start) * 1000)
        wall.append((time.perf_counter() - clock) * 1000)
        if not status.startswith('200'):
            raise RuntimeError('%s: %s %s' % (path_of(i), status, data[:200]))
        size = len(data)
    after = counter.snapshot()
    per = [(b - a) / repeat for a, b in zip(before, after)]
    return {'cpu': statistics.median(cpu), 'min': min(cpu),
            'wall': statistics.median(wall), 'stmts': per[0],
            'trips': per[1], 'rows': per[2], 'bytes': size}


def _profile(app, path_of, version, repeat, sort, limit):
    profiler = cProfile.Profile(time.process_time)  # CPU, not waits
    profiler.enable()
    for i in range(repeat):
        call(app, path_of(i), version=version)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(limit)
    print(out.getvalue())


def _setup(url, n):
    conf = app_fixture.make_conf(url)
    db = app_fixture.open_database(conf)
    app = deploy.loadapp(conf, db)
    bc.load_sql(url, bc.flat_nodes(n))
    with db.writer.begin() as conn:
        # As providers made through the API have them (the loaded rows
        # have none): a creation time, and an update time on half.
        made = datetime.datetime(2026, 11, 24, 10)
        conn.execute(sa.text('UPDATE resource_providers SET created_at '
                             '= :t'), {'t': made})
        conn.execute(sa.text('UPDATE resource_providers SET updated_at '
                             '= :t WHERE MOD(id, 2) = 0'),
                     {'t': made + datetime.timedelta(hours=1)})
    with db.writer.connect() as conn:
        uuids = [row[0] for row in conn.execute(sa.text(
            'SELECT uuid FROM resource_providers ORDER BY id'))]
    _allocate(app, uuids, 10)
    return app, db, uuids


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', required=True)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=50)
    parser.add_argument('--only', help='substring of the routes to run')
    parser.add_argument('--profile', help='substring of a route: profile')
    parser.add_argument('--sort', default='tottime')
    parser.add_argument('--limit', type=int, default=40)
    args = parser.parse_args()
    app, db, uuids = _setup(args.db, args.n)
    counter = Counter(db.writer)
    print('# %s N=%d, %d requests per route, load %s' % (
        db.dialect, args.n, args.repeat, os.getloadavg()))
    print('%-34s %8s %8s %8s %6s %6s %7s %8s' % (
        'route', 'cpu ms', 'min ms', 'wall ms', 'stmts', 'trips', 'rows',
        'bytes'))
    for name, path_of, version in routes(uuids):
        if args.only and args.only not in name:
            continue
        for i in range(3):  # warm: caches, statements, pool
            call(app, path_of(i), version=version)
        if args.profile:
            if args.profile in name:
                _profile(app, path_of, version, args.repeat, args.sort,
                         args.limit)
            continue
        fig = measure(app, counter, path_of, version, args.repeat)
        print('%-34s %8.2f %8.2f %8.2f %6.1f %6.1f %7.0f %8d' % (
            name, fig['cpu'], fig['min'], fig['wall'], fig['stmts'],
            fig['trips'], fig['rows'], fig['bytes']), flush=True)


if __name__ == '__main__':
    sys.exit(main())
