"""objects.usage: the grouping rules (pure) and the queries on SQLite."""
import unittest
import uuid

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.objects import usage as usage_obj
from placement.tests.unit.objects import test_inventory

USAGE_ROWS = [('INSTANCE', 'VCPU', 2), ('INSTANCE', 'MEMORY_MB', 512),
              ('MIGRATION', 'VCPU', 1), (None, 'MEMORY_MB', 128)]
COUNT_ROWS = [('INSTANCE', 2), ('MIGRATION', 1), (None, 1)]


class TestGroupUsages(unittest.TestCase):

    def test_flat_before_consumer_types(self):
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 640},
                         usage_obj.group_usages(USAGE_ROWS, [], False))

    def test_grouped_by_type_with_unknown(self):
        self.assertEqual({
            'INSTANCE': {'consumer_count': 2, 'VCPU': 2, 'MEMORY_MB': 512},
            'MIGRATION': {'consumer_count': 1, 'VCPU': 1},
            'unknown': {'consumer_count': 1, 'MEMORY_MB': 128},
        }, usage_obj.group_usages(USAGE_ROWS, COUNT_ROWS, True))

    def test_all_is_one_group(self):
        self.assertEqual(
            {'all': {'consumer_count': 4, 'VCPU': 3, 'MEMORY_MB': 640}},
            usage_obj.group_usages(USAGE_ROWS, [(None, 4)], True, 'all'))

    def test_consumer_count_follows_the_first_class_as_upstream(self):
        usages = usage_obj.group_usages(
            [('INSTANCE', 'VCPU', 5), ('INSTANCE', 'DISK_GB', 2)],
            [('INSTANCE', 3)], True)
        self.assertEqual(['VCPU', 'consumer_count', 'DISK_GB'],
                         list(usages['INSTANCE']))

    def test_nothing_is_empty(self):
        self.assertEqual({}, usage_obj.group_usages([], [], True))
        self.assertEqual({}, usage_obj.group_usages([], [], False))


class TestUsageQueries(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.db = test_inventory.sqlite_database()
        self.addCleanup(self.db.dispose)
        self.rp_uuid = str(uuid.uuid4())
        self.provider = rp_obj.create_provider(self.db, self.rp_uuid, 'rp')
        inv_obj.set_inventories(self.db, self.rp_uuid, 0, {
            'VCPU': inv_obj.Inventory('VCPU', total=8),
            'DISK_GB': inv_obj.Inventory('DISK_GB', total=100)})
        self.ids = {}
        with db_api.transaction(self.db) as conn:
            self._consumer(conn, 'p1', 'u1', 'INSTANCE', {'VCPU': 2})
            self._consumer(conn, 'p1', 'u2', None, {'VCPU': 1, 'DISK_GB': 5})
            self._consumer(conn, 'p2', 'u1', 'INSTANCE', {'VCPU': 4})

    def _external(self, conn, table, external_id):
        key = (table.name, external_id)
        if key not in self.ids:
            self.ids[key] = conn.execute(sa.insert(table).values(
                external_id=external_id)).inserted_primary_key[0]
        return self.ids[key]

    def _consumer(self, conn, project, user, type_name, resources):
        type_id = None
        if type_name:
            type_id = self._external_type(conn, type_name)
        consumer_uuid = str(uuid.uuid4())
        conn.execute(sa.insert(models.consumers).values(
            uuid=consumer_uuid,
            project_id=self._external(conn, models.projects, project),
            user_id=self._external(conn, models.users, user),
            consumer_type_id=type_id))
        rc = models.resource_classes
        for name, used in resources.items():
            rc_id = conn.execute(sa.select(rc.c.id).where(
                rc.c.name == name)).scalar()
            conn.execute(sa.insert(models.allocations).values(
                resource_provider_id=self.provider.id,
                consumer_id=consumer_uuid, resource_class_id=rc_id,
                used=used))

    def _external_type(self, conn, name):
        key = ('consumer_types', name)
        if key not in self.ids:
            self.ids[key] = conn.execute(sa.insert(
                models.consumer_types).values(name=name)
            ).inserted_primary_key[0]
        return self.ids[key]

    def test_provider_usages_list_every_inventoried_class(self):
        provider, usages = usage_obj.get_provider_usages(self.db,
                                                         self.rp_uuid)
        self.assertEqual({'VCPU': 7, 'DISK_GB': 5}, usages)
        self.assertEqual(1, provider.generation)

    def test_project_flat(self):
        self.assertEqual({'VCPU': 3, 'DISK_GB': 5},
                         usage_obj.get_project_usages(self.db, 'p1'))
        self.assertEqual({'VCPU': 2},
                         usage_obj.get_project_usages(self.db, 'p1', 'u1'))
        self.assertEqual({}, usage_obj.get_project_usages(self.db, 'p9'))

    def test_project_grouped(self):
        self.assertEqual(
            {'INSTANCE': {'consumer_count': 1, 'VCPU': 2},
             'unknown': {'consumer_count': 1, 'VCPU': 1, 'DISK_GB': 5}},
            usage_obj.get_project_usages(self.db, 'p1', group_by_type=True))

    def test_project_filters(self):
        def grouped(consumer_type, user_id=None):
            return usage_obj.get_project_usages(
                self.db, 'p1', user_id, consumer_type, group_by_type=True)
        self.assertEqual(
            {'all': {'consumer_count': 2, 'VCPU': 3, 'DISK_GB': 5}},
            grouped('all'))
        self.assertEqual(
            {'unknown': {'consumer_count': 1, 'VCPU': 1, 'DISK_GB': 5}},
            grouped('unknown'))
        self.assertEqual({'INSTANCE': {'consumer_count': 1, 'VCPU': 2}},
                         grouped('INSTANCE'))
        self.assertEqual({}, grouped('INSTANCE', 'u2'))
        self.assertEqual({}, grouped('OTHER'))


class TestGroupUsagesZeroCount(unittest.TestCase):

    def test_a_zero_count_makes_no_group(self):
        self.assertEqual({}, usage_obj.group_usages([], [(None, 0)], True,
                                                    'all'))
