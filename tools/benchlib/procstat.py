"""Server CPU and memory, read from /proc (Linux).

CPU comes from /proc/PID/task/TID/schedstat (nanoseconds, finer than the
clock ticks of /proc/PID/stat); memory from /proc/PID/status and
smaps_rollup. A process or thread that just ended counts for nothing.
"""
import os

import sqlalchemy as sa

# (field, file, label) of the worker memory figures.
MEMORY_FIGURES = (('VmRSS', 'status', 'RSS now'),
                  ('VmHWM', 'status', 'RSS peak'),
                  ('Pss', 'smaps_rollup', 'PSS now'),
                  ('Private_Dirty', 'smaps_rollup', 'private now'))


def children(pid):
    """The pids of the processes whose parent is ``pid``."""
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            return [int(child) for child in f.read().split()]
    except OSError:
        return []


def cpu_seconds(pids, family=True):
    """CPU seconds used so far by every thread of ``pids`` and, with
    ``family``, of their children (a uwsgi master and its workers)."""
    total = 0
    for pid in pids:
        for member in [pid] + (children(pid) if family else []):
            try:
                tids = os.listdir('/proc/%d/task' % member)
            except OSError:
                continue
            for tid in tids:
                try:
                    with open('/proc/%d/task/%s/schedstat'
                              % (member, tid)) as f:
                        total += int(f.read().split()[0])
                except OSError:
                    continue
    return total / 1e9


def worker_memory(master_pid, field='VmRSS', source='status'):
    """{pid: MiB} of the children of ``master_pid``: their resident size
    now (VmRSS) or at its peak so far (VmHWM), from /proc/PID/status; or,
    with source='smaps_rollup', their proportional share (Pss: pages
    shared with the master and the other workers counted in part) or
    their own pages (Private_Dirty)."""
    found = {}
    for pid in children(master_pid):
        try:
            with open('/proc/%d/%s' % (pid, source)) as f:
                for line in f:
                    if line.startswith(field + ':'):
                        found[pid] = int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return found


def postgresql_backends(db_url, engine=None, include_self=False):
    """The PostgreSQL server processes connected to ``db_url``'s database
    (none on other databases). On a connection of its own unless
    ``engine`` is given; ``include_self`` counts the connection asking
    (one of the service's own when ``engine`` is the service's)."""
    if not str(db_url).startswith('postgresql'):
        return []
    own = engine is None
    engine = engine or sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    query = ('SELECT pid FROM pg_stat_activity WHERE datname = '
             'current_database()')
    if not include_self:
        query += ' AND pid <> pg_backend_pid()'
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(sa.text(query))]
    finally:
        if own:
            engine.dispose()
