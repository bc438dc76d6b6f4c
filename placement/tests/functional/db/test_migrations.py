"""The alembic chain on every backend: empty -> head equals the models and
spec/DATABASE.md, a second upgrade is a no-op, the data checks block."""
import threading

from alembic import autogenerate
from alembic import migration as alembic_migration
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement.tests.functional.db import base
from placement.tests.functional.db import schema

CHAIN = ['b4ed3a175331', '611cd6dffd7b', 'b5c396305c25', '422ece571366',
         'a082b8bb98d0']
# Dropped by a082b8bb98d0; present from b4ed3a175331 until then.
REDUNDANT_INDEXES = {
    'inventories': {'inventories_resource_provider_id_idx',
                    'inventories_resource_provider_resource_class_idx'},
    'placement_aggregates': {'ix_placement_aggregates_uuid'},
    'resource_providers': {'resource_providers_name_idx',
                           'resource_providers_uuid_idx'},
}


def _diff(db):
    with db.writer.connect() as conn:
        context = alembic_migration.MigrationContext.configure(
            conn, opts={'compare_type': True,
                        'compare_server_default': True})
        return autogenerate.compare_metadata(context, models.metadata)


def _insert(db, table, **values):
    with db_api.transaction(db) as conn:
        return conn.execute(sa.insert(table).values(**values)
                            ).inserted_primary_key[0]


def _raw_insert(db, table, **values):
    """Insert into a table of an older revision (not the head models)."""
    columns = ', '.join(values)
    params = ', '.join(':%s' % key for key in values)
    with db_api.transaction(db) as conn:
        conn.execute(sa.text('INSERT INTO %s (%s) VALUES (%s)'
                             % (table, columns, params)), values)


class _MigrationTests:

    def test_chain_has_the_deployed_revision_ids_in_order(self):
        revisions = list(migration.script_directory().walk_revisions())
        self.assertEqual(CHAIN, [rev.revision for rev in reversed(revisions)])
        self.assertEqual('a082b8bb98d0', migration.head_revision())

    def test_empty_database_has_no_version(self):
        self.assertIsNone(migration.version(self.new_database()))

    def test_empty_to_head_equals_the_models(self):
        db = self.new_database()
        migration.upgrade(db)
        self.assertEqual('a082b8bb98d0', migration.version(db))
        self.assertEqual([], _diff(db))

    def test_head_has_the_names_of_database_md(self):
        db = self.new_database()
        migration.upgrade(db)
        actual = schema.snapshot(db.writer)
        self.assertEqual(sorted(schema.EXPECTED), sorted(actual))
        for table, expected in schema.EXPECTED.items():
            self.assertEqual(expected, actual[table], table)
        self.assertTrue(schema.NAMED_FOREIGN_KEYS['consumers'] <=
                        schema.foreign_key_names(db.writer, 'consumers'))

    def test_models_create_all_equals_migrated_head(self):
        migrated = self.new_database()
        migration.upgrade(migrated)
        created = self.new_database()
        models.metadata.create_all(created.writer)
        self.assertEqual(schema.snapshot(migrated.writer),
                         schema.snapshot(created.writer))

    def test_second_upgrade_changes_nothing(self):
        db = self.new_database()
        migration.upgrade(db)
        rp_id = _insert(db, models.resource_providers, uuid='a' * 36,
                        name='rp', generation=0)
        before = schema.snapshot(db.writer)
        migration.upgrade(db)
        self.assertEqual(before, schema.snapshot(db.writer))
        self.assertEqual('a082b8bb98d0', migration.version(db))
        with db_api.reader(db) as conn:
            self.assertEqual([rp_id], conn.execute(
                sa.select(models.resource_providers.c.id)).scalars().all())

    def test_each_revision_one_step_at_a_time(self):
        db = self.new_database()
        for revision in CHAIN:
            migration.upgrade(db, revision)
            self.assertEqual(revision, migration.version(db))
        self.assertEqual([], _diff(db))

    def test_initial_revision_has_the_redundant_indexes(self):
        db = self.new_database()
        migration.upgrade(db, 'b4ed3a175331')
        actual = schema.snapshot(db.writer)
        self.assertNotIn('consumer_types', actual)
        self.assertNotIn('consumer_type_id', actual['consumers'][0])
        for table, names in REDUNDANT_INDEXES.items():
            self.assertTrue(names <= set(actual[table][1]), table)

    def test_stamp_records_without_migrating(self):
        db = self.new_database()
        migration.stamp(db, 'b4ed3a175331')
        self.assertEqual('b4ed3a175331', migration.version(db))
        self.assertEqual({}, schema.snapshot(db.writer))

    def test_stamp_head_back_to_initial(self):
        db = self.new_database()
        migration.upgrade(db)
        migration.stamp(db, 'b4ed3a175331')
        self.assertEqual('b4ed3a175331', migration.version(db))

    def test_null_root_provider_id_blocks_upgrade(self):
        db = self.new_database()
        migration.upgrade(db, 'b4ed3a175331')
        _raw_insert(db, 'resource_providers', uuid='b' * 36, name='rp',
                    generation=0)
        with self.assertRaisesRegex(Exception, 'missing its root provider'):
            migration.upgrade(db)
        self.assertEqual('b4ed3a175331', migration.version(db))

    def test_allocation_without_consumer_blocks_upgrade(self):
        db = self.new_database()
        migration.upgrade(db, '611cd6dffd7b')
        _raw_insert(db, 'allocations', resource_provider_id=1,
                    consumer_id='c' * 36, resource_class_id=0, used=1)
        with self.assertRaisesRegex(Exception, 'missing a consumer record'):
            migration.upgrade(db)
        self.assertEqual('611cd6dffd7b', migration.version(db))

    def test_allocation_with_consumer_passes_the_check(self):
        db = self.new_database()
        migration.upgrade(db, '611cd6dffd7b')
        _raw_insert(db, 'allocations', resource_provider_id=1,
                    consumer_id='c' * 36, resource_class_id=0, used=1)
        _raw_insert(db, 'consumers', uuid='c' * 36, project_id=1, user_id=1,
                    generation=0)
        migration.upgrade(db)
        self.assertEqual('a082b8bb98d0', migration.version(db))

    def test_workers_upgrading_at_once_all_succeed(self):
        url = self.new_url()
        databases = [self.new_database(url) for _ in range(4)]
        errors = []

        def run(db):
            try:
                migration.upgrade(db)
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(db,))
                   for db in databases]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        self.assertEqual('a082b8bb98d0', migration.version(databases[0]))
        self.assertEqual([], _diff(databases[0]))


globals().update(base.per_backend(_MigrationTests))
