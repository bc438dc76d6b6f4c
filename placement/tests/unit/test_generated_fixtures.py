"""The pure parts of the generated-request tests: the claim model (their
oracle), the request's wire form and gabbi form, the row comparison and
the answer checks."""
import collections
import json
import unittest

import yaml

from placement.testing import answer_checks
from placement.testing import claim_model
from placement.testing.generated_request import Request
from placement.testing import live_server
from placement.testing import row_snapshot

RP, OTHER = 'rp', 'other'


def _world():
    world = claim_model.World()
    world.providers[RP] = claim_model.Provider(RP, inventories={
        'VCPU': claim_model.Inventory(total=8, reserved=2,
                                      allocation_ratio=2.0),
        'MEMORY_MB': claim_model.Inventory(total=1024, min_unit=256,
                                           max_unit=512, step_size=256)})
    world.providers[OTHER] = claim_model.Provider(OTHER)
    world.consumers['a'] = claim_model.Consumer(
        'a', 1, {RP: {'VCPU': 10}})
    return world


class ClaimModelTest(unittest.TestCase):

    def test_capacity_is_total_less_reserved_times_ratio(self):
        self.assertEqual(12.0, _world().providers[RP].inventories[
            'VCPU'].capacity())

    def test_a_claim_fits_beside_the_others_usage(self):
        self.assertTrue(_world().claim_fits({'b': {RP: {'VCPU': 2}}}))
        self.assertFalse(_world().claim_fits({'b': {RP: {'VCPU': 3}}}))

    def test_the_consumers_own_allocations_are_replaced_not_added(self):
        self.assertTrue(_world().claim_fits({'a': {RP: {'VCPU': 12}}}))

    def test_amounts_out_of_unit_bounds_or_step_do_not_fit(self):
        world = _world()
        for amount in (128, 384, 768):
            self.assertFalse(world.claim_fits(
                {'b': {RP: {'MEMORY_MB': amount}}}), amount)
        self.assertTrue(world.claim_fits({'b': {RP: {'MEMORY_MB': 512}}}))

    def test_a_class_without_inventory_does_not_fit(self):
        self.assertFalse(_world().claim_fits({'b': {OTHER: {'VCPU': 1}}}))

    def test_two_consumers_of_one_request_add_up(self):
        self.assertFalse(_world().claim_fits(
            {'b': {RP: {'VCPU': 1}}, 'c': {RP: {'VCPU': 2}}}))

    def test_over_capacity_names_only_the_claimed_classes(self):
        world = _world()
        world.providers[RP].inventories['VCPU'].total = 4
        self.assertEqual([(RP, 'VCPU', 10, 4.0)],
                         world.over_capacity({(RP, 'VCPU')}))
        self.assertEqual([], world.over_capacity({(RP, 'MEMORY_MB')}))


class RequestTest(unittest.TestCase):

    def test_target_quotes_the_path_and_keeps_repeated_keys(self):
        request = Request('GET', '/traits/CUSTOM_\u00e9 x',
                          (('limit', '1'), ('limit', '\ud800')))
        self.assertEqual('/traits/CUSTOM_%C3%A9%20x?limit=1&limit=%ED%A0%80',
                         request.target())

    def test_as_gabbi_writes_json_bodies_as_data(self):
        request = Request('PUT', '/x', (), (('accept', 'application/json'),),
                          json.dumps({'a': [1]}).encode())
        test = yaml.safe_load(request.as_gabbi(400))[0]
        self.assertEqual({'a': [1]}, test['data'])
        self.assertEqual(400, test['status'])
        self.assertEqual('/x', test['PUT'])

    def test_as_gabbi_writes_other_bodies_as_text(self):
        deep = b'[' * 2000 + b']' * 2000
        test = yaml.safe_load(Request('PUT', '/x', (), (), deep).as_gabbi(
            400))[0]
        self.assertEqual(deep.decode(), test['data'])

    def test_with_header_replaces_any_case(self):
        request = Request('GET', '/', (), (('Accept', 'a'),))
        self.assertEqual((('accept', 'b'),),
                         request.with_header('accept', 'b').headers)


class RowChangesTest(unittest.TestCase):

    def test_equal_snapshots_have_no_changes(self):
        rows = {'traits': collections.Counter([(1, 'A')])}
        self.assertEqual([], row_snapshot.changes(rows, dict(rows)))

    def test_a_touched_row_shows_as_gone_and_added(self):
        [change] = row_snapshot.changes(
            {'traits': collections.Counter([(1, 'A', None)])},
            {'traits': collections.Counter([(1, 'A', 'now')])})
        self.assertIn("gone:  (1, 'A', None)", change)
        self.assertIn("added: (1, 'A', 'now')", change)


def _answer(status, body, **headers):
    headers.setdefault('x-openstack-request-id', 'req-' + '0' * 8 + '-'
                       + '-'.join(('0' * 4,) * 3) + '-' + '0' * 12)
    return live_server.Answer(status, [(name.replace('_', '-'), value)
                                       for name, value in headers.items()],
                              json.dumps(body).encode())


def _error(status, code=None, request_id=None):
    error = {'status': status, 'title': 'T', 'detail': 'D',
             'request_id': request_id or 'req-%s' % '-'.join(
                 ('0' * 8, '0' * 4, '0' * 4, '0' * 4, '0' * 12))}
    if code:
        error['code'] = code
    return {'errors': [error]}


class AnswerChecksTest(unittest.TestCase):
    REQUEST = Request('GET', '/resource_providers')

    def test_a_server_error_is_a_problem(self):
        self.assertTrue(answer_checks.problems(
            self.REQUEST, _answer(500, _error(500))))

    def test_a_documented_error_body_is_fine(self):
        answer = _answer(404, _error(404, 'placement.undefined_code'),
                         openstack_api_version='placement 1.23')
        self.assertEqual([], answer_checks.problems(self.REQUEST, answer))

    def test_a_code_is_required_from_1_23(self):
        answer = _answer(404, _error(404),
                         openstack_api_version='placement 1.23')
        self.assertTrue(answer_checks.problems(self.REQUEST, answer))
        answer = _answer(404, _error(404),
                         openstack_api_version='placement 1.22')
        self.assertEqual([], answer_checks.problems(self.REQUEST, answer))

    def test_the_status_must_match(self):
        self.assertTrue(answer_checks.problems(
            self.REQUEST, _answer(400, _error(404))))

    def test_an_html_error_is_fine_when_html_was_preferred(self):
        request = Request('GET', '/x', (), (('accept', 'text/html'),))
        answer = live_server.Answer(404, [('content-type', 'text/html')],
                                    b'<html/>')
        self.assertEqual([], answer_checks.problems(request, answer))
