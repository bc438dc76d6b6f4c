"""The capacity text and its cache shared by the worker processes."""
import os
import tempfile
import unittest

from placement.metrics import capacity as capacity_metrics
from placement.objects import capacity


def _row(name='cn1', rc='VCPU', total=8, reserved=1, ratio=4.0, used=3,
         generation=2):
    return capacity.ClassCapacity(name, rc, total, reserved, ratio, used,
                                  generation)


class RenderTest(unittest.TestCase):

    def test_each_gauge_under_the_exporters_name_and_labels(self):
        text = capacity_metrics.render([_row()]).decode()
        for line in (
                'openstack_placement_resource_total'
                '{hostname="cn1",resourcetype="VCPU"} 8',
                'openstack_placement_resource_reserved'
                '{hostname="cn1",resourcetype="VCPU"} 1',
                'openstack_placement_resource_allocation_ratio'
                '{hostname="cn1",resourcetype="VCPU"} 4.0',
                'openstack_placement_resource_usage'
                '{hostname="cn1",resourcetype="VCPU"} 3',
                'openstack_placement_resource_generation'
                '{hostname="cn1",resourcetype="VCPU"} 2',
                '# TYPE openstack_placement_resource_usage gauge'):
            self.assertIn(line, text.splitlines())

    def test_label_values_are_escaped(self):
        text = capacity_metrics.render([_row(name='a"b\\c\nd')]).decode()
        self.assertIn('hostname="a\\"b\\\\c\\nd"', text)

    def test_no_rows_still_declares_the_gauges(self):
        text = capacity_metrics.render([]).decode()
        self.assertIn('# TYPE openstack_placement_resource_total gauge',
                      text)

    def test_up(self):
        self.assertIn(b'openstack_placement_up 1',
                      capacity_metrics.up_text(True))
        self.assertIn(b'openstack_placement_up 0',
                      capacity_metrics.up_text(False))


class SharedTextTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = tempfile.mkdtemp()
        self.calls = []

    def compute(self):
        self.calls.append(1)
        return b'text %d' % len(self.calls)

    def test_computed_once_while_fresh_for_every_reader(self):
        first = capacity_metrics.SharedText(self.directory, 3600,
                                            self.compute)
        other = capacity_metrics.SharedText(self.directory, 3600,
                                            self.compute)
        self.assertEqual(b'text 1', first.get())
        self.assertEqual(b'text 1', other.get())
        self.assertEqual(1, len(self.calls))

    def test_computed_again_once_stale(self):
        shared = capacity_metrics.SharedText(self.directory, 3600,
                                             self.compute)
        shared.get()
        old = os.path.getmtime(shared.path) - 7200
        os.utime(shared.path, (old, old))
        self.assertEqual(b'text 2', shared.get())

    def test_zero_seconds_computes_every_time(self):
        shared = capacity_metrics.SharedText(self.directory, 0,
                                             self.compute)
        shared.get()
        self.assertEqual(b'text 2', shared.get())
        self.assertFalse(os.path.exists(shared.path))
