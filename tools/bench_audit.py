"""Time ``placement-manage audit``'s read (a tool, not a test).

Loads N providers (the shapes of bench_candidates.py) straight into an
empty database with SQL, gives every provider one consumer allocating
1 VCPU (or 1 DISK_GB for nested roots), then times ``objects.audit.audit``
(the whole read: one transaction, every check) and the placement-status
count, and prints the median of a few runs.

    .venv/bin/python tools/bench_audit.py --db sqlite:////tmp/audit.db \\
        --shape nested --n 20000

The database must exist and be empty or hold only placement's tables;
its data tables are emptied first.
"""
import argparse
import os
import statistics
import sys
import time
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates  # noqa: E402  (a sibling script, not a package)

from placement.db import api as db_api  # noqa: E402
from placement.db import models  # noqa: E402
from placement.objects import audit  # noqa: E402
from placement.objects import standards  # noqa: E402
from placement.tests.functional.fixtures import app  # noqa: E402


def _allocate_each(db):
    """One consumer per provider with inventory, 1 unit of its first
    class; one project and user for all."""
    with db.writer.begin() as conn:
        project = conn.execute(sa.insert(models.projects).values(
            external_id='bench')).inserted_primary_key[0]
        user = conn.execute(sa.insert(models.users).values(
            external_id='bench')).inserted_primary_key[0]
        inv = models.inventories
        firsts = conn.execute(
            sa.select(inv.c.resource_provider_id,
                      sa.func.min(inv.c.resource_class_id))
            .group_by(inv.c.resource_provider_id)).all()
        consumers, allocations = [], []
        for rp_id, rc_id in firsts:
            consumer = str(uuid.uuid4())
            consumers.append({'uuid': consumer, 'project_id': project,
                              'user_id': user, 'generation': 1})
            allocations.append({'resource_provider_id': rp_id,
                                'consumer_id': consumer,
                                'resource_class_id': rc_id, 'used': 1})
        for table, rows in ((models.consumers, consumers),
                            (models.allocations, allocations)):
            for batch in bench_candidates._batched(rows, 5000):
                conn.execute(sa.insert(table), batch)
    return len(consumers)


def _median(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', required=True)
    parser.add_argument('--n', type=int, default=20000)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='nested')
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    db = db_api.create_database(app.make_conf(args.db))
    models.metadata.create_all(db.writer)
    standards.sync(db)
    nodes = (bench_candidates.flat_nodes(args.n) if args.shape == 'flat'
             else bench_candidates.nested_nodes(args.n))
    bench_candidates.load_sql(args.db, nodes)
    consumers = _allocate_each(db)
    seconds, findings = _median(lambda: audit.audit(db), args.repeat)
    count_seconds, _count = _median(
        lambda: audit.count_providers_over_capacity(db), args.repeat)
    print('%s: %d providers, %d consumers: audit %.3f s (%d findings), '
          'over-capacity count %.3f s (median of %d)' % (
              db.dialect, len(nodes), consumers, seconds, len(findings),
              count_seconds, args.repeat))
    db.dispose()


if __name__ == '__main__':
    main()
