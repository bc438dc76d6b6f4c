"""placement-manage audit (and the status item) against every backend.

Each finding is made the way it happens in life: through the API where
the API allows it (an inventory shrunk below its usage, or its reserved
amount raised), else with the SQL a writer leaves when it stops halfway
or a partial restore leaves (an old release's rows, a clean-up script
that deleted one table of two). Then the command runs in-process with a
real configuration file.
"""
import datetime
import json

import sqlalchemy as sa
import webob

from placement.cmd import audit as audit_cmd
from placement.cmd import manage
from placement.cmd import status
from placement.db import api as db_api
from placement.db import backend
from placement.db import models
from placement import deploy
from placement.objects import audit
from placement.tests.functional.db import base
from placement.tests.functional.db import cli
from placement.testing import app as app_fixture

INCOMPLETE = '00000000-0000-0000-0000-000000000000'
RP1 = '11111111-1111-1111-1111-111111111111'
RP2 = '22222222-2222-2222-2222-222222222222'
RP3 = '33333333-3333-3333-3333-333333333333'
C1 = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'
C2 = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'


class _AuditTests:

    def setUp(self):
        super().setUp()
        self.url = self.new_url()
        conf = app_fixture.make_conf(self.url)
        self.db = self.new_database(self.url)
        app_fixture.create_schema(self.db)
        self.app = deploy.loadapp(conf, db=self.db)
        self.conf_path = cli.write_config(self, self.url)

    # --- helpers -------------------------------------------------------------

    def api(self, method, path, body=None, version='1.39'):
        req = webob.Request.blank(path, method=method)
        req.headers['x-auth-token'] = 'admin'
        req.headers['openstack-api-version'] = 'placement %s' % version
        req.headers['accept'] = 'application/json'
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        resp = req.get_response(self.app)
        return resp.status_int, (resp.json if resp.body else None)

    def provider(self, rp_uuid, name, inventories=None, parent=None):
        body = {'uuid': rp_uuid, 'name': name}
        if parent:
            body['parent_provider_uuid'] = parent
        self.assertEqual(200, self.api('POST', '/resource_providers',
                                       body)[0])
        if inventories:
            status, answer = self.api(
                'PUT', '/resource_providers/%s/inventories' % rp_uuid,
                {'resource_provider_generation': 0,
                 'inventories': inventories})
            self.assertEqual(200, status, answer)

    def allocate(self, consumer, rp_uuid, resources):
        status, answer = self.api('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp_uuid: {'resources': resources}},
            'project_id': 'proj', 'user_id': 'user',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        self.assertEqual(204, status, answer)

    def compute_node_in_use(self):
        """RP1 with 8 VCPU and 1024 MEMORY_MB; C1 uses 6 VCPU, 512 MB."""
        self.provider(RP1, 'cn1', {'VCPU': {'total': 8},
                                   'MEMORY_MB': {'total': 1024}})
        self.allocate(C1, RP1, {'VCPU': 6, 'MEMORY_MB': 512})

    def sql(self, statement, **params):
        with db_api.transaction(self.db) as conn:
            conn.execute(sa.text(statement), params)

    def rp_id(self, rp_uuid):
        rp = models.resource_providers
        with db_api.reader(self.db) as conn:
            return conn.execute(sa.select(rp.c.id).where(
                rp.c.uuid == rp_uuid)).scalar()

    def run_audit(self, *args):
        return cli.run(manage.main, ['--config-file', self.conf_path,
                                     'audit'] + list(args))

    def audit_json(self, *args):
        code, out, err = self.run_audit('--format', 'json', *args)
        document = json.loads(out)
        self.assertEqual(code, document['exit_code'], err)
        return document

    def checks(self, document):
        return [(finding['check'], finding['subject'])
                for finding in document['findings']]

    # --- clean data and output shapes -------------------------------------

    def test_clean_database_exits_0(self):
        self.compute_node_in_use()
        code, out, err = self.run_audit()
        self.assertEqual((0, 'No inconsistencies found.\n'), (code, out),
                         err)
        self.assertEqual({'findings': [], 'summary': {
            'failures': 0, 'warnings': 0, 'repaired': 0}, 'exit_code': 0},
            self.audit_json())

    def test_inventory_shrunk_below_usage_through_the_api_warns(self):
        self.compute_node_in_use()
        # The API accepts a smaller total (it only logs a warning).
        status, answer = self.api(
            'PUT', '/resource_providers/%s/inventories/VCPU' % RP1,
            {'resource_provider_generation': 2, 'total': 4})
        self.assertEqual(200, status, answer)
        code, out, _err = self.run_audit()
        self.assertEqual(1, code, out)
        self.assertIn('over_capacity', out)
        self.assertIn('VCPU: 6 used > capacity 4 = (4 - 0) x 1.0', out)
        self.assertIn('0 failures, 1 warning.', out)

    def test_reserved_raised_above_free_through_the_api_warns(self):
        self.compute_node_in_use()
        status, answer = self.api(
            'PUT', '/resource_providers/%s/inventories/MEMORY_MB' % RP1,
            {'resource_provider_generation': 2, 'total': 1024,
             'reserved': 1000, 'allocation_ratio': 1.5})
        self.assertEqual(200, status, answer)
        document = self.audit_json()
        self.assertEqual(1, document['exit_code'])
        finding, = document['findings']
        self.assertEqual({
            'check': 'over_capacity', 'severity': 'warning',
            'subject_type': 'resource_provider', 'subject': RP1,
            'message': 'MEMORY_MB: 512 used > capacity 36 = '
                       '(1024 - 1000) x 1.5',
            'details': {'resource_class': 'MEMORY_MB', 'used': 512,
                        'capacity': 36, 'total': 1024, 'reserved': 1000,
                        'allocation_ratio': 1.5},
            'repairable': False, 'repair': None}, finding)

    def test_allocation_without_inventory_fails(self):
        self.compute_node_in_use()
        # A clean-up script deleted the inventory rows and stopped before
        # the allocations (the API refuses this with 409).
        self.sql('DELETE FROM inventories WHERE resource_provider_id = :id '
                 'AND resource_class_id = 0', id=self.rp_id(RP1))
        document = self.audit_json()
        self.assertEqual(2, document['exit_code'])
        self.assertEqual([('allocation_without_inventory', RP1)],
                         self.checks(document))
        details = document['findings'][0]['details']
        self.assertEqual(('VCPU', 6, [C1]), (
            details['resource_class'], details['used'],
            details['consumers']))

    def test_allocations_of_a_deleted_provider_fail(self):
        self.compute_node_in_use()
        rp_id = self.rp_id(RP1)
        # The provider's rows deleted by hand, its allocations forgotten.
        self.sql('DELETE FROM inventories')
        self.sql('UPDATE resource_providers SET root_provider_id = NULL')
        self.sql('DELETE FROM resource_providers')
        document = self.audit_json()
        self.assertEqual([('allocation_without_inventory', None)] * 2,
                         self.checks(document))
        self.assertEqual(
            '6 VCPU used by 1 consumer (%s), but provider row %d does not '
            'exist' % (C1, rp_id), document['findings'][0]['message'])

    def test_empty_consumer_warns_and_fix_removes_it(self):
        self.compute_node_in_use()
        # A writer deleted the allocations, then died before the consumer.
        self.sql('DELETE FROM allocations WHERE consumer_id = :c', c=C1)
        code, out, _err = self.run_audit()
        self.assertEqual(1, code, out)
        self.assertIn('empty_consumer', out)
        self.assertIn('(1 can be repaired with --fix)', out)
        code, out, _err = self.run_audit('--fix')
        self.assertEqual(0, code, out)
        self.assertIn('Removed empty consumer %s.\n' % C1, out)
        self.assertIn('Repaired 1 of 1; remaining: 0 failures, 0 warnings.',
                      out)
        self.assertEqual((0, 'No inconsistencies found.\n'),
                         self.run_audit()[:2])

    def test_incomplete_consumer_warns_and_fix_creates_its_record(self):
        self.compute_node_in_use()
        # Allocations written by an old release, which kept no consumers.
        self.sql('DELETE FROM consumers WHERE uuid = :c', c=C1)
        document = self.audit_json()
        self.assertEqual([('incomplete_consumer', C1)],
                         self.checks(document))
        self.assertEqual({'allocations': 2, 'resource_providers': 1},
                         document['findings'][0]['details'])
        document = self.audit_json('--fix')
        self.assertEqual(0, document['exit_code'])
        self.assertEqual({'result': 'repaired', 'message':
                          'Created consumer record for %s (project %s, '
                          'user %s).' % (C1, INCOMPLETE, INCOMPLETE)},
                         document['findings'][0]['repair'])
        self.assertEqual({'failures': 0, 'warnings': 0, 'repaired': 1},
                         document['summary'])
        status, answer = self.api('GET', '/allocations/%s' % C1)
        self.assertEqual((INCOMPLETE, 0), (answer['project_id'],
                                           answer['consumer_generation']))
        self.assertEqual([], self.audit_json()['findings'])

    def test_repairs_that_raced_a_writer_are_skipped(self):
        self.compute_node_in_use()
        self.sql('DELETE FROM allocations WHERE consumer_id = :c', c=C1)
        empty, = audit.audit(self.db)
        owner = audit.IncompleteOwner(INCOMPLETE, INCOMPLETE)
        # A writer gives the consumer allocations again after the audit.
        status, answer = self.api('PUT', '/allocations/%s' % C1, {
            'allocations': {RP1: {'resources': {'VCPU': 1}}},
            'project_id': 'proj', 'user_id': 'user',
            'consumer_type': 'INSTANCE',
            'consumer_generation': empty.details['generation']})
        self.assertEqual(204, status, answer)
        self.assertFalse(audit.repair(self.db, empty, owner))
        self.allocate(C2, RP1, {'VCPU': 1})
        self.sql('DELETE FROM consumers WHERE uuid = :c', c=C2)
        missing, = audit.audit(self.db)
        self.assertEqual(('incomplete_consumer', C2),
                         (missing.check, missing.subject))
        # ...and a writer creates the record before the repair runs.
        self.allocate(C2, RP1, {'VCPU': 2})
        self.assertFalse(audit.repair(self.db, missing, owner))
        self.assertEqual([], audit.audit(self.db))

    def test_a_repair_that_raises_is_reported_failed(self):
        self.compute_node_in_use()
        self.sql('DELETE FROM consumers WHERE uuid = :c', c=C1)
        missing, = audit.audit(self.db)
        self.sql('DROP TABLE projects')
        owner = audit.IncompleteOwner(INCOMPLETE, INCOMPLETE)
        with self.assertLogs(audit_cmd.__name__, 'ERROR') as logged:
            self.assertEqual(audit_cmd.FAILED,
                             audit_cmd._repair(self.db, missing, owner))
        self.assertEqual(['Repair of incomplete_consumer %s failed' % C1],
                         [record.getMessage() for record in logged.records])
        self.assertIsNotNone(logged.records[0].exc_info)
        self.assertEqual('Failed to repair incomplete_consumer %s; see the '
                         'log.' % C1, audit_cmd._repair_message(
                             missing, audit_cmd.FAILED, owner))

    def test_consumer_without_project_or_user_rows_fails(self):
        self.compute_node_in_use()
        # A project clean-up removed projects and users rows and stopped
        # before the consumers that still point at them.
        self.sql('DELETE FROM projects')
        self.sql('DELETE FROM users')
        document = self.audit_json('--fix')
        self.assertEqual(2, document['exit_code'])
        self.assertEqual([('consumer_project_missing', C1),
                          ('consumer_user_missing', C1)],
                         self.checks(document))
        self.assertEqual([None, None], [finding['repair'] for finding in
                                        document['findings']])

    def test_removing_an_empty_consumer_settles_its_other_findings(self):
        self.compute_node_in_use()
        self.sql('DELETE FROM allocations WHERE consumer_id = :c', c=C1)
        self.sql('DELETE FROM projects')
        document = self.audit_json('--fix')
        self.assertEqual([('empty_consumer', C1),
                          ('consumer_project_missing', C1)],
                         self.checks(document))
        self.assertEqual(['repaired', 'repaired'], [
            finding['repair']['result'] for finding in
            document['findings']])
        self.assertEqual((0, {'failures': 0, 'warnings': 0, 'repaired': 2}),
                         (document['exit_code'], document['summary']))

    def test_provider_without_root_id_fails(self):
        # A provider written by a release that had no root ids.
        self.sql("INSERT INTO resource_providers (uuid, name, generation) "
                 "VALUES (:u, 'old', 0)", u=RP1)
        code, out, _err = self.run_audit()
        self.assertEqual(2, code, out)
        self.assertIn('root_provider_missing', out)
        self.assertIn('root_provider_id is NULL', out)

    def test_unparented_provider_that_kept_its_old_root_fails(self):
        self.provider(RP1, 'cn1')
        self.provider(RP2, 'numa0', parent=RP1)
        # A re-parenting writer cleared the parent, not the root.
        self.sql('UPDATE resource_providers SET parent_provider_id = NULL '
                 'WHERE uuid = :u', u=RP2)
        document = self.audit_json()
        self.assertEqual([('root_not_own_root', RP2)],
                         self.checks(document))
        self.assertEqual(RP1, document['findings'][0]['details'][
            'root_provider_uuid'])

    def test_parent_in_another_tree_fails(self):
        self.provider(RP1, 'cn1')
        self.provider(RP2, 'numa0', parent=RP1)
        self.provider(RP3, 'cn2')
        # Moved under another root without its root id following.
        self.sql('UPDATE resource_providers SET parent_provider_id = :p '
                 'WHERE uuid = :u', p=self.rp_id(RP3), u=RP2)
        document = self.audit_json()
        self.assertEqual(2, document['exit_code'])
        self.assertEqual([('parent_in_other_tree', RP2)],
                         self.checks(document))
        self.assertIn('but its parent %s has root %s' % (RP3, RP3),
                      document['findings'][0]['message'])

    def test_cycle_of_parents_fails(self):
        self.provider(RP1, 'cn1')
        self.provider(RP2, 'numa0', parent=RP1)
        self.sql('UPDATE resource_providers SET parent_provider_id = :p '
                 'WHERE uuid = :u', p=self.rp_id(RP2), u=RP1)
        document = self.audit_json()
        self.assertEqual([('tree_cycle', RP1)], self.checks(document))
        self.assertEqual([RP1, RP2],
                         document['findings'][0]['details']['cycle'])
        self.assertIn('%s -> %s -> %s' % (RP1, RP2, RP1),
                      document['findings'][0]['message'])

    def test_null_provider_generation_fails(self):
        self.provider(RP1, 'cn1')
        self.sql('UPDATE resource_providers SET generation = NULL')
        document = self.audit_json()
        self.assertEqual([('provider_generation_null', RP1)],
                         self.checks(document))
        self.assertEqual(2, document['exit_code'])

    def test_provider_generation_reset_under_its_inventory_fails(self):
        self.compute_node_in_use()
        self.provider(RP2, 'empty')
        # The providers table restored from a backup older than the rest.
        self.sql('UPDATE resource_providers SET generation = 0')
        document = self.audit_json()
        self.assertEqual([('provider_generation_backwards', RP1)],
                         self.checks(document))
        self.assertEqual({'generation': 0, 'minimum': 1,
                          'proof': ['inventories', 'allocations']},
                         document['findings'][0]['details'])

    def test_consumer_generation_behind_its_allocations_fails(self):
        self.compute_node_in_use()
        self.allocate(C2, RP1, {'VCPU': 1})
        # C1's allocations were rewritten an hour after it was created,
        # yet its generation is still the initial 0; C2's is negative.
        created = datetime.datetime(2026, 1, 1, 12, 0, 0)
        self.sql('UPDATE consumers SET generation = 0, created_at = :t '
                 'WHERE uuid = :c', t=created, c=C1)
        self.sql('UPDATE allocations SET created_at = :t '
                 'WHERE consumer_id = :c',
                 t=created + datetime.timedelta(hours=1), c=C1)
        self.sql('UPDATE consumers SET generation = -1 WHERE uuid = :c',
                 c=C2)
        document = self.audit_json()
        self.assertEqual([('consumer_generation_backwards', C1),
                          ('consumer_generation_backwards', C2)],
                         self.checks(document))
        self.assertEqual({'generation': 0, 'minimum': 1,
                          'created_at': '2026-01-01T12:00:00',
                          'last_allocation_created_at':
                              '2026-01-01T13:00:00'},
                         document['findings'][0]['details'])
        self.assertEqual('generation -1 is negative',
                         document['findings'][1]['message'])

    def test_failures_and_warnings_exit_2_and_fix_leaves_failures(self):
        self.compute_node_in_use()
        self.sql('DELETE FROM consumers WHERE uuid = :c', c=C1)
        self.sql('UPDATE resource_providers SET generation = NULL')
        code, out, _err = self.run_audit('--fix')
        self.assertEqual(2, code, out)
        self.assertIn('Created consumer record for %s' % C1, out)
        self.assertIn('Repaired 1 of 1; remaining: 1 failure, 0 warnings.',
                      out)

    def test_unreadable_database_exits_255_in_one_line(self):
        self.sql('DROP TABLE resource_provider_traits')
        code, out, err = self.run_audit()
        self.assertEqual(255, code, out)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertIn('audit failed', err)

    def test_status_warns_while_a_provider_is_over_capacity(self):
        path = cli.write_config(self, self.url)
        argv = ['--config-file', path, 'upgrade', 'check']
        self.compute_node_in_use()
        code, out, _err = cli.run(status.main, argv)
        self.assertEqual(0, code, out)
        self.assertIn('Check: Resource Providers Over Capacity', out)
        self.api('PUT', '/resource_providers/%s/inventories/VCPU' % RP1,
                 {'resource_provider_generation': 2, 'total': 2})
        code, out, _err = cli.run(status.main, argv)
        self.assertEqual(1, code, out)
        self.assertIn('There is 1 resource provider whose usage exceeds its',
                      out)


globals().update(base.per_backend(_AuditTests))


class _SnapshotTests:
    """The audit's queries see one snapshot even where the server (or
    session) reads committed data per statement."""

    def test_a_commit_between_two_reads_is_not_seen(self):
        db = self.new_database()
        app_fixture.create_schema(db)
        projects = models.projects
        count = sa.select(sa.func.count()).select_from(projects)
        with db_api.reader(db) as conn:
            if self.backend_name == 'mysql':
                conn.execute(sa.text('SET SESSION TRANSACTION ISOLATION '
                                     'LEVEL READ COMMITTED'))
            backend.repeatable_read(conn)
            before = conn.execute(count).scalar()
            with db_api.transaction(db) as writer:
                writer.execute(sa.insert(projects).values(
                    external_id='new'))
            self.assertEqual(before, conn.execute(count).scalar())
        with db_api.reader(db) as conn:
            self.assertEqual(before + 1, conn.execute(count).scalar())


# SQLite readers block writers instead: one snapshot by construction.
globals().update({name: cls for name, cls in
                  base.per_backend(_SnapshotTests).items()
                  if not name.endswith('_sqlite')})
