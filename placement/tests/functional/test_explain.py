"""placement-manage allocation_candidates explain against the API, on every
backend: the worked examples E1-E13 (the count equals what GET
/allocation_candidates returns; an emptied variant's summary names the
reason), every 400 of the query grammar (the same message), the JSON
document, and the API's log line for an empty answer.
"""
import contextlib
import io
import json
import logging
import os
import tempfile
import unittest

import sqlalchemy as sa
import webob

from placement.cmd import manage
from placement.db import api as db_api
from placement.db import models
from placement.testing import app as app_fixture
from placement.testing import candidate_trees as ct

ENV = os.environ
LOGGER = 'placement.handlers.allocation_candidate'
LOG = logging.getLogger(LOGGER)
BW = ('NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:%d')

# (tree, query, microversion, phrase the summary names when it is empty)
EXAMPLES = [
    ('E1', ct.E1_SHARING_FLAT, 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:500',
     '1.39', None),
    ('E1', ct.E1_SHARING_FLAT,
     'resources=VCPU:1,MEMORY_MB:512,DISK_GB:1500', '1.39',
     'have less than 1500 DISK_GB free (most free: 1,000)'),
    ('E2', ct.E2_NESTED_SHARING,
     'resources=VCPU:1,MEMORY_MB:512,DISK_GB:500', '1.39', None),
    ('E2', ct.E2_NESTED_SHARING,
     'resources=VCPU:1,MEMORY_MB:512,DISK_GB:500', '1.28',
     'need several providers of one tree'),
    ('E3', ct.E2_NESTED_SHARING,
     'resources=VCPU:1,MEMORY_MB:512,DISK_GB:500&member_of=$AGGB', '1.39',
     None),
    ('E3', ct.E2_NESTED_SHARING,
     'resources=VCPU:1&member_of=$AGGB&member_of=$AGGA&in_tree=$CN2_UUID',
     '1.39', 'is not in the aggregates of member_of='),
    ('E4', ct.E4_NICS, 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:500,'
     'SRIOV_NET_VF:2&required=HW_NIC_ACCEL_SSL', '1.39', None),
    ('E4', ct.E4_NICS, 'resources=VCPU:1,SRIOV_NET_VF:2'
     '&required=HW_CPU_X86_AVX2', '1.39', '1 lacks HW_CPU_X86_AVX2'),
    ('E5', ct.E4_NICS, 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:500'
     '&resources1=SRIOV_NET_VF:1&required1=HW_NIC_ACCEL_SSL'
     '&resources2=SRIOV_NET_VF:1&group_policy=none', '1.39', None),
    ('E5', ct.E4_NICS, 'resources1=SRIOV_NET_VF:1&required1=HW_NIC_ACCEL_SSL'
     '&resources2=SRIOV_NET_VF:1&required2=HW_NIC_ACCEL_SSL'
     '&group_policy=isolate', '1.39', '(group_policy=isolate)'),
    ('E6', ct.E6_IN_TREE, 'resources=VCPU:1&in_tree=$CN1_UUID'
     '&resources1=DISK_GB:10', '1.39', None),
    ('E6', ct.E6_IN_TREE, 'resources=VCPU:5,DISK_GB:50&in_tree=$NUMA1_1_UUID',
     '1.39', 'less than 5 VCPU free (most free: 4)'),
    ('E6', ct.E6_IN_TREE, 'resources1=VCPU:1&in_tree1=$SS1_UUID',
     '1.39', 'are not in tree'),
    ('E7', ct.E7_ROOT_REQUIRED, 'resources1=VCPU:1,MEMORY_MB:512'
     '&required1=HW_CPU_X86_AVX2&resources2=DISK_GB:100&group_policy=none'
     '&root_required=COMPUTE_VOLUME_MULTI_ATTACH', '1.39', None),
    ('E7', ct.E7_ROOT_REQUIRED, 'resources=DISK_GB:100'
     '&root_required=!STORAGE_DISK_SSD', '1.39',
     'a root not matching root_required=!STORAGE_DISK_SSD'),
    ('E8', ct.E8_SAME_SUBTREE, 'required_NUMA=HW_NUMA_ROOT'
     '&resources_ACCEL1=FPGA:1&required_ACCEL1=CUSTOM_TYPE1'
     '&resources_ACCEL2=FPGA:1&required_ACCEL2=CUSTOM_TYPE2'
     '&group_policy=none&same_subtree=_NUMA,_ACCEL1,_ACCEL2', '1.39', None),
    ('E8', ct.E8_SAME_SUBTREE, 'resources_A=FPGA:1&resources_B=FPGA:1'
     '&resources_C=FPGA:1&group_policy=isolate&same_subtree=_A,_B,_C',
     '1.39', 'has no providers meeting same_subtree=_A,_B,_C'),
    ('E9', ct.E9_SAME_SUBTREE_USED, 'resources_COMPUTE=VCPU:2,MEMORY_MB:512'
     '&resources_ACCEL=FPGA:1&group_policy=none'
     '&same_subtree=_COMPUTE,_ACCEL', '1.39', None),
    ('E9', ct.E9_SAME_SUBTREE_USED, 'resources_COMPUTE=VCPU:3'
     '&resources_X=VCPU:3&resources_Y=VCPU:3&group_policy=none', '1.39',
     'cannot serve all the groups together within capacity'),
    ('E10', ct.E10_NIC_AFFINITY, 'resources_VIF_NET1=SRIOV_NET_VF:1'
     '&required_VIF_NET1=CUSTOM_NET1&resources_VIF_NET2=SRIOV_NET_VF:1'
     '&required_VIF_NET2=CUSTOM_NET2&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT'
     '&group_policy=none'
     '&same_subtree=_VIF_NET1,_VIF_NET2,_NIC_AFFINITY', '1.39', None),
    ('E11', ct.E10_NIC_AFFINITY, 'resources_VIF1=SRIOV_NET_VF:1'
     '&resources_VIF2=SRIOV_NET_VF:1&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT'
     '&same_subtree=_VIF1,_VIF2,_NIC_AFFINITY&group_policy=isolate', '1.39',
     None),
    ('E12', ct.E12_FORBIDDEN_AGGREGATES, 'resources=VCPU:1&member_of=!$AGGA',
     '1.39', None),
    ('E12', ct.E12_FORBIDDEN_AGGREGATES,
     'resources=VCPU:1&member_of=!in:$AGGA,$AGGB', '1.39',
     'are in aggregate'),
    ('E13', ct.E13_MAPPINGS, 'resources=DISK_GB:1,MEMORY_MB:512,VCPU:1'
     '&resources1=' + BW % 1000 + '&required1=CUSTOM_PHYSNET_1'
     '&resources2=' + BW % 2000 + '&group_policy=isolate', '1.39', None),
    ('E13', ct.E13_MAPPINGS, 'resources=VCPU:1&resources1=' + BW % 1000
     + '&resources2=' + BW % 2000 + '&resources3=' + BW % 1000
     + '&group_policy=isolate', '1.39', '(group_policy=isolate)'),
]

# Each 400 of the grammar: (query, microversion).
BAD_QUERIES = [
    ('', '1.39'), ('resources=', '1.39'), ('resources=VCPU', '1.39'),
    ('resources=VCPU:x', '1.39'), ('resources=VCPU:0', '1.39'),
    ('resources=VCPU:1:2', '1.39'),
    ('resources=VCPU:1&foo=bar', '1.39'),
    ('resources=VCPU:1&limit=0', '1.39'), ('resources=VCPU:1&limit=x',
                                           '1.39'),
    ('resources=VCPU:1&group_policy=bogus', '1.39'),
    ('resources=VCPU:1&required=in:HW_CPU_X86_AVX2', '1.38'),
    ('resources=VCPU:1&required=in:', '1.39'),
    ('resources=VCPU:1&required=in:HW_CPU_X86_AVX2,!HW_CPU_X86_SSE', '1.39'),
    ('resources=VCPU:1&required=!HW_CPU_X86_AVX2', '1.21'),
    ('resources=VCPU:1&required=HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2', '1.39'),
    ('resources=VCPU:1&required=', '1.39'),
    ('resources=VCPU:1&member_of=not-a-uuid', '1.39'),
    ('resources=VCPU:1&member_of=in:not-a-uuid', '1.39'),
    ('resources=VCPU:1&member_of=!' + '1' * 32, '1.31'),
    ('resources=VCPU:1&in_tree=not-a-uuid', '1.39'),
    ('resources=VCPU:1&root_required=HW_CPU_X86_AVX2'
     '&root_required=HW_CPU_X86_SSE', '1.39'),
    ('resources=VCPU:1&root_required=in:HW_CPU_X86_AVX2', '1.39'),
    ('resources=VCPU:1&root_required=HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2',
     '1.39'),
    ('resources=VCPU:1&root_required=HW_CPU_X86_AVX2', '1.34'),
    ('resources_A=VCPU:1&required_B=HW_CPU_X86_AVX2', '1.39'),
    ('resources_A=VCPU:1&same_subtree=_A,', '1.39'),
    ('resources_A=VCPU:1&same_subtree=_A,_Z', '1.39'),
    ('required=HW_CPU_X86_AVX2', '1.39'),
    ('resources1=VCPU:1&required2=HW_CPU_X86_AVX2', '1.35'),
    ('resources1=VCPU:1&resources2=VCPU:1', '1.39'),
    ('resources_A=VCPU:1', '1.32'),
    ('resources=CUSTOM_NOPE:1', '1.39'),
    ('resources=VCPU:1&required=CUSTOM_NOPE', '1.39'),
    ('resources=VCPU:1&same_subtree=_A', '1.35'),
]


def _expand(text):
    for key in sorted(ENV, key=len, reverse=True):
        if key.endswith('_UUID') and '$' + key in text:
            text = text.replace('$' + key, ENV[key])
    for name in ('AGGA', 'AGGB', 'AGGC'):
        text = text.replace('$' + name, ENV.get(name + '_UUID', name))
    return text


class ExplainTestBase(unittest.TestCase):

    def get(self, app, query, mv='1.39'):
        req = webob.Request.blank('/allocation_candidates?' + query)
        req.headers['x-auth-token'] = 'admin'
        req.headers['openstack-api-version'] = 'placement ' + mv
        return req.get_response(app)

    def explain(self, placement, query, mv='1.39', *extra):
        """(exit code, stdout, stderr) of the command."""
        conf = getattr(placement, 'conf_file', None)
        if conf is None:
            handle, conf = tempfile.mkstemp(suffix='.conf')
            with os.fdopen(handle, 'w') as f:
                f.write('[placement_database]\nconnection = %s\n'
                        % placement.url)
            self.addCleanup(os.unlink, conf)
            placement.conf_file = conf
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(
                err):
            code = manage.main(['--config-file', conf, 'allocation_candidates',
                                'explain', query, '--microversion', mv,
                                *extra])
        return code, out.getvalue(), err.getvalue()


def _empty_tables(db):
    with db_api.transaction(db) as conn:
        for table in ('allocations', 'inventories',
                      'resource_provider_traits',
                      'resource_provider_aggregates', 'placement_aggregates'):
            conn.execute(sa.delete(getattr(models, table)))
        conn.execute(sa.update(models.resource_providers).values(
            parent_provider_id=None, root_provider_id=None))
        conn.execute(sa.delete(models.resource_providers))


class TestWorkedExamples(ExplainTestBase):

    def test_examples(self):
        app_fixture.on_each_backend(self, self._check_examples)

    def test_examples_randomized_with_a_limit(self):
        """The same, with a limit read in random chunks of roots: the log
        line still equals the command's summary.
        """
        app_fixture.on_each_backend(
            self, lambda placement: self._check_examples(placement,
                                                         '&limit=2'),
            **{'placement.randomize_allocation_candidates': True})

    def _check_examples(self, placement, extra=''):
        built = None
        for name, tree, query, mv, phrase in EXAMPLES:
            if tree is not built:
                _empty_tables(placement.db)
                for agg in ('AGGA', 'AGGB', 'AGGC'):
                    ENV.pop(agg + '_UUID', None)
                ct.build(placement.db, tree)
                built = tree
            query = _expand(query) + extra
            with self.subTest(example=name, query=query, mv=mv):
                self._check_one(placement, query, mv, phrase)

    def _check_one(self, placement, query, mv, phrase):
        with self.assertLogs(LOGGER, level='DEBUG') as logs:
            resp = self.get(placement.app, query, mv)
            self.assertEqual(200, resp.status_int, resp.text)
            api_count = len(resp.json['allocation_requests'])
            LOG.debug('end of request')
        code, out, err = self.explain(placement, query, mv, '--format',
                                      'json')
        self.assertEqual(0, code, err)
        document = json.loads(out)
        self.assertEqual(api_count, document['candidates'])
        lines = [r.getMessage() for r in logs.records
                 if r.levelno >= logging.INFO]
        if phrase is None:
            self.assertGreater(api_count, 0)
            self.assertEqual([], lines)
            return
        self.assertEqual(0, api_count)
        self.assertIn(phrase, document['summary'])
        # The API's log line says what the command says.
        request_id = resp.headers['x-openstack-request-id']
        self.assertEqual(['No allocation candidates for request %s: %s'
                          % (request_id, document['summary'])], lines)
        removed = [s for g in document['groups'] for s in g['steps']
                   if s['trees_removed']]
        removed += [s for s in document['across_groups']
                    if s['trees_removed'] and s['step'] != 'all_groups']
        self.assertTrue(removed, document)


class TestBadQueries(ExplainTestBase):

    def test_same_400_messages(self):
        app_fixture.on_each_backend(self, self._check_bad)

    def _check_bad(self, placement):
        for query, mv in BAD_QUERIES:
            with self.subTest(query=query, mv=mv):
                resp = self.get(placement.app, query, mv)
                self.assertEqual(400, resp.status_int, resp.text)
                detail = resp.json['errors'][0]['detail']
                message = detail.split('\n\n', 1)[1].strip()
                code, out, err = self.explain(placement, query, mv)
                self.assertEqual(1, code)
                self.assertEqual('', out)
                self.assertEqual('400 Bad Request: %s' % message,
                                 err.strip())

    def test_microversion_and_provider_arguments(self):
        placement = app_fixture.PlacementApp(
            app_fixture.backends.BACKENDS['sqlite'])
        self.addCleanup(placement.cleanup)
        for mv in ('1.9', '1.40', 'x'):
            code, _, err = self.explain(placement, 'resources=VCPU:1', mv)
            self.assertEqual(1, code)
            self.assertIn('--microversion must be between 1.10 and 1.39',
                          err)
        code, _, err = self.explain(placement, 'resources=VCPU:1', '1.39',
                                    '--provider', 'nope')
        self.assertEqual(1, code)
        self.assertIn('--provider expects a provider uuid', err)


class TestDocumentAndProviders(ExplainTestBase):

    def test_provider_reports(self):
        app_fixture.on_each_backend(self, self._check_providers)

    def _check_providers(self, placement):
        uuids = ct.build(placement.db, [
            ct.Node('CN1', inventory={'VCPU': {'total': 32, 'reserved': 2,
                                               'allocation_ratio': 4.0}},
                    used={'VCPU': 100}),
            ct.Node('CN2', inventory={'VCPU': 8},
                    traits=['HW_CPU_X86_AVX2'])])
        query = 'resources=VCPU:24&required=HW_CPU_X86_AVX2'
        code, out, _ = self.explain(
            placement, query, '1.39', '--format', 'json', '--provider',
            uuids['CN1'], '--provider', uuids['CN2'], '--provider',
            '00000000-0000-0000-0000-000000000000')
        self.assertEqual(0, code)
        document = json.loads(out)
        self.assertEqual(0, document['candidates'])
        self.assertEqual(
            '0 candidates: of 2 root providers, 2 have less than 24 VCPU '
            'free (most free: 20)', document['summary'])
        first, second, unknown = document['provider_reports']
        self.assertEqual(
            'VCPU: requested 24, free 20 = (32 - 2) x 4.0 - 100 used',
            first['groups'][0]['checks'][0]['text'])
        self.assertEqual('VCPU: requested 24, free 8 = (8 - 0) x 1.0 - 0 '
                         'used', second['groups'][0]['checks'][0]['text'])
        self.assertIn('error', unknown)
        code, text, _ = self.explain(placement, query, '1.39', '--provider',
                                     uuids['CN2'])
        self.assertIn('Summary: 0 candidates', text)
        self.assertIn('Provider %s' % uuids['CN2'], text)


class TestLogLine(ExplainTestBase):

    def test_empty_answer_logs_why(self):
        placement = app_fixture.PlacementApp(
            app_fixture.backends.BACKENDS['sqlite'])
        self.addCleanup(placement.cleanup)
        ct.build(placement.db, [ct.Node('CN1', inventory={'VCPU': 8})])
        logger = 'placement.handlers.allocation_candidate'
        with self.assertLogs(logger, level='INFO') as logs:
            resp = self.get(placement.app, 'resources=VCPU:200')
            # Logged once the body was sent (the server closes it).
            self.assertEqual([], logs.records)
            self.assertEqual([], resp.json['allocation_requests'])
        request_id = resp.headers['x-openstack-request-id']
        self.assertEqual(
            ['No allocation candidates for request %s: 0 candidates: of 1 '
             'root provider, 1 has less than 200 VCPU free (most free: 8)'
             % request_id], [r.getMessage() for r in logs.records])
        with self.assertNoLogs(logger, level=logging.INFO):
            self.get(placement.app, 'resources=VCPU:2')

    def test_log_line_follows_the_data(self):
        app_fixture.on_each_backend(self, self._check_data_changes)

    def _check_data_changes(self, placement):
        """One query, emptied by one data change after another (each a
        write that bumps the provider's generation, as the API's do):
        each time the log line is the command's summary, never an older
        one.
        """
        uuids = ct.build(placement.db, [
            ct.Node('CN1', inventory={'VCPU': 8},
                    traits=['HW_CPU_X86_AVX2']),
            ct.Node('NUMA', parent='CN1', inventory={'VCPU': 4})])
        query = 'resources=VCPU:6&required=HW_CPU_X86_AVX2'
        rp, inv = models.resource_providers, models.inventories
        rpt = models.resource_provider_traits
        cn1 = rp.c.uuid == uuids['CN1']
        changes = [
            sa.update(inv).where(inv.c.resource_provider_id.in_(
                sa.select(rp.c.id).where(cn1))).values(total=5),
            sa.update(inv).values(total=8, max_unit=8),
            sa.delete(rpt),
        ]
        self.assertEqual([], self._log_lines(placement, query))
        summaries = set()
        for change in changes:
            with db_api.transaction(placement.db) as conn:
                conn.execute(change)
                conn.execute(sa.update(rp).values(
                    generation=rp.c.generation + 1))
            lines = self._log_lines(placement, query)
            if not lines:  # the change left a candidate
                continue
            code, out, err = self.explain(placement, query, '1.39',
                                          '--format', 'json')
            summary = json.loads(out)['summary']
            self.assertEqual([summary], [line.split(': ', 1)[1]
                                         for line in lines])
            summaries.add(summary)
        self.assertEqual(2, len(summaries), summaries)

    def _log_lines(self, placement, query):
        with self.assertLogs(LOGGER, level='DEBUG') as logs:
            self.get(placement.app, query).body
            LOG.debug('end of request')
        return [r.getMessage() for r in logs.records
                if r.levelno >= logging.INFO]

    def test_nothing_after_a_non_empty_answer(self):
        app_fixture.on_each_backend(self, self._check_after)

    def _check_after(self, placement):
        """Statements run while the request is answered, and after its
        body is sent: none after a non-empty answer; for an empty one,
        the rest of the explanation's reads.
        """
        ct.build(placement.db, [ct.Node('CN1', inventory={'VCPU': 8})])
        during, after = self._statements(placement, 'resources=VCPU:2')
        self.assertGreater(during, 0)
        self.assertEqual(0, after)
        during, after = self._statements(placement, 'resources=VCPU:200')
        self.assertGreater(during, 0)
        self.assertGreater(after, 0)

    def _statements(self, placement, query):
        """(statements before the body is read, statements after)."""
        counted = []

        def count(*args):
            counted.append(1)
        engines = placement.db.engines()
        for engine in engines:
            sa.event.listen(engine, 'before_cursor_execute', count)
        try:
            environ = webob.Request.blank(
                '/allocation_candidates?' + query,
                headers={'x-auth-token': 'admin',
                         'openstack-api-version': 'placement 1.39'}).environ
            body = placement.app(environ, lambda *args: None)
            during = len(counted)
            b''.join(body)
            if hasattr(body, 'close'):  # as a WSGI server does
                body.close()
        finally:
            for engine in engines:
                sa.event.remove(engine, 'before_cursor_execute', count)
        return during, len(counted) - during
