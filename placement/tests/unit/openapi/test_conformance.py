"""The checker that holds answers to the document: it passes what the
document describes and names, with a JSON pointer, what it does not."""
import functools
import json
import unittest

from placement.openapi import builder
from placement.openapi import conformance

RP = '4d9b2a4e-3e5a-4f6e-9c53-0b1a7d6ee0a1'
REQUEST_ID = 'req-0f0e5a52-5d1c-4c0b-a4a1-3d4cf6f0a0b1'
DATE = 'Tue, 01 Jan 2030 00:00:00 GMT'


@functools.lru_cache(maxsize=None)
def _checker():
    return conformance.Checker(builder.build())


def _headers(version, vary=True, cache=False, **more):
    headers = [('Content-Type', 'application/json'),
               ('x-openstack-request-id', REQUEST_ID)]
    if version:
        headers.append(('openstack-api-version', 'placement %s' % version))
    if vary:
        headers.append(('vary', 'openstack-api-version'))
    if cache:
        headers += [('Last-Modified', DATE), ('Cache-Control', 'no-cache')]
    headers += list(more.items())
    return tuple(headers)


def _provider(version_links=('inventories', 'usages'), nested=False):
    href = '/resource_providers/' + RP
    body = {'uuid': RP, 'name': 'cn1', 'generation': 0,
            'links': [{'rel': 'self', 'href': href}] + [
                {'rel': rel, 'href': href + '/' + rel}
                for rel in version_links]}
    if nested:
        body.update(parent_provider_uuid=None, root_provider_uuid=RP)
    return body


ALL_RELS = ('inventories', 'usages', 'aggregates', 'traits', 'allocations')


def _check(method, path, status, headers, body=b''):
    if not isinstance(body, bytes):
        body = json.dumps(body).encode()
    return _checker().check(conformance.Answer(method, path, status,
                                               headers, body))


class TestSuccess(unittest.TestCase):

    def test_a_provider_of_1_0_conforms(self):
        self.assertEqual([], _check('GET', '/resource_providers/' + RP, 200,
                                    _headers('1.0'), _provider()))

    def test_a_provider_of_1_14_needs_its_parent_and_root(self):
        problems = _check('GET', '/resource_providers/' + RP, 200,
                          _headers('1.14', cache=True),
                          _provider(ALL_RELS))
        self.assertEqual(
            ["GET /resource_providers/{uuid} at 1.14 answered 200: body at "
             "/: '%s' is a required property" % name
             for name in ('parent_provider_uuid', 'root_provider_uuid')],
            problems)

    def test_a_link_out_of_place_is_named_by_its_pointer(self):
        body = _provider(ALL_RELS, nested=True)
        body['links'][1], body['links'][2] = body['links'][2], body[
            'links'][1]
        problems = _check('GET', '/resource_providers/' + RP, 200,
                          _headers('1.39', cache=True), body)
        self.assertTrue(any('body at /links/1/rel' in p for p in problems),
                        problems)

    def test_an_unknown_member_is_refused(self):
        body = dict(_provider(ALL_RELS, nested=True), extra=1)
        problems = _check('GET', '/resource_providers/' + RP, 200,
                          _headers('1.39', cache=True), body)
        self.assertEqual(1, len(problems), problems)
        self.assertIn('Additional properties are not allowed', problems[0])

    def test_cache_headers_are_required_from_1_15(self):
        body = _provider(ALL_RELS, nested=True)
        problems = _check('GET', '/resource_providers/' + RP, 200,
                          _headers('1.15'), body)
        self.assertEqual(
            ['GET /resource_providers/{uuid} at 1.15 answered 200: header '
             'Last-Modified is missing',
             'GET /resource_providers/{uuid} at 1.15 answered 200: header '
             'Cache-Control is missing'], problems)

    def test_a_malformed_last_modified_is_refused(self):
        headers = _headers('1.39', cache=False) + (
            ('Last-Modified', '2030-01-01'), ('Cache-Control', 'no-cache'))
        problems = _check('GET', '/resource_providers/' + RP, 200, headers,
                          _provider(ALL_RELS, nested=True))
        self.assertEqual(1, len(problems), problems)
        self.assertIn('header Last-Modified', problems[0])

    def test_a_status_of_another_window_is_undocumented(self):
        problems = _check('POST', '/resource_providers', 201,
                          _headers('1.20', Location='/resource_providers/x'))
        self.assertEqual(['POST /resource_providers at 1.20 answered 201: '
                          'status 201 is not documented for this operation '
                          'at this version'], problems)

    def test_a_body_where_none_is_documented(self):
        problems = _check('DELETE', '/resource_providers/' + RP, 204,
                          _headers('1.39'), b'{}')
        self.assertEqual(1, len(problems), problems)
        self.assertIn('a body where the document gives none', problems[0])


def _error(status, code=None):
    error = {'status': status, 'title': 'Title', 'detail': 'why',
             'request_id': REQUEST_ID}
    if code:
        error['code'] = code
    return {'errors': [error]}


class TestErrors(unittest.TestCase):

    def test_an_error_has_a_code_from_1_23(self):
        path = '/resource_providers/' + RP
        self.assertEqual([], _check('GET', path, 404, _headers('1.22'),
                                    _error(404)))
        self.assertEqual([], _check('GET', path, 404, _headers('1.23'),
                                    _error(404, 'placement.undefined_code')))
        problems = _check('GET', path, 404, _headers('1.23'), _error(404))
        self.assertIn("'code' is a required property", problems[0])

    def test_an_undocumented_error_status(self):
        problems = _check('GET', '/resource_providers/' + RP, 409,
                          _headers('1.39'), _error(409, 'placement.x'))
        self.assertEqual(['GET /resource_providers/{uuid} at 1.39 answered '
                          '409: status 409 is not documented for this '
                          'operation at this version'], problems)

    def test_below_a_routes_window_it_is_a_documented_404(self):
        self.assertEqual([], _check('GET', '/traits', 404,
                                    _headers('1.5', vary=False),
                                    _error(404)))
        problems = _check('GET', '/traits', 405,
                          _headers('1.5', vary=False), _error(405))
        self.assertEqual(['GET /traits at 1.5 answered 405: status 405 is '
                          'not documented for this operation'], problems)

    def test_an_error_before_a_version_is_chosen(self):
        body = _error(406)
        body['errors'][0].update(max_version='1.39', min_version='1.0')
        self.assertEqual([], _check('GET', '/resource_providers', 406,
                                    _headers(None, vary=False), body))

    def test_no_route_is_an_error_body(self):
        self.assertEqual([], _check('GET', '/nothing', 404,
                                    _headers('1.39', vary=False),
                                    _error(404, 'placement.undefined_code')))
        problems = _check('GET', '/nothing', 200, _headers('1.39'), {})
        self.assertIn('a success where no operation', problems[0])

    def test_a_plain_text_error_when_json_is_not_acceptable(self):
        headers = (('Content-Type', 'text/plain; charset=UTF-8'),
                   ('openstack-api-version', 'placement 1.39'),
                   ('x-openstack-request-id', REQUEST_ID))
        self.assertEqual([], _check('GET', '/resource_providers', 406,
                                    headers, b'406 Not Acceptable'))

    def test_a_401_of_webob(self):
        body = {'code': '401 Unauthorized', 'title': 'Unauthorized',
                'message': 'This server could not verify...'}
        self.assertEqual([], _check('GET', '/resource_providers', 401,
                                    _headers(None, vary=False), body))
