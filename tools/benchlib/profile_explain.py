"""The explanation of a candidates query, in process (``profile
explain``).

Loads the shapes of benchlib.data (``--load sql``) into ``--db``, then
reports, median of ``--repeat`` runs, wall and this process's CPU time
(steadier on a busy host) and the SQL statements run:

- ``explain``: what ``placement-manage allocation_candidates explain``
  does after parsing;
- ``response``: GET /allocation_candidates through the whole WSGI
  application, up to the last byte of the body;
- ``log line``: what runs after that, when the server closes the body of
  an empty answer (the reasons summary); nothing for a non-empty answer;
- ``log line, before``: the same summary computed from a whole
  explanation (reads of every provider, and the solver again).
"""
import time
import urllib.parse

import webob

from tools.benchlib import data
from tools.benchlib import inprocess
from tools.benchlib import queries
from tools.benchlib import stats

from placement.handlers import querystring
from placement import microversion
from placement.objects.candidates import explain as candidate_explain
from placement.solver import model
from placement.solver import reasons


def add_arguments(parser):
    parser.add_argument('--db', required=True)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--n', type=int, default=20000)
    parser.add_argument('--load', choices=('sql', 'none'), default='sql')
    parser.add_argument('--repeat', type=int, default=5)


def _query(text):
    params = {}
    for key, value in urllib.parse.parse_qsl(text):
        params.setdefault(key, []).append(value)
    return querystring.parse_candidate_query(
        params, microversion.Version(1, 39))


class Meter:
    """Wall ms, CPU ms and SQL statements of a piece of work."""

    def __init__(self, db):
        self.counter = inprocess.Statements(*db.engines())

    def runs(self, func, repeat):
        """[((wall, cpu, statements) of func(), and of what it returned
        if a function, called next, else None)] per run."""
        found = []
        for _ in range(repeat):
            first, rest = self._one(func)
            second = self._one(rest)[0] if callable(rest) else None
            found.append((first, second))
        return found

    def _one(self, func):
        wall, cpu, count = (time.perf_counter(), time.process_time(),
                            self.counter.statements)
        value = func()
        return ((time.perf_counter() - wall) * 1000,
                (time.process_time() - cpu) * 1000,
                self.counter.statements - count), value


def _http_get(app, text):
    """GET text through ``app``: a function sending the body (what the
    client waits for), which returns the function the server then calls
    to close it (the log line's work)."""
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


def _cell(triple):
    if triple is None:
        return '%26s' % '-'
    return '%8.1f %8.1f %8d' % triple


def run(args):
    app, db = inprocess.build(args.db)
    if args.load == 'sql':
        data.load_sql(args.db, data.nodes(args.shape, args.n))
    meter = Meter(db)
    options = model.SolverOptions()
    print('%s N=%d, median of %d; each cell: wall ms, CPU ms, statements'
          % (args.shape, args.n, args.repeat))
    print('%-26s %5s %26s %26s %26s %26s' % (
        'query', 'cands', 'explain', 'response', 'log line (after it)',
        'log line, before'))
    for name, text in queries.EXPLAIN_QUERIES[args.shape]:
        query = _query(text)

        def explain():
            return candidate_explain.explain(db, query, options)
        result = explain()
        figures = [stats.median_of_tuples(m for m, _ in meter.runs(
            explain, args.repeat))]
        responses = meter.runs(_http_get(app, text), args.repeat)
        figures += [stats.median_of_tuples(m for m, _ in responses),
                    stats.median_of_tuples(after for _, after in responses)]
        figures.append(stats.median_of_tuples(m for m, _ in meter.runs(
            lambda: reasons.summary(explain().explanation), args.repeat))
            if not result.explanation.count else None)
        print('%-26s %5d %s' % (name, result.explanation.count,
                                ' '.join(_cell(f) for f in figures)))
        print('    ' + reasons.summary(result.explanation))
    db.dispose()
