"""Server CPU per GET /allocation_candidates over HTTP (a tool, not a
test): ours against a second server, query by query.

Wall-clock latency on a shared host measures the neighbours as much as
the servers. This counts instead, over ``--repeat`` requests of each
query of bench_candidates.py's shape sent one at a time, the CPU the
uwsgi workers of each server used (all their threads, from
/proc/PID/task/TID/schedstat, in nanoseconds) and, on PostgreSQL, the
CPU of the server backends connected to each one's database; then the
ratios (other / ours). Each server is warmed with five requests of the
query first. On MariaDB the server's threads are not told apart by
database: the database column is left at zero.

Arguments as bench_candidates.py takes them (tools/bench-servers prints
them); the data must be loaded already (bench_candidates.py --load sql):

    .venv/bin/python tools/cpu_candidates.py --shape flat --repeat 200 \\
        --url ... --db ... --pid ... --compare-url ... --compare-db ... \\
        --compare-pid ...
"""
import argparse
import os
import sys

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402

WARM = 5


def _backends(db_url):
    """The PostgreSQL server processes connected to ``db_url``'s
    database (none on other databases)."""
    if not db_url.startswith('postgresql'):
        return []
    engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(sa.text(
                'SELECT pid FROM pg_stat_activity WHERE datname = '
                'current_database() AND pid <> pg_backend_pid()'))]
    finally:
        engine.dispose()


def measure(url, master_pid, db_url, path, repeat):
    """(worker CPU ms, database CPU ms) per request of ``path``."""
    for _ in range(WARM):
        bc.fetch(url, path)
    workers, backends = bc.children(master_pid), _backends(db_url)

    def cpu_ms():
        return (bc.cpu_seconds(workers, family=False) * 1000,
                bc.cpu_seconds(backends, family=False) * 1000)
    app, db = cpu_ms()
    for _ in range(repeat):
        bc.fetch(url, path)
    app_after, db_after = cpu_ms()
    return (app_after - app) / repeat, (db_after - db) / repeat


def _ratio(other, ours):
    return '%.1fx' % (other / ours) if ours else '-'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ('--url', '--db', '--compare-url', '--compare-db'):
        parser.add_argument(name, required=True)
    parser.add_argument('--pid', type=int, required=True)
    parser.add_argument('--compare-pid', type=int, required=True)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='flat')
    parser.add_argument('--repeat', type=int, default=100)
    parser.add_argument('--only', help='queries whose name starts so')
    args = parser.parse_args()
    print('%-32s %15s %15s %15s' % (
        args.shape, 'app ms o/other', 'db ms o/other', 'ratio app/db/all'))
    for name, query in bc.QUERIES[args.shape]:
        if args.only and not name.startswith(args.only):
            continue
        path = '/allocation_candidates?' + query
        ours = measure(args.url, args.pid, args.db, path, args.repeat)
        other = measure(args.compare_url, args.compare_pid,
                        args.compare_db, path, args.repeat)
        print('%-32s %7.2f/%-7.2f %7.2f/%-7.2f %5s %5s %5s' % (
            name, ours[0], other[0], ours[1], other[1],
            _ratio(other[0], ours[0]), _ratio(other[1], ours[1]),
            _ratio(sum(other), sum(ours))), flush=True)


if __name__ == '__main__':
    sys.exit(main())
