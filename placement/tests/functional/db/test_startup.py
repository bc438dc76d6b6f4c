"""Starting the app with sync_on_startup: workers starting together
migrate an empty database once and seed the standard rows once; the
migration runs in a child process, so the serving process never loads
alembic (nor, with noauth2, keystonemiddleware). Without sync_on_startup,
a database without the schema stops placement-api and uwsgi with one
line naming ``placement-manage db sync``, not a traceback."""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import os_resource_classes
import os_traits
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement import deploy
from placement.tests.functional.db import base
from placement.testing import app
from placement.testing import uwsgi

TIMEOUT = 120
VENV_BIN = os.path.dirname(sys.executable)


def _run_in_empty_config_dir(argv, url):
    """(exit status, stdout + stderr) of ``argv`` configured only by
    OS_PLACEMENT_DATABASE__CONNECTION=url (and noauth2), in a temporary
    directory with an empty placement.conf."""
    here = tempfile.mkdtemp(prefix='placement-start-')
    try:
        open(os.path.join(here, 'placement.conf'), 'w').close()
        env = {name: value for name, value in os.environ.items()
               if not name.startswith(('OS_API__', 'OS_PLACEMENT'))}
        env.update(OS_PLACEMENT_CONFIG_DIR=here,
                   OS_PLACEMENT_DATABASE__CONNECTION=url,
                   OS_API__AUTH_STRATEGY='noauth2')
        done = subprocess.run(
            argv, cwd=here, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=TIMEOUT)
    finally:
        shutil.rmtree(here, ignore_errors=True)
    return done.returncode, done.stdout


class _StartupTests:

    def _start_workers(self, url, count):
        errors = []

        def start():
            conf = app.make_conf(url, **{
                'placement_database.sync_on_startup': True})
            try:
                db = db_api.create_database(conf)
                deploy.loadapp(conf, db=db)
                db.dispose()
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=start) for _ in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return errors

    def _counts(self, db):
        with db_api.reader(db) as conn:
            return tuple(conn.execute(
                sa.select(sa.func.count()).select_from(table)).scalar()
                for table in (models.resource_classes, models.traits))

    def test_workers_starting_together_migrate_and_seed_once(self):
        url = self.new_url()
        self.assertEqual([], self._start_workers(url, 3))
        db = self.new_database(url)
        self.assertEqual(migration.head_revision(), migration.version(db))
        self.assertEqual((len(os_resource_classes.STANDARDS),
                          len(os_traits.get_traits())), self._counts(db))

    def test_standard_class_ids_are_their_index(self):
        url = self.new_url()
        self.assertEqual([], self._start_workers(url, 1))
        with db_api.reader(self.new_database(url)) as conn:
            rows = dict(conn.execute(sa.select(
                models.resource_classes.c.name,
                models.resource_classes.c.id)).tuples().all())
        for index, name in enumerate(os_resource_classes.STANDARDS):
            self.assertEqual(index, rows[name], name)

    def test_a_restart_changes_nothing(self):
        url = self.new_url()
        self.assertEqual([], self._start_workers(url, 1))
        db = self.new_database(url)
        before = self._counts(db)
        self.assertEqual([], self._start_workers(url, 2))
        self.assertEqual(before, self._counts(db))

    def test_a_failed_migration_stops_the_start(self):
        url = self.new_url()
        db = self.new_database(url)
        with db.writer.begin() as conn:
            conn.execute(sa.text('CREATE TABLE alembic_version '
                                 '(version_num VARCHAR(32) NOT NULL)'))
            conn.execute(sa.text(
                "INSERT INTO alembic_version VALUES ('f00dfeedbeef')"))
        conf = app.make_conf(url, **{
            'placement_database.sync_on_startup': True})
        with self.assertRaises(migration.MigrationFailed) as caught:
            deploy.loadapp(conf, db=db)
        self.assertIn('f00dfeedbeef', str(caught.exception))
        # The parent's pool is still usable after the child exited.
        with db_api.reader(db) as conn:
            self.assertEqual(1, conn.execute(sa.text('SELECT 1')).scalar())


def _uwsgi(test, url, *env, lazy=False):
    """(exit status, output) of uwsgi --need-app loading the application
    on ``url`` (``env``: more NAME=VALUE for the environment), in the
    master or (``lazy``, as etc/placement/placement-uwsgi.ini does) in
    the worker."""
    binary = os.path.join(VENV_BIN, 'uwsgi')
    if not os.path.exists(binary):
        test.skipTest('uwsgi is not installed')
    return _run_in_empty_config_dir(
        ['env'] + list(env) + [
            binary, '--master', '--need-app', '--die-on-term',
            '--http-socket', '127.0.0.1:%d' % uwsgi.free_port(),
            '--module', 'placement.wsgi.api:application',
            '--processes', '1', '--home', os.path.dirname(VENV_BIN)]
        + (['--lazy-apps'] if lazy else []), url)


class _MissingSchemaTests:
    """A configured database that was never synced."""

    def _assert_one_line(self, output, prefix):
        self.assertNotIn('Traceback', output)
        lines = [line for line in output.splitlines()
                 if 'placement-manage db sync' in line]
        self.assertEqual(1, len(lines), output)
        self.assertIn(prefix, lines[0])
        for words in ('has no placement tables', 'resource_classes',
                      '[placement_database] sync_on_startup = True'):
            self.assertIn(words, lines[0])

    def test_placement_api_says_db_sync_in_one_line(self):
        script = os.path.join(VENV_BIN, 'placement-api')
        if not os.path.exists(script):
            self.skipTest('placement-api is not installed')
        code, output = _run_in_empty_config_dir(
            [sys.executable, script, '--port', '0'], self.new_url())
        self.assertEqual(1, code, output)
        self._assert_one_line(output, 'placement-api: error: the database ')
        self.assertEqual(1, len(output.splitlines()), output)

    def test_uwsgi_fails_the_load_with_one_line(self):
        url = self.new_url()
        for lazy in (False, True):
            code, output = _uwsgi(self, url, lazy=lazy)
            # uwsgi's own status for --need-app without an application.
            self.assertEqual(22, code, output)
            self._assert_one_line(output, 'CRITICAL placement.wsgi.api [-] '
                                          'Cannot start: the database ')
            self.assertIn('no app loaded', output)


class UwsgiConfigErrorTest(unittest.TestCase):

    def test_keystone_without_its_options_is_one_line(self):
        handle, path = tempfile.mkstemp(suffix='.db')
        os.close(handle)
        self.addCleanup(os.unlink, path)
        url = 'sqlite:///%s' % path
        db = db_api.create_database(app.make_conf(url))
        migration.upgrade(db)
        db.dispose()
        code, output = _uwsgi(self, url, 'OS_API__AUTH_STRATEGY=keystone')
        self.assertEqual(22, code, output)
        self.assertNotIn('Traceback', output)
        lines = [line for line in output.splitlines()
                 if 'Cannot start' in line]
        self.assertEqual(1, len(lines), output)
        self.assertIn('[keystone_authtoken]', lines[0])


globals().update(base.per_backend(_StartupTests))
globals().update(base.per_backend(_MissingSchemaTests))


class ServingProcessImportsTest(unittest.TestCase):

    def test_no_migration_or_keystone_code_in_the_serving_process(self):
        handle, path = tempfile.mkstemp(suffix='.db')
        os.close(handle)
        self.addCleanup(os.unlink, path)
        # (oslo.db's engine factory, and the SQLAlchemy ORM it imports,
        # are loaded on purpose: the engine is made by it, issue 23.)
        self.assertEqual([], app.modules_after_loading(
            path, ['alembic', 'mako', 'keystonemiddleware', 'keystoneauth1',
                   'keystoneclient']))
        db = db_api.create_database(app.make_conf('sqlite:///%s' % path))
        self.addCleanup(db.dispose)
        self.assertEqual(migration.head_revision(), migration.version(db))
