"""Time the explanation of a candidates query, in process (a tool, not a
test).

Loads the shapes of bench_candidates.py (``--load sql``) into the
database given with ``--db`` (the schema is created when missing), then
times, median of ``--repeat`` runs:

- ``explain``: objects.candidate_explain.explain, what
  ``placement-manage allocation_candidates explain`` does after parsing;
- ``log line``: the summary the API computes for an empty answer;
- ``list``: objects.allocation_candidate.list_candidates, the API's own
  operation, for comparison.

    .venv/bin/python tools/bench_explain.py --n 20000 \\
        --db mysql+pymysql://root@127.0.0.1/explain_bench
"""
import argparse
import os
import statistics
import sys
import time
import urllib.parse

from oslo_config import cfg
import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates  # noqa: E402

from placement import conf as placement_conf  # noqa: E402
from placement.db import api as db_api  # noqa: E402
from placement.db import models  # noqa: E402
from placement.handlers import querystring  # noqa: E402
from placement import microversion  # noqa: E402
from placement.objects import allocation_candidate as ac_obj  # noqa: E402
from placement.objects import candidate_explain  # noqa: E402
from placement.objects import standards  # noqa: E402
from placement.solver import model  # noqa: E402
from placement.solver import reasons  # noqa: E402

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


def _database(url):
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf([], project='placement', default_config_files=[])
    conf.set_override('connection', url, group='placement_database')
    db = db_api.create_database(conf)
    if not sa.inspect(db.writer).has_table('resource_providers'):
        models.metadata.create_all(db.writer)
    standards.sync(db)
    return db


def _query(text):
    params = {}
    for key, value in urllib.parse.parse_qsl(text):
        params.setdefault(key, []).append(value)
    return querystring.parse_candidate_query(
        params, microversion.Version(1, 39))


def _median_ms(func, repeat, clock=time.perf_counter):
    """Median milliseconds of ``func()`` by ``clock`` (wall or, with
    time.process_time, this process's CPU: steadier on a busy host)."""
    times = []
    for _ in range(repeat):
        start = clock()
        func()
        times.append((clock() - start) * 1000)
    return statistics.median(times)


def _fresh_summary(db, query, options):
    """The log line's summary, computed (not the one kept per query)."""
    candidate_explain._SUMMARIES.clear()
    return candidate_explain.summary(db, query, options)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', required=True)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--n', type=int, default=20000)
    parser.add_argument('--load', choices=('sql', 'none'), default='sql')
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    db = _database(args.db)
    if args.load == 'sql':
        nodes = (bench_candidates.flat_nodes if args.shape == 'flat'
                 else bench_candidates.nested_nodes)(args.n)
        bench_candidates.load_sql(args.db, nodes)
    options = model.SolverOptions()
    print('%-28s %10s %12s %12s %12s %12s' % (
        '%s N=%d' % (args.shape, args.n), 'candidates', 'explain ms',
        'explain cpu', 'log line ms', 'list ms'))
    for name, text in QUERIES[args.shape]:
        query = _query(text)
        result = candidate_explain.explain(db, query, options)
        explain_ms = _median_ms(lambda: candidate_explain.explain(
            db, query, options), args.repeat)
        explain_cpu = _median_ms(lambda: candidate_explain.explain(
            db, query, options), args.repeat, time.process_time)
        log_ms = _median_ms(lambda: _fresh_summary(db, query, options),
                            args.repeat)
        list_ms = _median_ms(lambda: ac_obj.list_candidates(
            db, query, options), args.repeat)
        print('%-28s %10d %12.1f %12.1f %12.1f %12.1f' % (
            name, result.explanation.count, explain_ms, explain_cpu, log_ms,
            list_ms))
        print('    ' + reasons.summary(result.explanation))
    db.dispose()


if __name__ == '__main__':
    sys.exit(main())
