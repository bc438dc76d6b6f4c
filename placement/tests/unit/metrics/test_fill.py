"""The free-capacity text: os-capacity's names and labels, escaped,
parsed back by prometheus_client's own parser."""
import unittest

from prometheus_client import parser

from placement.metrics import fill as fill_metrics
from placement.objects import fill
from placement.solver import fill as solver_fill

AGG1 = '11111111-1111-1111-1111-111111111111'
AGG2 = '22222222-2222-2222-2222-222222222222'


def _fleet():
    roots = {1: fill.Root('u1', 'cn "1"\\x', (AGG1, AGG2)),
             2: fill.Root('u2', 'cn2')}
    shapes = (
        fill.ShapeFill('m1.large', {1: solver_fill.TreeFill(3, 'VCPU'),
                                    2: solver_fill.TreeFill(1, 'VCPU')}),
        fill.ShapeFill('bad', {}, LookupError('No such trait(s): X.')),
    )
    return fill.Fleet(roots, shapes, trees=((1, 'VCPU', 16, 4),),
                      projects=(('p1', 'VCPU', 4),))


def _samples(text):
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in parser.text_string_to_metric_families(text)
            for sample in family.samples}


class RenderTest(unittest.TestCase):

    def test_five_families_with_their_labels(self):
        found = _samples(fill_metrics.render(_fleet()).decode())
        cn1 = 'cn "1"\\x'
        self.assertEqual({
            ('openstack_free_capacity_by_flavor_total',
             (('flavor_name', 'm1.large'),)): 4.0,
            ('openstack_free_capacity_hypervisor_by_flavor', (
                ('az_aggregate', ''), ('flavor_name', 'm1.large'),
                ('hypervisor', 'cn2'), ('project_aggregate', ''))): 1.0,
            ('openstack_free_capacity_hypervisor_by_flavor', (
                ('az_aggregate', AGG1 + ',' + AGG2),
                ('flavor_name', 'm1.large'), ('hypervisor', cn1),
                ('project_aggregate', AGG1 + ',' + AGG2))): 3.0,
            ('openstack_project_usage', (
                ('placement_resource', 'VCPU'), ('project_id', 'p1'),
                ('project_name', ''))): 4.0,
            ('openstack_hypervisor_placement_allocated', (
                ('hypervisor', cn1), ('resource', 'VCPU'))): 4.0,
            ('openstack_hypervisor_placement_allocatable_capacity', (
                ('hypervisor', cn1), ('resource', 'VCPU'))): 16.0,
        }, found)

    def test_every_family_declared_without_shapes(self):
        text = fill_metrics.render(fill.Fleet({}, ())).decode()
        for name in (fill_metrics.BY_FLAVOR, fill_metrics.BY_HYPERVISOR,
                     fill_metrics.PROJECT_USAGE, fill_metrics.ALLOCATED,
                     fill_metrics.ALLOCATABLE):
            self.assertIn('# TYPE %s gauge\n' % name, text)
