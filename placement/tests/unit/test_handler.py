"""The route table: every route of the API, version windows that never
overlap, and the pure pieces of dispatch (matching, 404/405, headers)."""
import unittest

import webob
import webob.exc

from placement import handler
from placement import microversion

V = microversion.parse_version
LATEST = microversion.MAX_VERSION

# CHECKLIST 1.1: (route, method) -> (first version, status below it).
EXPECTED_ROUTES = {
    ('/', 'GET'): ('1.0', None),
    ('/resource_providers', 'GET'): ('1.0', None),
    ('/resource_providers', 'POST'): ('1.0', None),
    ('/resource_providers/{uuid}', 'GET'): ('1.0', None),
    ('/resource_providers/{uuid}', 'PUT'): ('1.0', None),
    ('/resource_providers/{uuid}', 'DELETE'): ('1.0', None),
    ('/resource_providers/{uuid}/inventories', 'GET'): ('1.0', None),
    ('/resource_providers/{uuid}/inventories', 'POST'): ('1.0', None),
    ('/resource_providers/{uuid}/inventories', 'PUT'): ('1.0', None),
    ('/resource_providers/{uuid}/inventories', 'DELETE'): ('1.5', 405),
    ('/resource_providers/{uuid}/inventories/{resource_class}', 'GET'):
        ('1.0', None),
    ('/resource_providers/{uuid}/inventories/{resource_class}', 'PUT'):
        ('1.0', None),
    ('/resource_providers/{uuid}/inventories/{resource_class}', 'DELETE'):
        ('1.0', None),
    ('/resource_providers/{uuid}/usages', 'GET'): ('1.0', None),
    ('/resource_providers/{uuid}/aggregates', 'GET'): ('1.1', 404),
    ('/resource_providers/{uuid}/aggregates', 'PUT'): ('1.1', 404),
    ('/resource_providers/{uuid}/allocations', 'GET'): ('1.0', None),
    ('/resource_providers/{uuid}/traits', 'GET'): ('1.6', 404),
    ('/resource_providers/{uuid}/traits', 'PUT'): ('1.6', 404),
    ('/resource_providers/{uuid}/traits', 'DELETE'): ('1.6', 404),
    ('/resource_classes', 'GET'): ('1.2', 404),
    ('/resource_classes', 'POST'): ('1.2', 404),
    ('/resource_classes/{name}', 'GET'): ('1.2', 404),
    ('/resource_classes/{name}', 'PUT'): ('1.2', 404),
    ('/resource_classes/{name}', 'DELETE'): ('1.2', 404),
    ('/traits', 'GET'): ('1.6', 404),
    ('/traits/{name}', 'GET'): ('1.6', 404),
    ('/traits/{name}', 'PUT'): ('1.6', 404),
    ('/traits/{name}', 'DELETE'): ('1.6', 404),
    ('/allocations', 'POST'): ('1.13', 404),
    ('/allocations/{consumer_uuid}', 'GET'): ('1.0', None),
    ('/allocations/{consumer_uuid}', 'PUT'): ('1.0', None),
    ('/allocations/{consumer_uuid}', 'DELETE'): ('1.0', None),
    ('/usages', 'GET'): ('1.9', 404),
    ('/allocation_candidates', 'GET'): ('1.10', 404),
    ('/reshaper', 'POST'): ('1.30', 404),
}


def _windows(handlers):
    handlers = handlers if isinstance(handlers, tuple) else (handlers,)
    return sorted(((microversion.window_of(h), h) for h in handlers),
                  key=lambda pair: pair[0])


def _declared():
    for template, methods in handler.ROUTE_DECLARATIONS.items():
        for method, handlers in methods.items():
            yield template, method, handlers


class RouteTableTest(unittest.TestCase):

    def test_every_route_of_the_api_is_declared_and_nothing_else(self):
        declared = {(template, method)
                    for template, method, _h in _declared()}
        self.assertEqual(set(EXPECTED_ROUTES), declared)

    def test_no_two_windows_of_a_route_and_method_overlap(self):
        for template, method, handlers in _declared():
            windows = [window for window, _h in _windows(handlers)]
            for (_low, high), (next_low, _next_high) in zip(
                    windows, windows[1:]):
                self.assertLess(high, next_low, (template, method))

    def test_windows_are_contiguous_up_to_the_latest_version(self):
        for template, method, handlers in _declared():
            windows = [window for window, _h in _windows(handlers)]
            self.assertEqual(LATEST, windows[-1][1], (template, method))
            for (_low, high), (next_low, _next_high) in zip(
                    windows, windows[1:]):
                self.assertEqual((high.major, high.minor + 1),
                                 (next_low.major, next_low.minor),
                                 (template, method))

    def test_first_version_and_status_below_it(self):
        for template, method, handlers in _declared():
            first_version, below = EXPECTED_ROUTES[(template, method)]
            (low, _high), earliest = _windows(handlers)[0]
            self.assertEqual(V(first_version), low, (template, method))
            if below is not None:
                self.assertEqual(below, getattr(earliest, 'below_status',
                                                404), (template, method))

    def test_resource_class_put_changes_at_1_7(self):
        windows = [window for window, _h in _windows(
            handler.ROUTE_DECLARATIONS['/resource_classes/{name}']['PUT'])]
        self.assertEqual([(V('1.2'), V('1.6')), (V('1.7'), LATEST)],
                         windows)

    def test_templates_have_no_regex_constraints(self):
        for template in handler.ROUTE_DECLARATIONS:
            self.assertNotIn(':', template)


def _get(version='1.0'):
    return microversion.since(version)(lambda req: 'get %s' % version)


class RouteTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.old = microversion.since('1.0', '1.6')(lambda req: 'old')
        self.new = microversion.since('1.7')(lambda req: 'new')
        self.delete = microversion.since('1.5', status=405)(
            lambda req: 'delete')
        self.route = handler.Route('/things/{name}', {
            'GET': _get(), 'PUT': (self.old, self.new),
            'DELETE': self.delete})

    def test_any_segment_matches(self):
        match = self.route.regex.match('/things/not a uuid!')
        self.assertEqual({'name': 'not a uuid!'}, match.groupdict())
        self.assertIsNone(self.route.regex.match('/things/a/b'))
        self.assertIsNone(self.route.regex.match('/things/'))

    def test_the_window_picks_the_handler(self):
        self.assertIs(self.old, self.route.select('PUT', V('1.6')))
        self.assertIs(self.new, self.route.select('PUT', V('1.7')))

    def test_unknown_method_is_405_with_allow(self):
        with self.assertRaises(webob.exc.HTTPMethodNotAllowed) as caught:
            self.route.select('PATCH', V('1.0'))
        self.assertEqual('GET, PUT, DELETE',
                         caught.exception.headers['Allow'])

    def test_allow_lists_every_declared_method(self):
        self.assertEqual(['GET', 'PUT', 'DELETE'], self.route.allowed())

    def test_method_below_its_window_gets_its_status(self):
        # Without Allow, as the reference service answers.
        with self.assertRaises(webob.exc.HTTPMethodNotAllowed) as caught:
            self.route.select('DELETE', V('1.4'))
        self.assertNotIn('allow', caught.exception.headers)

    def test_route_below_its_window_is_404(self):
        route = handler.Route('/new', {'GET': _get('1.10')})
        with self.assertRaises(webob.exc.HTTPNotFound):
            route.select('GET', V('1.9'))

    def test_match_finds_declared_routes(self):
        route, args = handler._match(
            '/resource_providers/abc/inventories/VCPU')
        self.assertEqual(
            '/resource_providers/{uuid}/inventories/{resource_class}',
            route.template)
        self.assertEqual({'uuid': 'abc', 'resource_class': 'VCPU'}, args)
        self.assertEqual((None, None), handler._match('/nope'))

    def test_path_segments_are_latin1_characters_never_utf8(self):
        # PEP 3333 PATH_INFO as a server gives it; the reference service
        # names '/resource_classes/CUSTOM_%C3%A9' as 'CUSTOM_\xc3\xa9' and
        # a non-UTF-8 segment is an ordinary 404 naming it.
        for raw, name in (('/resource_classes/CUSTOM_\xc3\xa9',
                           'CUSTOM_\xc3\xa9'),
                          ('/resource_classes/\xff\xfe', '\xff\xfe')):
            route, args = handler._match(handler._path({'PATH_INFO': raw}))
            self.assertEqual('/resource_classes/{name}', route.template)
            self.assertEqual({'name': name}, args)

    def test_a_path_no_server_sends_matches_nothing(self):
        self.assertEqual((None, None), handler._match(handler._path(
            {'PATH_INFO': '/resource_classes/\u2603'})))


class ContentHeadersTest(unittest.TestCase):

    def _check(self, **environ):
        handler._check_content_headers(webob.Request.blank('/', **environ))

    def test_no_body_needs_nothing(self):
        self._check()

    def test_non_integer_length_is_400(self):
        with self.assertRaisesRegex(webob.exc.HTTPBadRequest,
                                    'must be an integer'):
            self._check(environ={'CONTENT_LENGTH': 'abc'})

    def test_body_without_type_is_400(self):
        with self.assertRaisesRegex(webob.exc.HTTPBadRequest,
                                    'content-type header required'):
            self._check(environ={'CONTENT_LENGTH': '2'})

    def test_body_with_type_is_fine(self):
        self._check(environ={'CONTENT_LENGTH': '2',
                             'CONTENT_TYPE': 'text/plain'})

    def test_zero_length_needs_no_type(self):
        self._check(environ={'CONTENT_LENGTH': '0'})
