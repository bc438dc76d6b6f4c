"""/metrics' free capacity by shape and usage families, on each backend.

The worked example of nested hosts sharing a disk pool (candidate_trees
E2) with two claims made through the API: each family under
os-capacity's name and labels, the numbers those of objects.fill and
of the API's usages; a scrape's statements do not grow with the
number of providers; a bad shape stops the application at start.
"""
import tempfile
import unittest
import uuid

from prometheus_client import parser
import sqlalchemy as sa
import webob

from placement.db import api as db_api
from placement import deploy
from placement import exception
from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import candidate_trees as ct
from placement.testing import concurrency

SHAPES = ['small = resources=VCPU:1',
          'medium = resources=VCPU:2,MEMORY_MB:256,DISK_GB:100',
          'gold = resources=VCPU:1&required=CUSTOM_NOPE']


def _scrape(app):
    req = webob.Request.blank('/metrics')
    resp = req.get_response(app)
    assert resp.status_int == 200, resp.text
    found = {}
    for family in parser.text_string_to_metric_families(resp.text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append(
                (sample.labels, sample.value))
    return found


def _claim(app, rp_uuid, resources, project):
    status, text = concurrency.send(
        app, 'PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': {rp_uuid: {'resources': resources}},
            'project_id': project, 'user_id': 'u',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    assert status == 204, text


def _metrics_app(backend, shapes=SHAPES):
    return app_fixture.PlacementApp(backend, **{
        'metrics.enabled': True, 'metrics.allow_anonymous': True,
        'metrics.multiprocess_dir': tempfile.mkdtemp(),
        'metrics.capacity_cache_seconds': 0, 'capacity.shape': shapes})


class CapacityMetricsTest(unittest.TestCase):

    def test_families_names_labels_and_values(self):
        for backend in backends.available():
            with self.subTest(backend=backend.name):
                placement = _metrics_app(backend)
                self.addCleanup(placement.cleanup)
                self._check(placement)

    def _check(self, placement):
        uuids = ct.build(placement.db, ct.E2_NESTED_SHARING)
        _claim(placement.app, uuids['NUMA1_1'], {'VCPU': 3}, 'p1')
        _claim(placement.app, uuids['CN1'], {'MEMORY_MB': 512}, 'p2')
        found = _scrape(placement.app)
        self.assertEqual(
            [({'flavor_name': 'small'}, 29.0),
             ({'flavor_name': 'medium'}, 6.0)],
            found['openstack_free_capacity_by_flavor_total'])
        per_host = {(labels['hypervisor'], labels['flavor_name']): (
            value, labels['az_aggregate'], labels['project_aggregate'])
            for labels, value in
            found['openstack_free_capacity_hypervisor_by_flavor']}
        cn1 = per_host[('CN1', 'medium')]
        self.assertEqual(2.0, cn1[0])
        self.assertEqual(cn1[1], cn1[2])
        self.assertEqual(sorted(cn1[1].split(',')), cn1[1].split(','))
        self.assertEqual(2, len(cn1[1].split(',')))
        # No series where nothing fits (the pool holds no VCPU).
        self.assertNotIn(('SS1', 'small'), per_host)
        self.assertEqual(13.0, per_host[('CN1', 'small')][0])
        self.assertEqual(16.0, per_host[('CN2', 'small')][0])
        self.assertEqual(4, len(per_host))
        self.assertEqual(
            sorted([({'placement_resource': 'VCPU', 'project_id': 'p1',
                      'project_name': ''}, 3.0),
                    ({'placement_resource': 'MEMORY_MB', 'project_id': 'p2',
                      'project_name': ''}, 512.0)], key=repr),
            sorted(found['openstack_project_usage'], key=repr))
        allocated = {(labels['hypervisor'], labels['resource']): value
                     for labels, value in
                     found['openstack_hypervisor_placement_allocated']}
        allocatable = {
            (labels['hypervisor'], labels['resource']): value
            for labels, value in
            found['openstack_hypervisor_placement_allocatable_capacity']}
        self.assertEqual(set(allocated), set(allocatable))
        self.assertEqual((3.0, 16.0), (allocated[('CN1', 'VCPU')],
                                       allocatable[('CN1', 'VCPU')]))
        self.assertEqual((512.0, 1024.0), (allocated[('CN1', 'MEMORY_MB')],
                                           allocatable[('CN1',
                                                        'MEMORY_MB')]))
        self.assertEqual(1000.0, allocatable[('SS1', 'DISK_GB')])

    def test_statements_per_scrape_do_not_grow_with_providers(self):
        placement = _metrics_app(backends.BACKENDS['sqlite'], SHAPES[:2])
        self.addCleanup(placement.cleanup)
        counts, built = [], 0
        for hosts in (3, 60):
            built += hosts
            tree = [ct.Node('H%d_%d' % (hosts, n), inventory={
                'VCPU': 8, 'MEMORY_MB': 1024, 'DISK_GB': 100})
                for n in range(hosts)]
            ct.build(placement.db, tree)
            _scrape(placement.app)  # the plans' memo (gather) is warm
            statements = []

            def count(*args, **kwargs):
                statements.append(1)
            engines = placement.db.engines()
            for engine in engines:
                sa.event.listen(engine, 'before_cursor_execute', count)
            try:
                found = _scrape(placement.app)
            finally:
                for engine in engines:
                    sa.event.remove(engine, 'before_cursor_execute', count)
            counts.append(len(statements))
            self.assertEqual(
                8.0 * built,
                dict((labels['flavor_name'], value) for labels, value in
                     found['openstack_free_capacity_by_flavor_total'])[
                    'small'])
        self.assertEqual(counts[0], counts[1])

    def test_a_bad_shape_stops_the_application(self):
        url = backends.BACKENDS['sqlite'].create()
        self.addCleanup(backends.BACKENDS['sqlite'].drop, url)
        conf = app_fixture.make_conf(url, **{
            'metrics.enabled': True,
            'metrics.multiprocess_dir': tempfile.mkdtemp(),
            'capacity.shape': ['ok = resources=VCPU:1',
                               'broken = resources=VCPU:1,VCPU']})
        db = db_api.create_database(conf)
        self.addCleanup(db.dispose)
        app_fixture.create_schema(db)
        with self.assertRaises(exception.ConfigError) as caught:
            deploy.loadapp(conf, db=db)
        self.assertIn('shape broken: Badly formed resources parameter',
                      str(caught.exception))
