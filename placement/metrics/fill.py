"""Free capacity by request shape, under os-capacity's names and labels.

The five families the existing Grafana dashboards read:

- ``openstack_free_capacity_by_flavor_total{flavor_name}``: how many
  more of the shape fit in the whole fleet, claim after claim;
- ``openstack_free_capacity_hypervisor_by_flavor{hypervisor,
  flavor_name, az_aggregate, project_aggregate}``: the same per tree
  where at least one fits (as os-capacity lists only the hosts among
  the candidates: 10 shapes over 28,000 trees would be 280,000
  series), ``hypervisor`` the root's name; both aggregate labels carry
  the uuids of the aggregates the root is in, sorted and
  comma-separated ('' where none): placement cannot tell an
  availability zone's aggregate from a project's;
- ``openstack_project_usage{placement_resource, project_id,
  project_name}``: what each project's consumers hold, by class
  (``project_name`` is '': placement has no Keystone to ask);
- ``openstack_hypervisor_placement_allocated{hypervisor, resource}``
  and ``..._allocatable_capacity``: used and (total - reserved) *
  allocation_ratio, summed over each tree's providers, by class.

``flavor_name`` is the name of a ``[capacity] shape``. The numbers come
from one read (objects.fill.count_fleet), shared by every worker for
``[metrics] capacity_cache_seconds`` (capacity.SharedText). A shape
naming a class or trait the database does not have is left out (and
logged), as the API would refuse it.
"""
from oslo_log import log as logging

from placement.handlers import capacity_shape
from placement.metrics import capacity
from placement.objects import fill

LOG = logging.getLogger(__name__)

BY_FLAVOR = 'openstack_free_capacity_by_flavor_total'
BY_HYPERVISOR = 'openstack_free_capacity_hypervisor_by_flavor'
PROJECT_USAGE = 'openstack_project_usage'
ALLOCATED = 'openstack_hypervisor_placement_allocated'
ALLOCATABLE = 'openstack_hypervisor_placement_allocatable_capacity'
HELP = {
    BY_FLAVOR: 'Free capacity if you fill the cloud full of each flavor',
    BY_HYPERVISOR: 'Free capacity for each hypervisor if you fill '
                   'remaining space full of each flavor',
    PROJECT_USAGE: 'Current placement allocations per project.',
    ALLOCATED: 'Currently allocated resource for each provider in '
               'placement.',
    ALLOCATABLE: 'The total allocatable resource in the placement '
                 'inventory.',
}
CACHE_FILE = 'fill.prom'
_label = capacity.label


def _header(metric):
    return '# HELP {0} {1}\n# TYPE {0} gauge\n'.format(metric, HELP[metric])


def _shape_lines(fleet):
    """The lines of the two by-flavor families."""
    totals, per_tree = [_header(BY_FLAVOR)], [_header(BY_HYPERVISOR)]
    root_labels = {
        root_id: (_label(root.name), _label(','.join(root.aggregates)))
        for root_id, root in fleet.roots.items()}
    for shape in fleet.shapes:
        if shape.error is not None:
            continue
        flavor = _label(shape.name)
        totals.append('%s{flavor_name="%s"} %d\n'
                      % (BY_FLAVOR, flavor, shape.total))
        for root_id, tree in sorted(shape.trees.items()):
            name, aggregates = root_labels.get(root_id, ('', ''))
            per_tree.append(
                '%s{hypervisor="%s",flavor_name="%s",az_aggregate="%s",'
                'project_aggregate="%s"} %d\n' % (
                    BY_HYPERVISOR, name, flavor, aggregates, aggregates,
                    tree.count))
    return totals + per_tree


def _usage_lines(fleet):
    """The lines of the project and hypervisor usage families."""
    lines = [_header(PROJECT_USAGE)]
    lines += ['%s{placement_resource="%s",project_id="%s",'
              'project_name=""} %d\n' % (PROJECT_USAGE, _label(rc),
                                         _label(project), used)
              for project, rc, used in fleet.projects]
    names = {root_id: _label(root.name)
             for root_id, root in fleet.roots.items()}
    for metric, field in ((ALLOCATED, 3), (ALLOCATABLE, 2)):
        lines.append(_header(metric))
        lines += ['%s{hypervisor="%s",resource="%s"} %d\n' % (
            metric, names.get(row[0], ''), _label(row[1]), row[field])
            for row in fleet.trees]
    return lines


def render(fleet) -> bytes:
    """The exposition text of ``fleet`` (objects.fill.Fleet)."""
    return ''.join(_shape_lines(fleet) + _usage_lines(fleet)).encode(
        'utf-8')


class FillMetrics:
    """The free-capacity text of a scrape, from ``db``, for the
    ``[capacity] shape`` values of ``conf``: parsed here, at start, so
    a bad shape stops the service (ConfigError, with the API's message
    and the shape's name)."""

    def __init__(self, db, conf, directory):
        self.db = db
        self.shapes = capacity_shape.configured(conf)
        self.shared = capacity.SharedText(
            directory, conf.metrics.capacity_cache_seconds, self._compute,
            CACHE_FILE)

    def _compute(self):
        fleet = fill.count_fleet(
            self.db, [(shape.name, shape.query) for shape in self.shapes])
        for shape in fleet.shapes:
            if shape.error is not None:
                LOG.warning('[capacity] shape %s left out of the metrics: '
                            '%s', shape.name, shape.error)
        return render(fleet)

    def text(self) -> bytes:
        """The five families; nothing when the database fails (the
        capacity metrics' openstack_placement_up says so)."""
        try:
            return self.shared.get()
        except Exception as exc:
            LOG.warning('Free capacity metrics unavailable: %s', exc)
            return b''
