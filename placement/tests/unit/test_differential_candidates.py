"""The hash-seed rule of tools/differential (differential_lib/candidates):
candidate lists judged by what upstream may answer under some seed, and
nothing else relaxed.
"""
import json

import testtools

from placement.tests.unit import test_differences_doc

candidates = test_differences_doc.tool_module('candidates')


def _cand(*members, mappings=None):
    body = {'allocations': {uuid: {'resources': {rc: 1}}
                            for uuid, rc in members}}
    if mappings is not None:
        body['mappings'] = mappings
    return body


def _summary(uuid, root):
    return {'resources': {}, 'traits': [], 'parent_provider_uuid': None,
            'root_provider_uuid': root}


def _doc(cands, summaries):
    return json.dumps({'allocation_requests': cands,
                       'provider_summaries': summaries})


A = _cand(('cn1', 'VCPU'), ('ss', 'DISK_GB'), mappings={'': ['cn1', 'ss']})
B = _cand(('cn2', 'VCPU'), ('ss', 'DISK_GB'), mappings={'': ['ss', 'cn2']})
SUMMARIES = {'cn1': _summary('cn1', 'cn1'), 'cn2': _summary('cn2', 'cn2'),
             'ss': _summary('ss', 'ss')}


class TestSeedRule(testtools.TestCase):

    def test_only_candidates_of_a_200_answer(self):
        class Answer:
            def __init__(self, status):
                self.status = status
        ok, bad = Answer('200 OK'), Answer('400 Bad Request')
        self.assertTrue(candidates.applies(
            'GET', '/allocation_candidates?resources=VCPU:1', ok, ok))
        self.assertFalse(candidates.applies(
            'GET', '/allocation_candidates?resources=VCPU:1', ok, bad))
        self.assertFalse(candidates.applies(
            'GET', '/resource_providers', ok, ok))

    def test_list_order_and_mappings_order_are_free(self):
        flipped = _cand(('cn1', 'VCPU'), ('ss', 'DISK_GB'),
                        mappings={'': ['ss', 'cn1']})
        self.assertTrue(candidates.same(_doc([A, B], SUMMARIES),
                                        _doc([B, flipped], SUMMARIES)))

    def test_member_order_is_not(self):
        swapped = _cand(('ss', 'DISK_GB'), ('cn1', 'VCPU'),
                        mappings={'': ['cn1', 'ss']})
        self.assertFalse(candidates.same(_doc([A, B], SUMMARIES),
                                         _doc([swapped, B], SUMMARIES)))

    def test_summaries_order_is_not(self):
        reordered = dict(reversed(list(SUMMARIES.items())))
        self.assertFalse(candidates.same(_doc([A, B], SUMMARIES),
                                         _doc([A, B], reordered)))

    def test_a_number_spelled_otherwise_is_not(self):
        self.assertFalse(candidates.same('{"a": [1]}', '{"a": [1.0]}'))

    def test_other_candidates_are_not(self):
        self.assertFalse(candidates.same(_doc([A], SUMMARIES),
                                         _doc([B], SUMMARIES)))

    def test_limit_any_n_of_the_unlimited_answer(self):
        full = _doc([A, B], SUMMARIES)
        ours = _doc([B], {'cn2': SUMMARIES['cn2'], 'ss': SUMMARIES['ss']})
        theirs = _doc([A], {'cn1': SUMMARIES['cn1'], 'ss': SUMMARIES['ss']})
        self.assertTrue(candidates.same(ours, theirs, full))
        # Not the summaries of other trees, nor more candidates.
        self.assertFalse(candidates.same(_doc([B], SUMMARIES), theirs, full))
        self.assertFalse(candidates.same(_doc([A, B], SUMMARIES), theirs,
                                         full))

    def test_unlimited_query(self):
        self.assertEqual(
            '/allocation_candidates?resources=VCPU:1,DISK_GB:1',
            candidates.unlimited(
                '/allocation_candidates?resources=VCPU:1,DISK_GB:1&limit=2'))
        self.assertIsNone(candidates.unlimited(
            '/allocation_candidates?resources=VCPU:1'))


class TestAggregatesSeedRule(testtools.TestCase):

    def test_a_providers_aggregates_in_any_order(self):
        self.assertTrue(candidates.same_aggregates(
            '{"aggregates": ["a", "b"], "resource_provider_generation": 1}',
            '{"aggregates": ["b", "a"], "resource_provider_generation": 1}'))
        self.assertFalse(candidates.same_aggregates(
            '{"aggregates": ["a", "b"], "resource_provider_generation": 1}',
            '{"aggregates": ["b", "c"], "resource_provider_generation": 1}'))
        self.assertFalse(candidates.same_aggregates(
            '{"aggregates": ["a"], "resource_provider_generation": 1}',
            '{"aggregates": ["a"], "resource_provider_generation": 2}'))

    def test_only_the_get_of_one_providers_aggregates(self):
        class Answer:
            status = '200 OK'
        self.assertTrue(candidates.applies(
            'GET', '/resource_providers/u/aggregates', Answer, Answer))
        self.assertFalse(candidates.applies(
            'PUT', '/resource_providers/u/aggregates', Answer, Answer))
