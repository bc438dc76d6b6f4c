"""placement-status upgrade check against every backend."""
import os
import tempfile

import sqlalchemy as sa

from placement.cmd import status
from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement.tests.functional.db import base
from placement.tests.functional.db import cli


class _StatusTests:

    def setUp(self):
        super().setUp()
        self.url = self.new_url()
        self.db = self.new_database(self.url)
        migration.upgrade(self.db)

    def check(self, extra=''):
        path = cli.write_config(self, self.url, extra)
        return cli.run(status.main, ['--config-file', path, 'upgrade',
                                     'check'])

    def insert(self, table, **values):
        with db_api.transaction(self.db) as conn:
            return conn.execute(sa.insert(table).values(**values)
                                ).inserted_primary_key[0]

    def test_clean_database_passes(self):
        code, out, _err = self.check()
        self.assertEqual(0, code, out)
        self.assertIn('Upgrade Check Results', out)
        for name in ('Missing Root Provider IDs', 'Incomplete Consumers',
                     'Policy File JSON to YAML Migration'):
            self.assertIn('Check: %s' % name, out)
        self.assertNotIn('Warning', out)

    def test_incomplete_consumers_warn(self):
        for consumer in ('c' * 36, 'c' * 36, 'd' * 36):
            self.insert(models.allocations, resource_provider_id=1,
                        consumer_id=consumer, resource_class_id=0, used=1)
        code, out, _err = self.check()
        self.assertEqual(1, code, out)
        self.assertIn('Result: Warning', out)
        self.assertIn('There are 2 incomplete consumers table records',
                      out)

    def test_missing_root_provider_id_fails(self):
        self.insert(models.resource_providers, uuid='e' * 36, name='rp',
                    generation=0)
        code, out, _err = self.check()
        self.assertEqual(2, code, out)
        self.assertIn('Result: Failure', out)
        self.assertIn('misses its root provider id', out)

    def test_json_policy_file_fails(self):
        handle, path = tempfile.mkstemp(suffix='.json')
        with os.fdopen(handle, 'w') as policy_file:
            policy_file.write('{"placement:resource_providers:list": ""}')
        self.addCleanup(os.unlink, path)
        code, out, _err = self.check(
            '[oslo_policy]\npolicy_file = %s\n' % path)
        self.assertEqual(2, code, out)
        self.assertIn('JSON-formatted', out)

    def test_unexpected_error_is_255(self):
        with db_api.transaction(self.db) as conn:
            conn.execute(sa.text('DROP TABLE resource_provider_traits'))
            conn.execute(sa.text('DROP TABLE resource_providers'))
        code, out, _err = self.check()
        self.assertEqual(255, code, out)

    def test_timeouts_past_the_budget_are_one_line(self):
        code, out, err = self.check('retry_budget = 20\nread_timeout = 15\n')
        self.assertEqual(255, code, out)
        self.assertIn('read_timeout = 15: longer than half of retry_budget',
                      err)
        self.assertNotIn('Traceback', out + err)


class StatusWithoutDatabaseTests(base.unittest.TestCase):
    # (No database configured: test_api_command.EmbeddedAdminCommandsTest
    # runs the commands as processes in a temporary directory.)

    def test_no_arguments_print_usage(self):
        code, _out, err = cli.run(status.main, [])
        self.assertNotEqual(0, code)
        self.assertIn('upgrade', err)


globals().update(base.per_backend(_StatusTests))
