"""The workers' metrics files as /metrics merges them."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

from prometheus_client import multiprocess

from placement.metrics import endpoint

_WORKER = """
from prometheus_client import Counter
Counter('placement_test_requests', 'requests').inc(3)
"""


class WorkerFilesTest(unittest.TestCase):

    def setUp(self):
        self.directory = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.directory)
        # A real worker's file, written by prometheus_client itself.
        subprocess.run([sys.executable, '-c', _WORKER], check=True,
                       env=dict(os.environ,
                                PROMETHEUS_MULTIPROC_DIR=self.directory))
        # A worker that has created its file and not yet sized it.
        open(os.path.join(self.directory, 'counter_999999.db'), 'w').close()

    def _samples(self, collector):
        return {(sample.name, sample.value)
                for family in collector.collect()
                for sample in family.samples}

    def test_the_library_collector_breaks_on_an_empty_file(self):
        collector = multiprocess.MultiProcessCollector(None, self.directory)
        self.assertRaises(struct.error, collector.collect)

    def test_an_empty_file_is_left_out_and_the_rest_merged(self):
        self.assertIn(('placement_test_requests_total', 3.0),
                      self._samples(endpoint.WorkerFiles(self.directory)))
