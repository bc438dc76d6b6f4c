"""GET /allocation_candidates in process: CPU per request and where it
goes (a tool, not a test).

Builds the WSGI application on the database given with ``--db`` (the
shapes of bench_candidates.py, loaded with ``--load sql``), then for each
query of the shape calls the application directly (no HTTP) and prints
the median CPU milliseconds of this process per request
(time.process_time: on a loaded host it does not count the time spent
waiting for the CPU, and the database server's work is not ours), the
wall milliseconds, the SQL statements per request and, on PostgreSQL,
the server's CPU milliseconds per request (its backends' own time).
``--profile NAME`` prints a cProfile of that query's requests instead;
``--plans`` (PostgreSQL) prints, per statement of one request, the
server's planning and execution milliseconds as a plain statement and
as a prepared statement, as psycopg runs the repeated ones (EXPLAIN
ANALYZE, the last of several runs on a connection of its own: caches
warm, and the generic plan once the server settles on it).

    .venv/bin/python tools/profile_candidates.py --shape nested \\
        --db mysql+pymysql://root@127.0.0.1/perf_prof --load sql
"""
import argparse
import cProfile
import io
import os
import pstats
import re
import statistics
import sys
import time

import sqlalchemy as sa
import webob

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402

from placement import deploy  # noqa: E402
from placement.tests.functional.fixtures import app as app_fixture  # noqa


def build_app(url, randomize):
    conf = app_fixture.make_conf(
        url, **{'placement.randomize_allocation_candidates': randomize})
    db = app_fixture.open_database(conf)
    return deploy.loadapp(conf, db=db), db


class _Counter:
    """SQL statements run, through an engine event."""

    def __init__(self, db):
        self.db = db
        self.statements = 0
        sa.event.listen(db.reader, 'after_cursor_execute', self._executed)

    def _executed(self, *args):
        self.statements += 1


def backend_cpu(db):
    """The CPU seconds the PostgreSQL server processes serving this
    database have used so far (/proc/PID/schedstat, nanoseconds: finer
    than the clock ticks of /proc/PID/stat); None on other databases.
    The server runs on this host; every connection to the database is
    one of ours.
    """
    if db.dialect != 'postgresql':
        return None
    with db.reader.connect() as conn:
        pids = [row[0] for row in conn.exec_driver_sql(
            'SELECT pid FROM pg_stat_activity '
            'WHERE datname = current_database()')]
    total = 0
    for pid in pids:
        try:
            with open('/proc/%d/schedstat' % pid) as f:
                total += int(f.read().split()[0])
        except OSError:
            continue
    return total / 1e9


def call(app, query):
    req = webob.Request.blank('/allocation_candidates?' + query,
                              headers=bc.HEADERS)
    resp = req.get_response(app)
    if resp.status_int != 200:
        raise RuntimeError('%s: %s' % (resp.status, resp.body[:300]))
    return resp.body


def measure(app, counter, query, repeat):
    """(CPU ms median, wall ms median, statements, database server CPU
    ms mean or None) per request, body.
    """
    body = call(app, query)
    cpu, wall = [], []
    counter.statements = 0
    server = backend_cpu(counter.db)
    for _ in range(repeat):
        start_cpu, start = time.process_time(), time.perf_counter()
        call(app, query)
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    if server is not None:
        server = (backend_cpu(counter.db) - server) * 1000 / repeat
    return (statistics.median(cpu), statistics.median(wall),
            counter.statements / repeat, server, body)


_PARAM = re.compile(r'%\((\w+)\)s')


def _prepared(statement, name='pl_plans'):
    """(PREPARE text, EXECUTE text) of a pyformat ``statement``."""
    names = []
    for found in _PARAM.findall(statement):
        if found not in names:
            names.append(found)
    prepare = 'PREPARE %s AS %s' % (name, _PARAM.sub(
        lambda m: '$%d' % (names.index(m.group(1)) + 1), statement))
    execute = 'EXECUTE ' + name
    if names:
        execute += '(%s)' % ', '.join('%%(%s)s' % n for n in names)
    return prepare, execute


def plans(app, db, query, runs=7):
    """Print (planning, execution) ms of each statement of one request
    of ``query``, plain and prepared (see the module docstring)."""
    seen = []

    def executed(conn, cursor, statement, params, context, many):
        seen.append((context.statement, context.parameters[0]))
    sa.event.listen(db.reader, 'after_cursor_execute', executed)
    call(app, query)
    sa.event.remove(db.reader, 'after_cursor_execute', executed)
    # A connection of its own: the pool's hold the service's statements.
    engine = sa.create_engine(db.reader.url, poolclass=sa.pool.NullPool)
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for number, (statement, params) in enumerate(seen):
            prepare, execute = _prepared(statement)
            for _ in range(runs):
                plain = _explain(cursor, statement, params)
            cursor.execute(prepare)
            for _ in range(runs):
                found = _explain(cursor, execute, params)
            cursor.execute('DEALLOCATE pl_plans')
            print('   statement %d: plain %.3f + %.3f ms, prepared %.3f '
                  '+ %.3f ms (planning + execution): %s' % (
                      number + 1, *plain, *found,
                      ' '.join(statement.split())[:60]))
        raw.rollback()
    finally:
        raw.close()
        engine.dispose()


def _explain(cursor, statement, params):
    cursor.execute('EXPLAIN (ANALYZE, SUMMARY) ' + statement, params)
    times = {}
    for (line,) in cursor.fetchall():
        for label in ('Planning Time', 'Execution Time'):
            if line.strip().startswith(label):
                times[label] = float(line.split(':')[1].split()[0])
    return times.get('Planning Time', 0.0), times['Execution Time']


def profile(app, query, repeat, lines):
    prof = cProfile.Profile(time.process_time)
    call(app, query)
    prof.enable()
    for _ in range(repeat):
        call(app, query)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats('cumulative').print_stats(lines)
    stats.sort_stats('tottime').print_stats(lines)
    print(out.getvalue())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', required=True)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--n', type=int)
    parser.add_argument('--load', choices=('sql', 'none'), default='none')
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--randomize', action='store_true')
    parser.add_argument('--profile', metavar='NAME',
                        help='cProfile the query whose name starts so')
    parser.add_argument('--lines', type=int, default=40)
    parser.add_argument('--plans', action='store_true',
                        help='PostgreSQL: planning and execution per '
                        'statement, plain and prepared')
    args = parser.parse_args()
    app, db = build_app(args.db, args.randomize)
    if args.load == 'sql':
        n = args.n or int(bc.DEFAULT_N[args.shape])
        nodes = (bc.flat_nodes if args.shape == 'flat'
                 else bc.nested_nodes)(n)
        bc.load_sql(args.db, nodes)
    counter = _Counter(db)
    print('%-32s %7s %9s %9s %6s %9s' % (
        args.shape, 'results', 'cpu ms', 'wall ms', 'stmts', 'pg ms'))
    for name, query in bc.QUERIES[args.shape]:
        if args.profile:
            if name.startswith(args.profile):
                profile(app, query, args.repeat, args.lines)
            continue
        cpu, wall, stmts, server, body = measure(app, counter, query,
                                                 args.repeat)
        count = body.count(b'"allocations"')
        print('%-32s %7d %9.2f %9.2f %6.1f %9s' % (
            name, count, cpu, wall, stmts,
            '-' if server is None else '%.2f' % server), flush=True)
        if args.plans and db.dialect == 'postgresql':
            plans(app, db, query)
    db.dispose()


if __name__ == '__main__':
    sys.exit(main())
