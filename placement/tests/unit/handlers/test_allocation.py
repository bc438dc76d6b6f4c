"""handlers.allocation: the renderers at each microversion."""
import datetime
import unittest

from placement.handlers import allocation as handler
from placement import microversion
from placement.objects import allocation as alloc_obj
from placement.objects import allocation_reads as reads
from placement.objects import consumer as consumer_obj

NOW = datetime.datetime(2026, 1, 1)


def alloc(rp, rc, used, consumer='c1'):
    return alloc_obj.Allocation(rp, 5, consumer, rc, used, NOW)


CONSUMER = consumer_obj.Consumer(id=1, uuid='c1', project_id='p',
                                 user_id='u', generation=3,
                                 consumer_type=None)
RESULT = alloc_obj.ConsumerAllocations(
    CONSUMER, (alloc('rp1', 'VCPU', 1), alloc('rp1', 'DISK_GB', 2)))


def mv(text):
    return microversion.parse_version(text)


class TestRenderConsumer(unittest.TestCase):

    def test_dict_form_at_every_version(self):
        body = handler._render_consumer(RESULT, mv('1.0'))
        self.assertEqual({'allocations': {'rp1': {
            'generation': 5, 'resources': {'VCPU': 1, 'DISK_GB': 2}}}}, body)

    def test_fields_appear_at_their_versions(self):
        for version, keys in (('1.11', set()),
                              ('1.12', {'project_id', 'user_id'}),
                              ('1.28', {'project_id', 'user_id',
                                        'consumer_generation'}),
                              ('1.38', {'project_id', 'user_id',
                                        'consumer_generation',
                                        'consumer_type'})):
            body = handler._render_consumer(RESULT, mv(version))
            self.assertEqual(keys | {'allocations'}, set(body), version)
        self.assertEqual('unknown', body['consumer_type'])

    def test_no_allocations_no_extras(self):
        empty = alloc_obj.ConsumerAllocations(CONSUMER, ())
        self.assertEqual({'allocations': {}},
                         handler._render_consumer(empty, mv('1.38')))


class TestRenderProvider(unittest.TestCase):

    def test_consumer_generation_from_1_28(self):
        held = (reads.Held('c1', 'VCPU', 1, NOW, 3),
                reads.Held('c1', 'MEMORY_MB', 64, NOW, 3))
        self.assertEqual(
            {'allocations': {'c1': {'resources': {'VCPU': 1,
                                                  'MEMORY_MB': 64}}},
             'resource_provider_generation': 7},
            handler._render_provider(7, held, mv('1.27')))
        self.assertEqual(
            {'allocations': {'c1': {'resources': {'VCPU': 1,
                                                  'MEMORY_MB': 64},
                                    'consumer_generation': 3}},
             'resource_provider_generation': 7},
            handler._render_provider(7, held, mv('1.28')))

if __name__ == '__main__':
    unittest.main()
