"""The candidates body: a candidate alike up to its providers
(model.Alike) renders as the plain candidate it stands for, in every
form of the versions, and summaries share nothing they should not."""
import unittest

import orjson

from placement.handlers import allocation_candidate as handler
from placement.handlers import json_text
from placement import microversion
from placement.solver import model
from placement.solver import summaries as summaries_mod
from placement import util

V = microversion.parse_version
UUIDS = {1: 'u1', 2: 'u2', 3: 'u3', 4: 'u4'}
# One group of VCPU and DISK_GB; mappings of the unsuffixed group.
LISTING = ({'': (0, 0)}, {'VCPU': (0, 0), 'DISK_GB': (0, 1)})


def _result(candidates, summaries=(), uuids=UUIDS):
    return type('Result', (), {'uuids': uuids, 'candidates': candidates,
                               'summaries': summaries})


def _body(result, mv, listing=LISTING):
    return orjson.loads(util.render_json(handler._render(result, V(mv),
                                                         listing)))


class TestAlikeRendersAsItsCandidate(unittest.TestCase):

    def test_every_form(self):
        shape = model.Shape.of(((0, 'VCPU', 1), (1, 'DISK_GB', 5)),
                               (('', (0, 1)),))
        alike = [model.Alike(shape, (1, 4)), model.Alike(shape, (2, 4))]
        plain = [alike[0].candidate, alike[1].candidate]
        for mv in ('1.10', '1.12', '1.34', '1.39'):
            with self.subTest(mv=mv):
                self.assertEqual(_body(_result(plain), mv),
                                 _body(_result(alike), mv))

    def test_mappings_of_several_providers_come_sorted(self):
        shape = model.Shape.of(((0, 'VCPU', 1), (1, 'DISK_GB', 5)),
                               (('', (0, 1)),))
        body = _body(_result([model.Alike(shape, (3, 2))]), '1.34')
        request = body['allocation_requests'][0]
        self.assertEqual({'': ['u2', 'u3']}, request['mappings'])
        self.assertEqual(['u3', 'u2'], list(request['allocations']))

    def test_many_copies_of_shapes_render_as_their_candidates(self):
        # The first copy of a shape is rendered as a value, the later
        # ones fill its encoded text; past util.EAGER_ITEMS, one by one.
        uuids = {rp_id: 'u%04d' % (3000 - rp_id) for rp_id in range(3000)}
        listing = ({'': (0, 0), '_A': (1, 0)},
                   {'VCPU': (0, 0), 'DISK_GB': (0, 1), 'CUSTOM_%s': (1, 0)})
        shapes = [
            model.Shape.of(((0, 'VCPU', 1), (1, 'DISK_GB', 5),
                            (2, 'CUSTOM_%s', 1)),
                           (('', (0, 1)), ('_A', (2,)))),
            model.Shape.of(((0, 'DISK_GB', 5), (0, 'VCPU', 2)),
                           (('', (0,)),)),
        ]
        alike = [model.Alike(shapes[n % 2], (3 * n, 3 * n + 2, 3 * n + 1))
                 for n in range(util.EAGER_ITEMS // 2 + 5)]
        plain = [candidate.candidate for candidate in alike]
        for count in (3, len(alike)):
            for mv in ('1.10', '1.12', '1.34', '1.39'):
                with self.subTest(mv=mv, count=count):
                    self.assertEqual(
                        _body(_result(plain[:count], uuids=uuids), mv,
                              listing),
                        _body(_result(alike[:count], uuids=uuids), mv,
                              listing))

    def test_copies_keep_the_order_of_their_allocations(self):
        shape = model.Shape.of(((0, 'VCPU', 1), (1, 'DISK_GB', 5)),
                               (('', (0, 1)),))
        body = _body(_result([model.Alike(shape, ids) for ids in (
            (3, 2), (1, 4), (4, 1))]), '1.34')
        self.assertEqual([['u3', 'u2'], ['u1', 'u4'], ['u4', 'u1']],
                         [list(request['allocations'])
                          for request in body['allocation_requests']])
        self.assertEqual([['u2', 'u3'], ['u1', 'u4'], ['u1', 'u4']],
                         [request['mappings']['']
                          for request in body['allocation_requests']])

    def test_summaries_for_the_version(self):
        summary = summaries_mod.ProviderSummary(
            1, 'u1', None, 'u1', summaries_mod.Resources({'VCPU': (8, 1)}, 1),
            ('HW_CPU_X86_AVX',))
        result = _result([], [summary])
        self.assertEqual(
            {'allocation_requests': [],
             'provider_summaries': {'u1': {'resources': {
                 'VCPU': {'capacity': 8, 'used': 1}}}}},
            _body(result, '1.10'))
        self.assertEqual(
            {'resources': {'VCPU': {'capacity': 8, 'used': 1}},
             'traits': ['HW_CPU_X86_AVX'], 'parent_provider_uuid': None,
             'root_provider_uuid': 'u1'},
            _body(result, '1.39')['provider_summaries']['u1'])

    def test_alike_summaries_keep_their_own_uuids(self):
        # One text per resources, traits and parent or not: filled with
        # each provider's uuids.
        resources = summaries_mod.Resources({'VCPU': (8, 1)}, 1)
        traits = ('HW_CPU_X86_AVX',)
        summaries = [
            summaries_mod.ProviderSummary(1, 'u1', None, 'u1', resources,
                                          traits),
            summaries_mod.ProviderSummary(2, 'u2', 'u1', 'u1', resources,
                                          traits),
            summaries_mod.ProviderSummary(3, 'u3', None, 'u3', resources,
                                          traits),
            summaries_mod.ProviderSummary(4, 'u4', 'u3', 'u3', resources,
                                          ()),
        ]
        found = _body(_result([], summaries), '1.39')['provider_summaries']
        self.assertEqual(
            {uuid: (value['parent_provider_uuid'],
                    value['root_provider_uuid'], tuple(value['traits']))
             for uuid, value in found.items()},
            {'u1': (None, 'u1', traits), 'u2': ('u1', 'u1', traits),
             'u3': (None, 'u3', traits), 'u4': ('u3', 'u3', ())})
        self.assertEqual({'VCPU': {'capacity': 8, 'used': 1}},
                         found['u4']['resources'])

    def test_many_alike_summaries_render_as_values_in_every_version(self):
        # Past json_text.PLAIN_COPIES copies a summary fills its form's
        # text; every copy must read as the plain value would.
        resources = summaries_mod.Resources(
            {'VCPU': (8, 1), 'DISK_GB': (10, 0)}, 1)
        traits = ('A', 'B')
        summaries, uuids = [], {}
        for n in range(1, 2 * (json_text.PLAIN_COPIES + 3), 2):
            root, child = 'r%d' % n, 'c%d' % n
            uuids.update({n: root, n + 1: child})
            summaries += [
                summaries_mod.ProviderSummary(n, root, None, root, resources,
                                              traits),
                summaries_mod.ProviderSummary(n + 1, child, root, root,
                                              resources, traits)]
        plain = {'resources': {'VCPU': {'capacity': 8, 'used': 1},
                               'DISK_GB': {'capacity': 10, 'used': 0}}}
        for mv in ('1.10', '1.14', '1.17', '1.39'):
            found = _body(_result([], summaries, uuids),
                          mv)['provider_summaries']
            self.assertEqual(len(summaries), len(found))
            for summary in summaries:
                expected = dict(plain)
                if V(mv) >= microversion.CANDIDATES_TRAITS:
                    expected['traits'] = ['A', 'B']
                if V(mv) >= microversion.NESTED_CANDIDATES:
                    expected['parent_provider_uuid'] = summary.parent_uuid
                    expected['root_provider_uuid'] = summary.root_uuid
                self.assertEqual(expected, found[summary.uuid],
                                 (mv, summary.uuid))


class TestFilledTextsCheckTheirValues(unittest.TestCase):
    """Past json_text.PLAIN_COPIES copies, candidates and summaries fill
    encoded texts: a uuid that needs escaping (stored by other means
    than the API) still reads as written, parent and root unswapped."""

    ODD = ['a",["%d', 'b\\%d', 'c\x01%d', '%%s %d']

    def _uuids(self, count):
        return {n: self.ODD[n % len(self.ODD)] % n for n in range(count)}

    def test_candidates_with_odd_uuids_render_as_values(self):
        uuids = self._uuids(80)
        shape = model.Shape.of(((0, 'VCPU', 1), (1, 'DISK_GB', 5)),
                               (('', (0, 1)),))
        alike = [model.Alike(shape, (2 * n, 2 * n + 1)) for n in range(40)]
        plain = [candidate.candidate for candidate in alike]
        for mv in ('1.10', '1.12', '1.34', '1.39'):
            with self.subTest(mv=mv):
                self.assertEqual(_body(_result(plain, uuids=uuids), mv),
                                 _body(_result(alike, uuids=uuids), mv))

    def test_summaries_with_odd_uuids_keep_parent_and_root(self):
        uuids = self._uuids(60)
        resources = summaries_mod.Resources({'VCPU': (8, 1)}, 1)
        traits = ('A',)
        summaries = [summaries_mod.ProviderSummary(
            n, uuids[n], None if n % 3 == 0 else uuids[n - n % 3],
            uuids[n - n % 3] if n % 2 else uuids[(n + 1) % 60],
            resources, traits) for n in range(60)]
        found = _body(_result([], summaries, uuids),
                      '1.39')['provider_summaries']
        self.assertEqual(
            {s.uuid: (s.parent_uuid, s.root_uuid) for s in summaries},
            {uuid: (value['parent_provider_uuid'],
                    value['root_provider_uuid'])
             for uuid, value in found.items()})
