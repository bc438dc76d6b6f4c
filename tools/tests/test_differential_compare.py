"""tools/differential's comparison of two answers (differential_lib/compare
and lists) by the contract of issue 23: status, the set of headers and
their values, the body as a JSON value, lists in order but the declared
multisets.
"""
import json

import testtools

from placement import handler
from tools.differential_lib import compare
from tools.differential_lib import lists

RP = 'aaaaaaaa-0000-4000-8000-000000000001'


def _answer(body, headers=(), status='200 OK', length=None):
    if not isinstance(body, str):
        body = json.dumps(body)
    raw = body.encode('utf-8')
    headers = [('Content-Length', str(len(raw) if length is None
                                      else length)),
               ('Content-Type', 'application/json')] + list(headers)
    return compare.Answer(status, headers, raw)


def _kinds(ours, up, method='GET', uri='/'):
    return [kind for kind, _ in compare.differences(
        ours, up, compare.UuidMap(), method=method, uri=uri)]


class TestHeaders(testtools.TestCase):

    def test_order_is_not_part_of_it(self):
        ours = compare.Answer('200 OK', [('A', '1'), ('B', '2')], b'')
        up = compare.Answer('200 OK', [('b', '2'), ('a', '1')], b'')
        self.assertEqual([], _kinds(ours, up))

    def test_a_value_or_a_header_of_one_side_is(self):
        self.assertEqual(['header vary value'], _kinds(
            _answer({}, [('Vary', 'x')]), _answer({}, [('Vary', 'y')])))
        self.assertEqual(['header cache-control extra'], _kinds(
            _answer({}, [('Cache-Control', 'no-cache')]), _answer({})))
        self.assertEqual(['header cache-control missing'], _kinds(
            _answer({}), _answer({}, [('Cache-Control', 'no-cache')])))

    def test_dates_and_request_ids_are_not(self):
        self.assertEqual([], _kinds(
            _answer({}, [('Last-Modified', 'Mon, 01 Jan 2024 00:00:00 GMT'),
                         ('Date', 'x'), ('x-openstack-request-id', 'r1')]),
            _answer({}, [('Last-Modified', 'Tue, 02 Jan 2024 00:00:00 GMT'),
                         ('Date', 'y'), ('x-openstack-request-id', 'r2')])))


class TestContentLength(testtools.TestCase):

    def test_whitespace_makes_no_difference(self):
        self.assertEqual([], _kinds(_answer('{"a":[1,2]}'),
                                    _answer('{"a": [1, 2]}')))

    def test_width_of_a_normalised_timestamp_is_no_difference(self):
        ours = '{"detail": "datetime.datetime(2026, 11, 24, 23, 3, 5)"}'
        up = ('{"detail": "datetime.datetime(2026, 11, 24, 22, 51, 14, '
              '63969)"}')
        self.assertEqual([], _kinds(_answer(ours), _answer(up)))

    def test_a_length_false_to_its_body_is_a_difference(self):
        self.assertEqual(['header content-length value'], _kinds(
            _answer({'a': 1}, length=99), _answer({'a': 1})))


class TestBody(testtools.TestCase):

    def test_member_order_and_spacing_are_not_part_of_it(self):
        self.assertEqual([], _kinds(_answer('{"a":1,"b":{"c":2,"d":3}}'),
                                    _answer('{"b": {"d": 3, "c": 2}, '
                                            '"a": 1}')))

    def test_number_types_are(self):
        self.assertEqual(['body content'], _kinds(_answer('{"a":1}'),
                                                  _answer('{"a":1.0}')))
        self.assertEqual(['body content'], _kinds(_answer('{"a":1}'),
                                                  _answer('{"a":true}')))

    def test_an_ordered_list_in_another_order_is_a_difference(self):
        links = [{'rel': 'self'}, {'rel': 'inventories'}]
        self.assertEqual(['body list order'], _kinds(
            _answer({'links': links}), _answer({'links': links[::-1]}),
            uri='/resource_providers/%s' % RP))

    def test_a_multiset_in_any_order(self):
        ours = {'resource_providers': [{'uuid': 'a'}, {'uuid': 'b'}]}
        up = {'resource_providers': [{'uuid': 'b'}, {'uuid': 'a'}]}
        self.assertEqual([], _kinds(_answer(ours), _answer(up),
                                    uri='/resource_providers?name=x'))
        self.assertEqual(['body content'], _kinds(
            _answer(ours), _answer({'resource_providers': [{'uuid': 'a'}]}),
            uri='/resource_providers'))

    def test_aggregates_free_on_get_in_order_on_put(self):
        ours, up = {'aggregates': ['a', 'b']}, {'aggregates': ['b', 'a']}
        uri = '/resource_providers/%s/aggregates' % RP
        self.assertEqual([], _kinds(_answer(ours), _answer(up), 'GET', uri))
        self.assertEqual(['body list order'], _kinds(
            _answer(ours), _answer(up), 'PUT', uri))

    def test_nested_multisets_of_candidates(self):
        ours = {'allocation_requests': [
            {'allocations': {'a': {}}, 'mappings': {'': ['a', 'b']}},
            {'allocations': {'c': {}}, 'mappings': {'': ['c']}}],
            'provider_summaries': {'a': {'traits': ['X', 'Y']}}}
        up = {'allocation_requests': [
            {'mappings': {'': ['c']}, 'allocations': {'c': {}}},
            {'allocations': {'a': {}}, 'mappings': {'': ['b', 'a']}}],
            'provider_summaries': {'a': {'traits': ['Y', 'X']}}}
        self.assertEqual([], _kinds(_answer(ours), _answer(up),
                                    uri='/allocation_candidates?x=1'))

    def test_error_detail(self):
        def error(detail):
            return _answer({'errors': [{'status': 400, 'detail': detail}]},
                           status='400 Bad Request')
        self.assertEqual(['body error detail'], _kinds(error('a'),
                                                       error('b')))

    def test_same_subtree_suffixes_in_any_order(self):
        # Upstream lists them in a Python set's order (PYTHONHASHSEED).
        def error(missing, known):
            return _answer({'errors': [{'status': 400, 'detail': (
                'Real suffixes should be specified in `same_subtree`: '
                '%s not found in %s.' % (missing, known))}]},
                status='400 Bad Request')
        self.assertEqual([], _kinds(error("['_A', '_B']", "['1', '_X']"),
                                    error("['_B', '_A']", "['_X', '1']")))
        self.assertEqual(['body error detail'],
                         _kinds(error("['_A']", "['1']"),
                                error("['_B']", "['1']")))

    def test_text_bodies_as_text(self):
        self.assertEqual([], _kinds(_answer('<html>x</html>'),
                                    _answer('<html>x</html>')))
        self.assertEqual(['body text'], _kinds(_answer('<html>x</html>'),
                                               _answer('<html>y</html>')))


class TestListTable(testtools.TestCase):

    def test_every_route_is_a_route_of_the_api(self):
        templates = [template.replace('{name}', '{x}').replace(
            '{uuid}', '{x}').replace('{consumer_uuid}', '{x}')
            for template in handler.ROUTE_DECLARATIONS]
        for rule in lists.LISTS:
            if rule.route == '*':
                continue
            route = rule.route.replace('{uuid}', '{x}')
            self.assertIn(route, templates, rule)
            methods = set(handler.ROUTE_DECLARATIONS[rule.route])
            if rule.methods != '*':
                self.assertIn(rule.methods, methods, rule)

    def test_undeclared_lists_are_ordered(self):
        rules = lists.rules_for('GET', '/resource_providers')
        self.assertEqual(lists.MULTISET,
                         lists.order_of(rules, ('resource_providers',)))
        self.assertEqual(lists.ORDERED,
                         lists.order_of(rules, ('something_new',)))
        self.assertEqual(lists.ORDERED, lists.order_of(
            rules, ('resource_providers', '[]', 'links')))
