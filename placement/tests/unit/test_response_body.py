"""Every answer's body leaves the application as one bytes object.

A body handed to the server in several pieces is written in several
pieces, and on a kept-alive connection the last small one can wait for
the client's delayed ACK (issue 25). Each kind of answer is checked here
as a WSGI server sees it: JSON 200 (a large list too), the same with
work left for after the response, an empty 204, errors from a handler,
from dispatch and from the middleware, through the whole middleware
stack where no database is needed.
"""
import unittest

import webob
import webob.exc

from placement import deploy
from placement import microversion
from placement import policy
from placement.testing import app as app_fixture
from placement import util
from placement import wsgi_wrapper

MV = microversion.parse_version('1.39')


def _chunks(app, path='/', method='GET', **headers):
    """(status, the chunks the WSGI iterable yields) of ``app``."""
    environ = webob.Request.blank(path, method=method,
                                  headers=headers).environ
    started = {}

    def start_response(status, headers, exc_info=None):
        started['status'] = status

    result = app(environ, start_response)
    try:
        chunks = list(result)
    finally:
        if hasattr(result, 'close'):
            result.close()
    return started['status'], chunks


class TestHelpers(unittest.TestCase):

    def test_json_answer_is_one_chunk(self):
        resp = util.json_response(None, MV, {'a': [1, 2]})
        self.assertEqual(('200 OK', [b'{"a":[1,2]}']), _chunks(resp))

    def test_a_large_deferred_list_is_one_chunk(self):
        body = {'items': util.deferred(lambda n: {'n': n}, range(10000))}
        status, chunks = _chunks(util.json_response(None, MV, body))
        self.assertEqual(1, len(chunks))
        self.assertEqual(int(util.json_response(None, MV, body)
                             .headers['Content-Length']), len(chunks[0]))

    def test_small_lists_rendered_at_once_large_ones_deferred(self):
        rendered = []

        def render(n):
            rendered.append(n)
            return {'n': n}

        small = util.deferred(render, range(util.EAGER_ITEMS))
        self.assertEqual(util.EAGER_ITEMS, len(rendered))
        large = util.deferred(render, range(util.EAGER_ITEMS + 1))
        self.assertEqual(util.EAGER_ITEMS, len(rendered))
        self.assertEqual(util.render_json(small)[:-1],
                         util.render_json(large)[:-len(b',{"n":1000}]')])
        self.assertEqual(2 * util.EAGER_ITEMS + 1, len(rendered))

    def test_work_after_the_response_keeps_one_chunk(self):
        ran = []
        resp = util.after_response(util.json_response(None, MV, {}),
                                   lambda: ran.append(True))
        self.assertEqual(('200 OK', [b'{}']), _chunks(resp))
        self.assertEqual([True], ran)
        self.assertEqual('2', resp.headers['Content-Length'])

    def test_empty_answer_is_at_most_one_chunk(self):
        status, chunks = _chunks(util.empty_response(None, MV))
        self.assertEqual('204 No Content', status)
        self.assertLessEqual(len(chunks), 1)
        self.assertEqual(b'', b''.join(chunks))

    def test_handler_error_is_one_chunk(self):
        @wsgi_wrapper.PlacementWsgify
        def refuse(req):
            raise util.http_error(webob.exc.HTTPConflict, 'no', code='x')

        status, chunks = _chunks(refuse, HTTP_ACCEPT='application/json')
        self.assertEqual('409 Conflict', status)
        self.assertEqual(1, len(chunks))


class TestWholeStack(unittest.TestCase):
    """The middleware stack (request id, log, auth, microversion, fault
    wrap, dispatch) around answers that need no database."""

    def setUp(self):
        super().setUp()
        conf = app_fixture.make_conf('sqlite://')
        self.app = deploy.build_app(conf, None,
                                    policy.build_enforcer(conf))

    def test_each_kind(self):
        cases = [
            ('200 OK', 'GET', '/', {}),
            ('404 Not Found', 'GET', '/nothing-here', {}),
            ('405 Method Not Allowed', 'PATCH', '/resource_providers', {}),
            ('400 Bad Request', 'GET', '/',
             {'OpenStack-API-Version': 'placement 1.x'}),
            ('406 Not Acceptable', 'GET', '/',
             {'OpenStack-API-Version': 'placement 9.0'}),
        ]
        for status, method, path, headers in cases:
            with self.subTest(method=method, path=path, headers=headers):
                found, chunks = _chunks(self.app, path, method,
                                        **{'X-Auth-Token': 'admin'},
                                        **headers)
                self.assertEqual(status, found)
                self.assertEqual(1, len(chunks))
