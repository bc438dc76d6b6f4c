"""``placement-manage audit``'s read, in process (``profile audit``).

Loads N providers (the shapes of benchlib.data) straight into ``--db``
with SQL (the schema created when missing; its data tables emptied
first), gives every provider one consumer allocating 1 unit of its first
class, then times the audit (the whole read: one transaction, every
check) and placement-status' over-capacity count, median of a few runs.
"""
import time
import uuid

import sqlalchemy as sa

from tools.benchlib import data
from tools.benchlib import inprocess
from tools.benchlib import stats

from placement.db import models
from placement.objects import audit


def add_arguments(parser):
    parser.add_argument('--db', required=True)
    parser.add_argument('--n', type=int, default=20000)
    parser.add_argument('--shape', choices=('flat', 'nested'),
                        default='nested')
    parser.add_argument('--repeat', type=int, default=5)


def _allocate_each(db):
    """One consumer per provider with inventory, 1 unit of its first
    class; one project and user for all. The number of consumers."""
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
            for batch in data.batched(rows, 5000):
                conn.execute(sa.insert(table), batch)
    return len(consumers)


def _median(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return stats.median(times), result


def run(args):
    _app, db = inprocess.build(args.db)
    rows = data.nodes(args.shape, args.n)
    data.load_sql(args.db, rows)
    consumers = _allocate_each(db)
    seconds, findings = _median(lambda: audit.audit(db), args.repeat)
    count_seconds, _count = _median(
        lambda: audit.count_providers_over_capacity(db), args.repeat)
    print('%s: %d providers, %d consumers: audit %.3f s (%d findings), '
          'over-capacity count %.3f s (median of %d)' % (
              db.dialect, len(rows), consumers, seconds, len(findings),
              count_seconds, args.repeat))
    db.dispose()
