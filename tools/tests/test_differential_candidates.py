"""The hash-seed rule of tools/differential (differential_lib/candidates):
candidate lists judged by what upstream may answer under some seed (in
any order; under a limit, any N of the unlimited answer; under a cap, a
set the cap may generate), each candidate as a JSON value.
"""
import json

import testtools

from tools.differential_lib import candidates


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

    def test_only_candidates_of_two_200_answers(self):
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

    def test_member_order_is_free_too(self):
        swapped = _cand(('ss', 'DISK_GB'), ('cn1', 'VCPU'),
                        mappings={'': ['cn1', 'ss']})
        self.assertTrue(candidates.same(_doc([A, B], SUMMARIES),
                                        _doc([swapped, B], SUMMARIES)))
        reordered = dict(reversed(list(SUMMARIES.items())))
        self.assertTrue(candidates.same(_doc([A, B], SUMMARIES),
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


def _tree(root, children):
    """Summaries of a root and its children (no traits)."""
    return {uuid: _summary(uuid, root) for uuid in (root,) + children}


# Three trees with 2, 2 and 3 children of VCPU, as in the experiment: a
# candidate per child.
TREES = dict(**_tree('a', ('a1', 'a2')), **_tree('b', ('b1', 'b2')),
             **_tree('d', ('d1', 'd2', 'd3')))
CHILDREN = ['a1', 'a2', 'b1', 'b2', 'd1', 'd2', 'd3']


def _vcpu(*children):
    """(ours, full) documents: candidates on ``children`` and on every
    child; the summaries cut to the trees used."""
    roots = {TREES[child]['root_provider_uuid'] for child in children}
    cut = {uuid: value for uuid, value in TREES.items()
           if value['root_provider_uuid'] in roots}
    return (_doc([_cand((c, 'VCPU')) for c in children], cut),
            _doc([_cand((c, 'VCPU')) for c in CHILDREN], TREES))


class TestCapRule(testtools.TestCase):
    """[placement] max_allocation_candidates: which sets upstream may
    generate under some seed (see candidates' module doc)."""

    def _fits(self, strategy, count, children, up_count=None):
        ours, full = _vcpu(*children)
        theirs = _doc([_cand(('x', 'VCPU'))] * (up_count or len(children)),
                      {})
        return candidates.same(ours, theirs, full,
                               candidates.Cap(count, strategy))

    def test_cap_of_options(self):
        self.assertIsNone(candidates.cap_of({}))
        self.assertIsNone(candidates.cap_of(
            {candidates.CAP_OPTION: -1}))
        self.assertEqual(candidates.Cap(2, 'breadth-first'),
                         candidates.cap_of({
                             candidates.CAP_OPTION: 2,
                             candidates.STRATEGY_OPTION: 'breadth-first'}))

    def test_depth_first_whole_trees_but_the_last(self):
        # Seen upstream: a1 a2 b1 b2; d1 d2 d3 + b2; d1 d2 + b1 b2.
        for taken in (['a1', 'a2', 'b1', 'b2'], ['d1', 'd2', 'd3', 'b2'],
                      ['d1', 'd2', 'b1', 'b2']):
            self.assertTrue(self._fits('depth-first', 4, taken), taken)
        # Two trees cut short, or three trees touched: never.
        self.assertFalse(self._fits('depth-first', 4,
                                    ['a1', 'b1', 'd1', 'd2']))
        self.assertFalse(self._fits('depth-first', 4,
                                    ['a1', 'a2', 'b1', 'd1']))

    def test_depth_first_limit_below_the_cap_keeps_any_of_them(self):
        # cap 4, limit 2: a2 + b1 was seen (a and b whole, then two kept).
        self.assertTrue(self._fits('depth-first', 4, ['a2', 'b1']))
        # d1 + a1 + b1 cannot come from four of one cap's set.
        self.assertFalse(self._fits('depth-first', 4, ['d1', 'a1', 'b1']))

    def test_breadth_first_one_per_tree_in_turn(self):
        # cap 5: a round of three, then two trees get a second.
        self.assertTrue(self._fits('breadth-first', 5,
                                   ['a1', 'a2', 'b1', 'd1', 'd3']))
        self.assertFalse(self._fits('breadth-first', 5,
                                    ['a1', 'a2', 'd1', 'd2', 'd3']))
        # cap 2: two trees, one each; never two of one tree.
        self.assertTrue(self._fits('breadth-first', 2, ['a1', 'd2']))
        self.assertFalse(self._fits('breadth-first', 2, ['a1', 'a2']))

    def test_breadth_first_a_tree_run_out(self):
        # cap 6 over 2 + 2 + 3: a and b run out at two, d gets two.
        self.assertTrue(self._fits('breadth-first', 6,
                                   ['a1', 'a2', 'b1', 'b2', 'd1', 'd2']))
        self.assertFalse(self._fits('breadth-first', 6,
                                    ['a1', 'a2', 'b1', 'd1', 'd2', 'd3']))

    def test_as_many_as_upstream_gave(self):
        self.assertFalse(self._fits('depth-first', 4, ['a1', 'a2'],
                                    up_count=4))

    def test_sharing_providers_belong_to_the_tree_they_serve(self):
        summaries = dict(**_tree('a', ('a1',)), **_tree('b', ('b1',)),
                         **_tree('ss', ()))
        summaries['ss']['traits'] = [candidates.SHARES]
        full_cands = [_cand((c, 'VCPU'), (disk, 'DISK_GB'))
                      for c, root in (('a1', 'a'), ('b1', 'b'))
                      for disk in (root, 'ss')]
        full = _doc(full_cands, summaries)
        cap = candidates.Cap(2, 'breadth-first')
        one_each = _doc([full_cands[1], full_cands[3]], summaries)
        self.assertTrue(candidates.same(one_each, one_each, full, cap))
        both_of_a = _doc(full_cands[:2], {
            key: value for key, value in summaries.items() if key != 'b'
            and key != 'b1'})
        self.assertFalse(candidates.same(both_of_a, both_of_a, full, cap))
        self.assertTrue(candidates.same(both_of_a, both_of_a, full,
                                        cap._replace(strategy='depth-first')))
