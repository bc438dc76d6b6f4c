"""The database probe of /healthcheck: its verdicts and its bound."""
import threading
import unittest

from oslo_config import cfg
import sqlalchemy as sa

from placement import conf as placement_conf
from placement.db import health
from placement import healthcheck


class AnswerTest(unittest.TestCase):

    def test_a_server_without_galera_is_ready(self):
        self.assertTrue(health.Answer(node='db:3306').is_ready)
        self.assertTrue(health.Answer().is_ready)

    def test_galera_wants_synced_and_primary(self):
        self.assertTrue(health.Answer('g1:3306', 'Synced',
                                      'Primary').is_ready)
        self.assertFalse(health.Answer('g1:3306', 'Donor/Desynced',
                                       'Primary').is_ready)
        self.assertFalse(health.Answer('g1:3306', 'Synced',
                                       'non-Primary').is_ready)

    def test_reasons_name_the_node_and_state_not_the_version(self):
        self.assertEqual('database OK', healthcheck.answer_reason(
            health.Answer()))
        self.assertEqual('database OK: node db:3306',
                         healthcheck.answer_reason(
                             health.Answer(node='db:3306')))
        self.assertEqual(
            'database not ready: node g3:3306 is Joining, cluster Primary',
            healthcheck.answer_reason(
                health.Answer('g3:3306', 'Joining', 'Primary')))


class ProbeTest(unittest.TestCase):

    def test_sqlite_answers(self):
        engine = health.probe_engine('sqlite://', 2.0)
        self.assertEqual(None, health.run_probe(engine).node)

    def test_a_refused_connection_is_named_by_its_kind(self):
        engine = health.probe_engine(
            'mysql+pymysql://nobody@127.0.0.1:1/placement', 2.0)
        probe = health.BoundedProbe(lambda: health.run_probe(engine), 30)
        with self.assertRaises(health.NoAnswer) as caught:
            probe.check()
        self.assertEqual('database unavailable: lost connection',
                         caught.exception.reason)

    def test_a_probe_that_hangs_is_abandoned_and_not_repeated(self):
        release = threading.Event()
        calls = []

        def hanging():
            calls.append(1)
            release.wait()
            return health.Answer()
        probe = health.BoundedProbe(hanging, 0.01)
        for _ in range(3):
            with self.assertRaises(health.NoAnswer) as caught:
                probe.check()
            self.assertIn('no answer within', caught.exception.reason)
        # The later checks waited for the same probe.
        self.assertEqual(1, len(calls))
        release.set()
        probe.bound = 60
        # Answered again once the database is back.
        self.assertEqual(health.Answer(), probe.check())

    def test_connection_parameters_reach_the_url(self):
        engine = health.probe_engine('sqlite:///x.db', 1.0, 'timeout=3')
        self.assertEqual('3', engine.url.query['timeout'])
        self.assertIsInstance(engine.pool, sa.pool.NullPool)


class NoDatabaseTest(unittest.TestCase):

    def test_a_service_without_a_database_url_is_unavailable(self):
        conf = cfg.ConfigOpts()
        placement_conf.register_opts(conf)
        conf([], project='placement', default_config_files=[])
        result = healthcheck.DatabaseHealthcheck(conf, {}).healthcheck(80)
        self.assertFalse(result.available)
        self.assertEqual('no database configured', result.reason)
