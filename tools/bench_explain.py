"""Time the explanation of a candidates query, in process (a tool, not a
test).

Loads the shapes of bench_candidates.py (``--load sql``) into the
database given with ``--db`` (the schema is created when missing), then
reports, median of ``--repeat`` runs, wall and this process's CPU time
(steadier on a busy host) and the SQL statements run:

- ``explain``: objects.candidates.explain.explain, what
  ``placement-manage allocation_candidates explain`` does after parsing;
- ``response``: GET /allocation_candidates through the whole WSGI
  application, up to the last byte of the body: what the client waits
  for;
- ``log line``: what runs after that, when the server closes the body of
  an empty answer (candidate_explain.why_empty: the reads
  and the funnel); nothing for a non-empty answer;
- ``log line, before``: the same summary computed the way it was before
  it reused the request's reads: a whole explanation (reads of every
  provider, and the solver again), in the request.

    .venv/bin/python tools/bench_explain.py --n 20000 \\
        --db mysql+pymysql://root@127.0.0.1/explain_bench
"""
import argparse
import os
import statistics
import sys
import time
import urllib.parse

import sqlalchemy as sa
import webob

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates  # noqa: E402

from placement import deploy  # noqa: E402
from placement.handlers import querystring  # noqa: E402
from placement import microversion  # noqa: E402
from placement.objects.candidates import explain as candidate_explain  # noqa: E402
from placement.solver import model  # noqa: E402
from placement.solver import reasons  # noqa: E402
from placement.tests.functional.fixtures import app as app_fixture  # noqa

QUERIES = {
    'flat': [
        ('flat (non-empty)', bench_candidates.FLAT_QUERY),
        ('flat empty: VCPU:64', 'resources=VCPU:64,MEMORY_MB:256'),
        ('flat empty: trait', 'resources=VCPU:1&required=HW_CPU_X86_SSE42'),
    ],
    'nested': [
        ('nested (non-empty)', bench_candidates.NESTED_QUERY),
        ('nested empty: FPGA:3',
         bench_candidates.NESTED_QUERY.replace('FPGA:1', 'FPGA:3')),
    ],
}


def _conf_and_database(url):
    conf = app_fixture.make_conf(url)
    return conf, app_fixture.open_database(conf)


def _query(text):
    params = {}
    for key, value in urllib.parse.parse_qsl(text):
        params.setdefault(key, []).append(value)
    return querystring.parse_candidate_query(
        params, microversion.Version(1, 39))


class Meter:
    """Wall ms, CPU ms (this process) and SQL statements of a piece of
    work, each the median of the runs measured.
    """

    def __init__(self, db):
        self.statements = 0
        for engine in {db.writer, db.reader}:
            sa.event.listen(engine, 'before_cursor_execute', self._count)

    def _count(self, *args):
        self.statements += 1

    def runs(self, func, repeat):
        """[(wall ms, cpu ms, statements)] of ``func()`` per run; func
        may return a second function, measured as a part of its own
        (see ``split``).
        """
        found = []
        for _ in range(repeat):
            found.append(self.split(func))
        return found

    def split(self, func):
        """((wall, cpu, statements) of func(), and of what it returned,
        if a function, called next; else None)."""
        first = self._one(func)
        rest = first[1]
        second = self._one(rest)[0] if callable(rest) else None
        return first[0], second

    def _one(self, func):
        wall, cpu, count = (time.perf_counter(), time.process_time(),
                            self.statements)
        value = func()
        return ((time.perf_counter() - wall) * 1000,
                (time.process_time() - cpu) * 1000,
                self.statements - count), value


def median(triples):
    triples = [t for t in triples if t is not None]
    if not triples:
        return None
    return tuple(statistics.median(t[i] for t in triples) for i in range(3))


def _http_get(app, text):
    """GET text through ``app``: a function sending the body (what the
    client waits for), which returns the function the server then calls
    to close it (the log line's work).
    """
    environ = webob.Request.blank(
        '/allocation_candidates?' + text,
        headers={'x-auth-token': 'admin',
                 'openstack-api-version': 'placement 1.39'}).environ

    def respond():
        body = app(environ, lambda *args: None)
        for _ in body:
            pass
        return getattr(body, 'close', None)
    return respond


def _before(db, query, options):
    """The log line as it was computed before: a whole explanation."""
    return reasons.summary(candidate_explain.explain(
        db, query, options).explanation)


def _cell(triple):
    if triple is None:
        return '%26s' % '-'
    return '%8.1f %8.1f %8d' % triple


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', required=True)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--n', type=int, default=20000)
    parser.add_argument('--load', choices=('sql', 'none'), default='sql')
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    conf, db = _conf_and_database(args.db)
    if args.load == 'sql':
        nodes = (bench_candidates.flat_nodes if args.shape == 'flat'
                 else bench_candidates.nested_nodes)(args.n)
        bench_candidates.load_sql(args.db, nodes)
    app = deploy.loadapp(conf, db=db)
    meter = Meter(db)
    options = model.SolverOptions()
    print('%s N=%d, median of %d; each cell: wall ms, CPU ms, statements'
          % (args.shape, args.n, args.repeat))
    print('%-26s %5s %26s %26s %26s %26s' % (
        'query', 'cands', 'explain', 'response', 'log line (after it)',
        'log line, before'))
    for name, text in QUERIES[args.shape]:
        query = _query(text)
        result = candidate_explain.explain(db, query, options)
        explain = median(m for m, _ in meter.runs(
            lambda: candidate_explain.explain(db, query, options),
            args.repeat))
        runs = meter.runs(_http_get(app, text), args.repeat)
        before = median(m for m, _ in meter.runs(
            lambda: _before(db, query, options), args.repeat)
        ) if not result.explanation.count else None
        print('%-26s %5d %s %s %s %s' % (
            name, result.explanation.count, _cell(explain),
            _cell(median(m for m, _ in runs)),
            _cell(median(after for _, after in runs)), _cell(before)))
        print('    ' + reasons.summary(result.explanation))
    db.dispose()


if __name__ == '__main__':
    sys.exit(main())
