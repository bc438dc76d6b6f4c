"""objects.capacity on each backend: what the API reports, in one read.

Providers with inventories of several classes (one with nothing
allocated, one with a name MariaDB's packed rows cannot carry), and
allocations: every inventory row comes back once with its provider's
name and generation, the class, total, reserved, ratio and the amount
used, as GET .../inventories and .../usages report them.
"""
import json
import unittest
import uuid

from placement.objects import capacity
from placement.testing import app as app_fixture
from placement.testing import concurrency

PROVIDERS = {
    'cn1': {'VCPU': (8, 1, 16.0, 3), 'MEMORY_MB': (4096, 512, 1.5, 1024)},
    'cn "2" \\ x': {'DISK_GB': (100, 0, 1.0, 40)},
    'cn3': {'VCPU': (4, 0, 1.0, 0)},
}


def _send(placement, method, path, body=None):
    status, text = concurrency.send(placement.app, method, path, body)
    return status, json.loads(text) if text else None


def _make(testcase, placement, name, classes):
    rp_uuid = str(uuid.uuid4())
    status, _ = _send(placement, 'POST', '/resource_providers',
                      {'name': name, 'uuid': rp_uuid})
    testcase.assertEqual(200, status)
    status, _ = _send(placement, 'PUT',
                      '/resource_providers/%s/inventories' % rp_uuid,
                      {'resource_provider_generation': 0, 'inventories': {
                          rc: {'total': total, 'reserved': reserved,
                               'allocation_ratio': ratio}
                          for rc, (total, reserved, ratio, _) in
                          classes.items()}})
    testcase.assertEqual(200, status)
    used = {rc: amount for rc, (_, _, _, amount) in classes.items()
            if amount}
    if used:
        status, _ = _send(placement, 'PUT', '/allocations/%s' % uuid.uuid4(),
                          {'allocations': {rp_uuid: {'resources': used}},
                           'project_id': 'p', 'user_id': 'u',
                           'consumer_generation': None,
                           'consumer_type': 'INSTANCE'})
        testcase.assertEqual(204, status)
    return rp_uuid


def _from_api(placement, name, rp_uuid):
    _, provider = _send(placement, 'GET', '/resource_providers/%s' % rp_uuid)
    _, inventories = _send(placement, 'GET',
                           '/resource_providers/%s/inventories' % rp_uuid)
    _, usages = _send(placement, 'GET',
                      '/resource_providers/%s/usages' % rp_uuid)
    return {capacity.ClassCapacity(
        name, rc, inv['total'], inv['reserved'], inv['allocation_ratio'],
        usages['usages'][rc], provider['generation'])
        for rc, inv in inventories['inventories'].items()}


class CapacityTest(unittest.TestCase):

    def test_one_row_per_inventory_as_the_api_reports_it(self):
        def check(placement):
            expected = set()
            for name, classes in PROVIDERS.items():
                rp_uuid = _make(self, placement, name, classes)
                expected |= _from_api(placement, name, rp_uuid)
            found = capacity.list_capacity(placement.db)
            self.assertEqual(len(expected), len(found))
            self.assertEqual(expected, set(found))
        app_fixture.on_each_backend(self, check)
