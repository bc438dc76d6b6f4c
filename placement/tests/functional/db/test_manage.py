"""placement-manage against every backend, with a real config file."""
import sqlalchemy as sa

from placement.cmd import manage
from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement.tests.functional.db import base
from placement.tests.functional.db import cli

HEAD = 'a082b8bb98d0'
INCOMPLETE = '00000000-0000-0000-0000-000000000000'


def _uuid(char):
    return char * 8 + '-' + char * 4 + '-' + char * 4 + '-' + char * 4 + \
        '-' + char * 12


class _ManageTests:

    def setUp(self):
        super().setUp()
        self.url = self.new_url()
        self.conf_path = cli.write_config(self, self.url)

    def manage(self, *argv):
        return cli.run(manage.main, ['--config-file', self.conf_path] +
                       list(argv))

    def database(self):
        return self.new_database(self.url)

    def seed_incomplete_data(self):
        """Two providers without root ids (a parent and its child) and
        allocations of two consumers that have no consumers row."""
        db = self.database()
        migration.upgrade(db)
        rp = models.resource_providers
        with db_api.transaction(db) as conn:
            parent = conn.execute(sa.insert(rp).values(
                uuid=_uuid('1'), name='parent', generation=0)
            ).inserted_primary_key[0]
            conn.execute(sa.insert(rp).values(
                uuid=_uuid('2'), name='child', generation=0,
                parent_provider_id=parent))
            conn.execute(sa.insert(models.allocations), [
                {'resource_provider_id': parent, 'consumer_id': uuid,
                 'resource_class_id': rc, 'used': 1}
                for uuid, rc in ((_uuid('a'), 0), (_uuid('a'), 1),
                                 (_uuid('b'), 0))])
        return db

    def test_sync_creates_the_schema_and_version_prints_head(self):
        self.assertEqual(0, self.manage('db', 'sync')[0])
        code, out, _err = self.manage('db', 'version')
        self.assertEqual((0, HEAD + '\n'), (code, out))

    def test_sync_twice_is_a_no_op(self):
        self.assertEqual(0, self.manage('db', 'sync')[0])
        self.assertEqual(0, self.manage('db', 'sync')[0])
        self.assertEqual(HEAD, migration.version(self.database()))

    def test_sync_says_which_revisions_it_applies(self):
        code, out, err = self.manage('db', 'sync')
        self.assertEqual((0, ''), (code, err))
        lines = out.splitlines()
        self.assertEqual('Upgrading the database from an empty schema to '
                         '%s (head):' % HEAD, lines[0])
        self.assertEqual(['b4ed3a175331', '611cd6dffd7b', 'b5c396305c25',
                          '422ece571366', HEAD],
                         [line.split()[0] for line in lines[1:-1]])
        self.assertIn('Initial schema', lines[1])
        self.assertEqual('Done: the database is at %s; 5 revisions applied.'
                         % HEAD, lines[-1])
        code, out, _err = self.manage('db', 'sync')
        self.assertEqual((0, 'The database is already at head (%s): '
                             'nothing to upgrade.\n' % HEAD), (code, out))

    def test_sync_from_a_stamp_lists_the_rest(self):
        migration.upgrade(self.database(), '422ece571366')
        _code, out, _err = self.manage('db', 'sync')
        self.assertEqual(
            ['Upgrading the database from 422ece571366 to %s (head):' % HEAD,
             '  %s  Drop the non-unique indexes that duplicate unique '
             'constraints.' % HEAD,
             'Done: the database is at %s; 1 revision applied.' % HEAD],
            out.splitlines())

    def test_sync_writes_the_standard_classes_and_traits(self):
        self.manage('db', 'sync')
        with db_api.reader(self.database()) as conn:
            classes = set(conn.execute(sa.select(
                models.resource_classes.c.name)).scalars())
        self.assertIn('VCPU', classes)

    def test_commands_on_a_database_without_tables_say_db_sync(self):
        for argv in (['audit'], ['allocation_candidates', 'explain',
                                 'resources=VCPU:1']):
            code, out, err = self.manage(*argv)
            self.assertEqual(1, code, argv)
            self.assertEqual(
                'placement-manage: error: the database has no placement '
                'tables yet: run "placement-manage db sync" first\n', err)
            self.assertEqual('', out)

    def test_commands_on_an_old_schema_say_db_sync(self):
        migration.upgrade(self.database(), '422ece571366')
        code, _out, err = self.manage('audit')
        self.assertEqual(1, code)
        self.assertIn('the database schema is at 422ece571366, behind this '
                      'release (%s): run "placement-manage db sync" first'
                      % HEAD, err)

    def test_explain_without_standard_rows_says_how_to_get_them(self):
        migration.upgrade(self.database())
        code, _out, err = self.manage('allocation_candidates', 'explain',
                                      'resources=VCPU:1')
        self.assertEqual(1, code)
        self.assertIn('No such resource class VCPU. VCPU is standard, but '
                      'this database has no row for it yet', err)
        self.assertIn('placement-manage db sync', err)
        self.assertEqual(0, self.manage('db', 'sync')[0])
        code, out, _err = self.manage('allocation_candidates', 'explain',
                                      'resources=VCPU:1')
        self.assertEqual(0, code)
        self.assertIn('Providers: 0 in 0 trees', out)

    def test_version_of_an_empty_database(self):
        code, out, _err = self.manage('db', 'version')
        self.assertEqual((0, 'None\n'), (code, out))

    def test_stamp_then_sync_from_there(self):
        code, _out, _err = self.manage('db', 'stamp', 'b4ed3a175331')
        self.assertEqual(0, code)
        self.assertEqual('b4ed3a175331\n', self.manage('db', 'version')[1])

    def test_stamp_unknown_revision_is_a_clear_error(self):
        code, _out, err = self.manage('db', 'stamp', 'deadbeef')
        self.assertEqual(1, code)
        self.assertIn('deadbeef', err)
        self.assertNotIn('Traceback', err)

    def test_sync_blocked_by_data_is_one_line_error(self):
        db = self.database()
        migration.upgrade(db, 'b4ed3a175331')
        with db_api.transaction(db) as conn:
            conn.execute(sa.text(
                "INSERT INTO resource_providers (uuid, name, generation) "
                "VALUES ('%s', 'rp', 0)" % _uuid('3')))
        code, _out, err = self.manage('db', 'sync')
        self.assertEqual(1, code)
        self.assertIn('online_data_migrations', err)
        self.assertEqual(1, len(err.strip().splitlines()))

    def test_online_migrations_fix_real_rows(self):
        db = self.seed_incomplete_data()
        code, out, _err = self.manage('db', 'online_data_migrations')
        self.assertEqual(0, code, out)
        self.assertIn('Running batches of 50 until complete', out)
        self.assertIn('2 rows matched query set_root_provider_ids, '
                      '2 migrated', out)
        self.assertIn('2 rows matched query create_incomplete_consumers, '
                      '2 migrated', out)
        self.assertRegex(out, r'\|\s+Migration\s+\|\s+Total Found\s+\|'
                              r'\s+Completed\s+\|')
        rp = models.resource_providers
        with db_api.reader(db) as conn:
            roots = dict(conn.execute(sa.select(
                rp.c.name, rp.c.root_provider_id)).tuples().all())
            parent_id = conn.execute(sa.select(rp.c.id).where(
                rp.c.name == 'parent')).scalar()
            consumers = conn.execute(sa.select(
                models.consumers.c.uuid, models.consumers.c.generation,
                models.projects.c.external_id).join(
                models.projects,
                models.projects.c.id == models.consumers.c.project_id)
            ).all()
        self.assertEqual({'parent': parent_id, 'child': parent_id}, roots)
        self.assertEqual([(_uuid('a'), 0, INCOMPLETE),
                          (_uuid('b'), 0, INCOMPLETE)], sorted(consumers))

    def test_online_migrations_with_nothing_to_do(self):
        migration.upgrade(self.database())
        code, out, _err = self.manage('db', 'online_data_migrations')
        self.assertEqual(0, code)
        self.assertNotIn('rows matched', out)
        self.assertIn('set_root_provider_ids', out)

    def test_max_count_limits_one_batch_and_exits_1(self):
        self.seed_incomplete_data()
        code, out, _err = self.manage('db', 'online_data_migrations',
                                      '--max-count', '1')
        self.assertEqual(1, code)
        self.assertIn('1 row matched query set_root_provider_ids, '
                      '1 migrated', out)
        self.assertNotIn('create_incomplete_consumers', out)
        # Run again until done: each call makes progress.
        codes = [self.manage('db', 'online_data_migrations',
                             '--max-count', '1')[0] for _ in range(4)]
        self.assertEqual([1, 1, 1, 0], codes)

    def test_max_count_must_be_positive(self):
        for value in ('x', '0', '-3'):
            code, out, _err = self.manage('db', 'online_data_migrations',
                                          '--max-count', value)
            self.assertEqual(127, code, value)
            self.assertEqual('Must supply a positive value for max_count\n',
                             out)

    def test_failing_migration_exits_2(self):
        db = self.seed_incomplete_data()
        with db_api.transaction(db) as conn:
            conn.execute(sa.text('DROP TABLE consumers'))
        code, out, _err = self.manage('db', 'online_data_migrations')
        self.assertEqual(2, code)
        self.assertIn('Some migrations failed unexpectedly. Check log for '
                      'details.', out)


class ManageWithoutDatabaseTests(base.unittest.TestCase):
    """The arguments and configuration errors need no database."""
    # (No database configured: test_api_command.EmbeddedAdminCommandsTest
    # runs the commands as processes in a temporary directory.)

    def test_no_arguments_lists_the_categories(self):
        code, out, _err = cli.run(manage.main, [])
        self.assertEqual(1, code)
        self.assertIn('db', out)
        self.assertIn('usage: placement-manage', out)

    def test_category_alone_lists_its_commands(self):
        code, out, _err = cli.run(manage.main, ['db'])
        self.assertEqual(1, code)
        for command in ('sync', 'version', 'stamp',
                        'online_data_migrations'):
            self.assertIn(command, out)

    def test_missing_config_file_is_one_clear_line(self):
        code, _out, err = cli.run(manage.main, [
            '--config-file', '/nonexistent/placement.conf', 'db', 'sync'])
        self.assertEqual(1, code)
        self.assertIn('/nonexistent/placement.conf', err)
        self.assertNotIn('Traceback', err)

    def test_stamp_needs_a_revision(self):
        code, _out, err = cli.run(manage.main, ['db', 'stamp'])
        self.assertEqual(2, code)
        self.assertIn('version', err)


globals().update(base.per_backend(_ManageTests))
