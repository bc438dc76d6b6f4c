"""The multiprocess directory: which files a start removes."""
import os
import subprocess
import tempfile
import unittest

from oslo_config import cfg

from placement import conf as placement_conf
from placement.metrics import process


def _dead_pid():
    child = subprocess.Popen(['true'])
    child.wait()
    return child.pid


class StaleFilesTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = tempfile.mkdtemp()

    def touch(self, *names):
        for name in names:
            open(os.path.join(self.directory, name), 'w').close()

    def test_files_of_an_earlier_start_are_stale(self):
        dead = _dead_pid()
        self.touch('counter_%d.db' % dead, 'histogram_%d.db' % dead,
                   'capacity.prom')
        self.assertEqual(['counter_%d.db' % dead, 'histogram_%d.db' % dead],
                         process.stale_files(self.directory, os.getpid()))

    def test_nothing_is_stale_while_a_worker_runs(self):
        # A worker of a server that loads the application in each worker
        # starts while the others serve: their counters must stay.
        self.touch('counter_%d.db' % _dead_pid(),
                   'counter_%d.db' % os.getppid())
        self.assertEqual([], process.stale_files(self.directory,
                                                 os.getpid()))

    def test_own_files_are_not_stale(self):
        self.touch('counter_%d.db' % os.getpid())
        self.assertEqual([], process.stale_files(self.directory,
                                                 os.getpid()))


class DefaultDirectoryTest(unittest.TestCase):

    def conf(self, url):
        conf = cfg.ConfigOpts()
        placement_conf.register_opts(conf)
        conf([], project='placement', default_config_files=[])
        conf.set_override('connection', url, group='placement_database')
        return conf

    def test_one_directory_per_service(self):
        one = process.default_directory(self.conf('sqlite:///a'))
        self.assertEqual(one, process.default_directory(
            self.conf('sqlite:///a')))
        self.assertNotEqual(one, process.default_directory(
            self.conf('sqlite:///b')))
