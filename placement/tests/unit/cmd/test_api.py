"""placement-api's embedded mode: the defaults with no database set."""
import contextlib
import gc
import io
import os
import unittest

from placement.cmd import api
from placement import wsgi
from placement.wsgi import startup


class EmbeddedDefaultsTest(unittest.TestCase):

    def _conf(self, env=None):
        for name, value in (env or {}).items():
            old = os.environ.get(name)
            os.environ[name] = value
            self.addCleanup(self._restore, name, old)
        return wsgi.load_config([], default_config_files=[])

    @staticmethod
    def _embed(conf):
        with contextlib.redirect_stderr(io.StringIO()) as err:
            api._embedded_defaults(conf)
        return err.getvalue()

    @staticmethod
    def _restore(name, old):
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old

    def test_no_connection_means_sqlite_noauth2_and_sync(self):
        conf = self._conf()
        self.assertIn('embedded mode', self._embed(conf))
        self.assertEqual('sqlite:///%s' % os.path.abspath('placement.sqlite'),
                         conf.placement_database.connection)
        self.assertTrue(conf.placement_database.sync_on_startup)
        self.assertEqual('noauth2', conf.api.auth_strategy)

    def test_the_environment_still_chooses_keystone(self):
        conf = self._conf({'OS_API__AUTH_STRATEGY': 'keystone'})
        self._embed(conf)
        self.assertEqual('keystone', conf.api.auth_strategy)

    def test_a_configured_database_is_not_embedded_mode(self):
        conf = self._conf({'OS_PLACEMENT_DATABASE__CONNECTION':
                           'mysql+pymysql://u:p@db/placement'})
        self._embed(conf)
        self.assertEqual('mysql+pymysql://u:p@db/placement',
                         conf.placement_database.connection)
        self.assertFalse(conf.placement_database.sync_on_startup)
        self.assertEqual('keystone', conf.api.auth_strategy)

    def test_host_and_port_options(self):
        args, rest = api._parse(['--port', '9000', '--config-file', 'x'])
        self.assertEqual((api.DEFAULT_HOST, 9000), (args.host, args.port))
        self.assertEqual(['--config-file', 'x'], rest)


class StartupMemoryTest(unittest.TestCase):

    def test_what_starting_built_is_frozen_for_the_workers(self):
        self.addCleanup(gc.unfreeze)
        gc.unfreeze()
        self.assertEqual(0, gc.get_freeze_count())
        kept = [[] for _ in range(10)]
        wsgi._freeze_startup_objects()
        self.assertGreaterEqual(gc.get_freeze_count(), len(kept))


class MissingSchemaMessageTest(unittest.TestCase):

    def test_names_the_database_without_its_password(self):
        message = startup.missing_schema_message(
            'mysql+pymysql://placement:s3cret@db.example/placement')
        self.assertNotIn('s3cret', message)
        self.assertIn('mysql+pymysql://placement:***@db.example/placement',
                      message)
        for words in ('placement-manage db sync', 'sync_on_startup = True',
                      'table resource_classes does not exist'):
            self.assertIn(words, message)
