"""objects.allocation: the pure rules, and the write path on SQLite."""
import dataclasses
import unittest
import uuid

import sqlalchemy as sa

from placement.db import models
from placement import exception
from placement.objects import allocation as alloc_obj
from placement.objects import allocation_reads as alloc_reads
from placement.objects import consumer as consumer_obj
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.tests.unit.objects import test_inventory

VCPU, DISK = 0, 2        # standard class ids


def stock(**fields):
    values = dict(total=4, reserved=0, min_unit=1, max_unit=4, step_size=1,
                  allocation_ratio=1.0, used=0)
    values.update(fields)
    return alloc_reads.Stock(**values)


PROVIDERS = {1: alloc_reads.Seen('rp-1', 0)}
CLASSES = {'VCPU': VCPU, 'DISK_GB': DISK}


class TestCheckCapacity(unittest.TestCase):

    def check(self, amounts, **fields):
        alloc_obj.check_capacity({(1, VCPU): amounts},
                                 {(1, VCPU): stock(**fields)},
                                 PROVIDERS, CLASSES)

    def assertRefused(self, text, amounts, **fields):
        with self.assertRaises(exception.InsufficientCapacity) as ctx:
            self.check(amounts, **fields)
        self.assertIn(text, str(ctx.exception))
        self.assertIn("'VCPU' on resource provider 'rp-1'",
                      str(ctx.exception))

    def test_exactly_full_fits(self):
        self.check([2, 2])
        self.check([1], used=3)

    def test_amounts_of_one_write_are_summed(self):
        self.assertRefused('exceed the capacity', [3, 2])

    def test_usage_counts(self):
        self.assertRefused('exceed the capacity', [2], used=3)

    def test_reserved_and_ratio_apply(self):
        self.check([6], total=4, reserved=1, allocation_ratio=2.0, max_unit=9)
        self.assertRefused('exceed the capacity', [7], total=4, reserved=1,
                           allocation_ratio=2.0, max_unit=9)

    def test_unit_constraints_apply_to_each_amount(self):
        self.assertRefused('violate inventory constraints', [5], total=10)
        self.assertRefused('violate inventory constraints', [1], min_unit=2)
        self.assertRefused('violate inventory constraints', [3], step_size=2)
        self.check([2, 2], step_size=2)

    def test_constraints_are_checked_before_capacity(self):
        self.assertRefused('violate inventory constraints', [5])

    def test_no_inventory(self):
        with self.assertRaises(exception.InsufficientCapacity) as ctx:
            alloc_obj.check_capacity({(1, DISK): [1]}, {}, PROVIDERS,
                                     CLASSES)
        self.assertIn("Inventory for 'DISK_GB' on resource provider 'rp-1' "
                      "invalid.", str(ctx.exception))


def request(generation=None, check=True, resources=(('rp', 'VCPU', 1),)):
    return alloc_obj.AllocationRequest(
        consumer_uuid='c', project_id='p', user_id='u', resources=resources,
        consumer_generation=generation, check_generation=check)


def consumer(generation):
    return consumer_obj.Consumer(id=1, uuid='c', project_id='p',
                                 user_id='u', generation=generation,
                                 consumer_type=None)


class TestConsumerGenerations(unittest.TestCase):

    def assertConflict(self, text, req, consumers):
        with self.assertRaises(exception.ConsumerGenerationConflict) as ctx:
            alloc_obj.check_consumer_generations([req], consumers)
        self.assertIn(text, str(ctx.exception))

    def test_new_consumer_needs_null(self):
        alloc_obj.check_consumer_generations([request(None)], {})
        self.assertConflict('expected null but got 0', request(0), {})

    def test_existing_consumer_needs_its_generation(self):
        alloc_obj.check_consumer_generations([request(3)],
                                             {'c': consumer(3)})
        self.assertConflict('expected 3 but got 2', request(2),
                            {'c': consumer(3)})
        self.assertConflict('expected 3 but got None', request(None),
                            {'c': consumer(3)})

    def test_before_1_28_nothing_is_checked(self):
        alloc_obj.check_consumer_generations([request(None, check=False)],
                                             {'c': consumer(3)})

    def test_one_consumer_spelled_twice_on_mysql(self):
        # Upstream on MariaDB: the first spelling creates the consumer
        # (generation 0), the second finds it.
        first = request(None)
        second = dataclasses.replace(request(None), consumer_uuid='C')
        with self.assertRaises(exception.ConsumerGenerationConflict) as ctx:
            alloc_obj.check_consumer_generations([first, second], {},
                                                 str.lower)
        self.assertIn('expected 0 but got None', str(ctx.exception))
        second = dataclasses.replace(request(1), consumer_uuid='C')
        with self.assertRaises(exception.ConsumerGenerationConflict) as ctx:
            alloc_obj.check_consumer_generations([first, second], {},
                                                 str.lower)
        self.assertIn('expected 0 but got 1', str(ctx.exception))
        # Elsewhere two consumers; an existing one is found either way.
        alloc_obj.check_consumer_generations(
            [first, dataclasses.replace(second, consumer_generation=None)],
            {})
        with self.assertRaises(exception.ConsumerGenerationConflict) as ctx:
            alloc_obj.check_consumer_generations(
                [dataclasses.replace(request(None), consumer_uuid='C')],
                {'c': consumer(2)}, str.lower)
        self.assertIn('expected 2 but got None', str(ctx.exception))

    def test_unknown_type_name(self):
        self.assertEqual('unknown', consumer(1).type_name)


class TestFromBody(unittest.TestCase):

    def test_list_form_uses_the_defaults(self):
        req = alloc_obj.AllocationRequest.from_body(
            'c', {'allocations': [
                {'resource_provider': {'uuid': 'rp'},
                 'resources': {'VCPU': 1, 'DISK_GB': 2}}]},
            check_generation=False, default_project_id='dp',
            default_user_id='du')
        # The body's order is kept: it is the order rows are written in.
        self.assertEqual((('rp', 'VCPU', 1), ('rp', 'DISK_GB', 2)),
                         req.resources)
        self.assertEqual(('dp', 'du', None), (req.project_id, req.user_id,
                                              req.consumer_type))

    def test_dict_form_with_everything(self):
        req = alloc_obj.AllocationRequest.from_body(
            'c', {'allocations': {'b': {'resources': {'VCPU': 1}},
                                  'a': {'resources': {'VCPU': 2},
                                        'generation': 9}},
                  'project_id': 'p', 'user_id': 'u',
                  'consumer_generation': 4, 'consumer_type': 'INSTANCE',
                  'mappings': {'': ['a']}},
            check_generation=True, default_project_id='dp',
            default_user_id='du')
        self.assertEqual((('b', 'VCPU', 1), ('a', 'VCPU', 2)), req.resources)
        self.assertEqual(('p', 'u', 4, True, 'INSTANCE'),
                         (req.project_id, req.user_id,
                          req.consumer_generation, req.check_generation,
                          req.consumer_type))


class TestWriteOnSQLite(unittest.TestCase):

    def setUp(self):
        self.db = test_inventory.sqlite_database()
        self.rp_uuid = str(uuid.uuid4())
        rp_obj.create_provider(self.db, self.rp_uuid, 'rp')
        inv_obj.set_inventories(self.db, self.rp_uuid, 0, {
            'VCPU': inv_obj.Inventory('VCPU', total=2)})

    def claim(self, consumer_uuid, amount, generation=None, project='p'):
        alloc_obj.replace_allocations(self.db, [alloc_obj.AllocationRequest(
            consumer_uuid=consumer_uuid, project_id=project, user_id='u',
            resources=((self.rp_uuid, 'VCPU', amount),),
            consumer_generation=generation, check_generation=True,
            consumer_type='INSTANCE')], retries=0)

    def count(self, table):
        with self.db.writer.connect() as conn:
            return conn.execute(
                sa.select(sa.func.count()).select_from(table)).scalar()

    def test_claim_bumps_provider_and_creates_consumer_at_1(self):
        consumer_uuid = str(uuid.uuid4())
        self.claim(consumer_uuid, 1)
        result = alloc_obj.get_for_consumer(self.db, consumer_uuid)
        self.assertEqual(1, result.consumer.generation)
        self.assertEqual('INSTANCE', result.consumer.consumer_type)
        self.assertEqual([(self.rp_uuid, 2, 'VCPU', 1)],
                         [(a.resource_provider_uuid,
                           a.resource_provider_generation,
                           a.resource_class, a.used)
                          for a in result.allocations])

    def test_failed_first_claim_leaves_no_rows(self):
        with self.assertRaises(exception.InsufficientCapacity):
            self.claim(str(uuid.uuid4()), 3, project='fresh-project')
        self.assertEqual(0, self.count(models.consumers))
        self.assertEqual(0, self.count(models.projects))
        self.assertEqual(0, self.count(models.users))
        self.assertEqual(0, self.count(models.consumer_types))

    def test_delete_removes_consumer_and_keeps_generation(self):
        consumer_uuid = str(uuid.uuid4())
        self.claim(consumer_uuid, 1)
        alloc_obj.delete_for_consumer(self.db, consumer_uuid)
        self.assertEqual(0, self.count(models.consumers))
        self.assertEqual(
            2, alloc_reads.get_provider_allocations(
                self.db, self.rp_uuid)[0].generation)
        self.assertRaises(exception.ConsumerNotFound,
                          alloc_obj.delete_for_consumer, self.db,
                          consumer_uuid)

    def test_new_rows_leave_updated_at_null_as_upstream(self):
        self.claim(str(uuid.uuid4()), 1)
        with self.db.writer.connect() as conn:
            stamps = conn.execute(sa.select(
                models.allocations.c.created_at,
                models.allocations.c.updated_at)).all()
        self.assertEqual(1, len(stamps))
        self.assertIsNotNone(stamps[0].created_at)
        self.assertIsNone(stamps[0].updated_at)

    def test_emptying_a_consumer_changed_meanwhile_is_a_conflict(self):
        # The providers it only loses are not bumped, so the consumer
        # generation is what catches the second writer.
        consumer_uuid = str(uuid.uuid4())
        self.claim(consumer_uuid, 1)
        with self.db.writer.connect() as conn:
            stale = consumer_obj.fetch_consumers_by_uuid(
                conn, [consumer_uuid])[consumer_uuid]
        self.claim(consumer_uuid, 2, generation=1)
        with self.db.writer.begin() as conn:
            self.assertRaises(exception.ConsumerGenerationConflict,
                              consumer_obj.delete_consumer, conn, stale)


if __name__ == '__main__':
    unittest.main()
