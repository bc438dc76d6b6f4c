"""The capacity metrics, under openstack-exporter's names and labels.

For each inventory of each provider, labelled ``hostname`` (the
provider's name) and ``resourcetype`` (the class), with the exporter's
values: ``openstack_placement_resource_total`` (the inventory's raw
total), ``_reserved``, ``_allocation_ratio``, ``_usage`` (the amount
allocated, as GET /resource_providers/{uuid}/usages reports it) and
``_generation`` (the provider's generation); and
``openstack_placement_up``, 1 when the database answered, else 0.

One statement computes them all (objects.capacity). The text rendered
from it is kept in a file of the multiprocess directory for
``[metrics] capacity_cache_seconds``: every worker process answers the
scrapes of that time with it, and while one computes, the others wait
for its answer (a lock file) rather than asking the database too.
"""
import fcntl
import os
import time

from oslo_log import log as logging

from placement.objects import capacity

LOG = logging.getLogger(__name__)

PREFIX = 'openstack_placement_'
# (metric, the ClassCapacity field of its value); the help text is the
# exporter's: the metric's name.
GAUGES = (
    ('resource_total', capacity.ClassCapacity._fields.index('total')),
    ('resource_allocation_ratio',
     capacity.ClassCapacity._fields.index('allocation_ratio')),
    ('resource_generation',
     capacity.ClassCapacity._fields.index('generation')),
    ('resource_reserved', capacity.ClassCapacity._fields.index('reserved')),
    ('resource_usage', capacity.ClassCapacity._fields.index('used')),
)
UP = PREFIX + 'up'
CACHE_FILE = 'capacity.prom'


def label(value):
    """A label value escaped as the text format wants it."""
    return (value.replace('\\', '\\\\').replace('\n', '\\n')
            .replace('"', '\\"'))


def render(rows) -> bytes:
    """The text of the capacity gauges for ``rows`` (ClassCapacity).

    150,000 lines at 10,000 providers: built by concatenation, the
    labels of a row escaped once for its five gauges.
    """
    labels = ['{hostname="%s",resourcetype="%s"} ' % (
        label(row.provider_name), label(row.resource_class))
        for row in rows]
    lines = []
    for name, field in GAUGES:
        metric = PREFIX + name
        lines.append('# HELP %s %s\n# TYPE %s gauge\n' % (metric, name,
                                                          metric))
        lines += [metric + label + str(row[field]) + '\n'
                  for label, row in zip(labels, rows)]
    return ''.join(lines).encode('utf-8')


def up_text(is_up) -> bytes:
    return ('# HELP %s up\n# TYPE %s gauge\n%s %d\n' % (
        UP, UP, UP, 1 if is_up else 0)).encode('ascii')


class SharedText:
    """``compute()``'s bytes, shared through ``directory`` by every
    process of the service for ``seconds``, in the file ``name`` of
    ``directory`` (and its lock file beside it)."""

    def __init__(self, directory, seconds, compute, name=CACHE_FILE):
        self.path = os.path.join(directory, name)
        self.lock_path = self.path + '.lock'
        self.seconds = seconds
        self.compute = compute

    def get(self) -> bytes:
        if self.seconds <= 0:
            return self.compute()
        text = self._fresh()
        if text is not None:
            return text
        with open(self.lock_path, 'a') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                text = self._fresh()
                if text is None:
                    text = self.compute()
                    self._store(text)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        return text

    def _fresh(self):
        try:
            with open(self.path, 'rb') as handle:
                age = time.time() - os.fstat(handle.fileno()).st_mtime
                if 0 <= age < self.seconds:
                    return handle.read()
        except FileNotFoundError:
            pass
        return None

    def _store(self, text):
        temporary = '%s.%d' % (self.path, os.getpid())
        with open(temporary, 'wb') as handle:
            handle.write(text)
        os.replace(temporary, self.path)


class CapacityMetrics:
    """The capacity text of a scrape, from ``db`` (a db_api.Database)."""

    def __init__(self, db, directory, seconds):
        self.db = db
        self.shared = SharedText(directory, seconds, self._compute)

    def _compute(self):
        return render(capacity.list_capacity(self.db))

    def text(self) -> bytes:
        """The gauges and ``openstack_placement_up``."""
        try:
            return self.shared.get() + up_text(True)
        except Exception as exc:
            # Any failure of the database: the exporter's answer when it
            # cannot reach the API, up = 0 and no capacity series.
            LOG.warning('Capacity metrics unavailable: %s', exc)
            return up_text(False)
