"""tools/bench table: the figures of two ``bench all`` runs."""
import os
import tempfile
import unittest

from tools.benchlib import table

FLAT = """\
## tools/bench candidates ... (12:00:00)
flat N=1000 results | ours median/p95 ms | other median/p95 ms | ratio
flat 250 | 4.0 / 5.0 | 40.0 / 90.0 | 10.0x
flat limit=10 10 | 2.0 / 3.0 | 30.0 / 80.0 | 15.0x
# flat at concurrency 10: 400.0 vs 40.0 req/s
# ours worker MiB (PSS now): 30, 32
# other worker MiB (PSS now): 80, 64
"""
ROUTES = """\
route | ours ms [p95] | other ms [p95] | ratio | cpu ms ours/other
GET {rp}/traits | 1.0 [ 2.4] | 3.0 [ 5.3] | 3.00x | 0.80/2.40 3.00x
GET /resource_providers c=10 | 300.0 req/s | 50.0 req/s | 6.00x
"""
CLAIMS = """\
claims granted   320 (%s claims/s)
server cpu       %s ms per request (364 requests)
over-commit      %s units on 0 providers []
"""


class TestTable(unittest.TestCase):

    def _run(self, scale):
        directory = tempfile.mkdtemp()
        self.addCleanup(lambda: [os.remove(os.path.join(directory, name))
                                 for name in os.listdir(directory)])
        files = {'mysql-candidates-flat.txt': FLAT, 'mysql-routes.txt': ROUTES,
                 'mysql-claims-ours-1.txt': CLAIMS % (500 * scale, 2, 0),
                 'mysql-claims-upstream-1.txt': CLAIMS % (50, 20, 7)}
        for name, text in files.items():
            with open(os.path.join(directory, name), 'w') as handle:
                handle.write(text)
        return table.run_figures(directory)

    def test_every_figure_is_read(self):
        figures, order = self._run(1)
        self.assertEqual((4.0, 40.0, table.TIME),
                         figures[('mysql candidates flat',
                                  'flat @1000: median ms')])
        self.assertEqual((32, 80, table.MEMORY), figures[(
            'mysql candidates flat', 'worker PSS MiB @1000')])
        self.assertEqual((0.8, 2.4, table.TIME), figures[(
            'mysql routes', 'GET {rp}/traits: server cpu ms')])
        self.assertEqual((300.0, 50.0, table.RATE), figures[(
            'mysql routes', 'GET /resource_providers c=10: req/s')])
        self.assertEqual((0, 7, table.COUNT), figures[(
            'mysql claims', 'claims over-commit units (sum of runs)')])
        self.assertEqual(10, len(order))

    def test_ratios_read_each_kind_of_figure(self):
        self.assertEqual('10.0x', table.ratio(4.0, 40.0, table.TIME))
        self.assertEqual('6.00x', table.ratio(300, 50, table.RATE))
        self.assertEqual('0.38x', table.ratio(30, 80, table.MEMORY))
        self.assertEqual('-', table.ratio(0, 7, table.COUNT))

    def test_render_compares_ours_after_with_ours_before(self):
        text = table.render(self._run(1), self._run(2))
        self.assertIn('| claims/s (mean of runs) | 500.0 | 50.0 | 10.0x | '
                      '1000 | 50.0 | 20.0x | 2.00x |', text)
        self.assertIn('| **mysql routes** |', text)

    def test_render_ab_puts_after_beside_before(self):
        text = table.render_ab(self._run(1))
        self.assertIn('| figure | after | before | after/before |', text)
        self.assertIn('| flat @1000: median ms | 4 | 40.0 | 0.10x |', text)
        self.assertIn('| claims over-commit units (sum of runs) | 0 | 7 | - |',
                      text)
        self.assertIn('| **mysql claims** | | | |', text)
