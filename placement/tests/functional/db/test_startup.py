"""Starting the app with sync_on_startup: workers starting together
migrate an empty database once and seed the standard rows once; the
migration runs in a child process, so the serving process never loads
alembic (nor, with noauth2, keystonemiddleware)."""
import os
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


globals().update(base.per_backend(_StartupTests))


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
