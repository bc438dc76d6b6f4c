"""GET /allocation_candidates in process: CPU per request and where it
goes (``profile candidates``).

Builds the application on ``--db`` (the shapes of benchlib.data, loaded
with ``--load sql``), then for each query of the shape calls the
application directly (no HTTP) and prints the median CPU milliseconds of
this process per request (time.process_time: on a loaded host it does
not count the time spent waiting for the CPU, and the database server's
work is not ours), the wall milliseconds, the SQL statements per request
and, on PostgreSQL, the server's CPU milliseconds per request (its
backends' own time). ``--profile NAME`` prints a cProfile of that
query's requests instead; ``--plans`` (PostgreSQL) prints, per statement
of one request, the server's planning and execution milliseconds
(EXPLAIN ANALYZE, the last of several runs on a connection of its own).
"""
import cProfile
import io
import pstats
import statistics
import time

import sqlalchemy as sa

from tools.benchlib import data
from tools.benchlib import inprocess
from tools.benchlib import procstat
from tools.benchlib import queries


def add_arguments(parser):
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
                        'statement')


def backend_cpu(db):
    """CPU seconds the PostgreSQL backends of this database have used so
    far (every connection to it is the application's); None elsewhere."""
    if db.dialect != 'postgresql':
        return None
    return procstat.cpu_seconds(procstat.postgresql_backends(
        str(db.reader.url), db.reader, include_self=True), family=False)


def call(app, query):
    status, body = inprocess.call(app, '/allocation_candidates?' + query)
    if status != 200:
        raise RuntimeError('%s: %s' % (status, body[:300]))
    return body


def measure(app, db, counter, query, repeat):
    """(CPU ms median, wall ms median, statements, database server CPU
    ms mean or None) per request, and the body."""
    call(app, query)  # the first of a query plans it (gather's memo)
    before = counter.statements
    body = call(app, query)
    statements = counter.statements - before
    cpu, wall = [], []
    with counter.detached():
        server = backend_cpu(db)
        for _ in range(repeat):
            start_cpu, start = time.process_time(), time.perf_counter()
            call(app, query)
            cpu.append((time.process_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
        if server is not None:
            server = (backend_cpu(db) - server) * 1000 / repeat
    return (statistics.median(cpu), statistics.median(wall), statements,
            server, body)


def plans(app, db, query, runs=7):
    """Print (planning, execution) ms of each statement of one request."""
    seen = []

    def executed(conn, cursor, statement, params, context, many):
        # The statement as compiled (before any rewriting by db/).
        seen.append((context.statement, context.parameters[0]))
    for engine in db.engines():
        sa.event.listen(engine, 'after_cursor_execute', executed)
    call(app, query)
    for engine in db.engines():
        sa.event.remove(engine, 'after_cursor_execute', executed)
    # A connection of its own: the pool's hold the service's statements.
    engine = sa.create_engine(db.reader.url, poolclass=sa.pool.NullPool)
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for number, (statement, params) in enumerate(seen):
            for _ in range(runs):
                found = _explain(cursor, statement, params)
            print('   statement %d: %.3f + %.3f ms (planning + execution):'
                  ' %s' % (number + 1, *found,
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
    found = pstats.Stats(prof, stream=out)
    found.sort_stats('cumulative').print_stats(lines)
    found.sort_stats('tottime').print_stats(lines)
    print(out.getvalue())


def run(args):
    app, db = inprocess.build(args.db, **{
        'placement.randomize_allocation_candidates': args.randomize})
    if args.load == 'sql':
        data.load_sql(args.db, data.nodes(args.shape, args.n))
    counter = inprocess.Statements(*db.engines())
    print('%-32s %7s %9s %9s %6s %9s' % (
        args.shape, 'results', 'cpu ms', 'wall ms', 'stmts', 'pg ms'))
    for name, query in queries.QUERIES[args.shape]:
        if args.profile:
            if name.startswith(args.profile):
                profile(app, query, args.repeat, args.lines)
            continue
        cpu, wall, stmts, server, body = measure(app, db, counter, query,
                                                 args.repeat)
        print('%-32s %7d %9.2f %9.2f %6.1f %9s' % (
            name, body.count(b'"allocations"'), cpu, wall, stmts,
            '-' if server is None else '%.2f' % server), flush=True)
        if args.plans and db.dialect == 'postgresql':
            plans(app, db, query)
    db.dispose()
