"""The request body size limit, around a real handler that reads bodies.

The stack is the service's order for these layers: microversion, the size
limit, a handler wrapped as every handler is (PlacementWsgify), which
reads the body through WebOb.
"""
import io
import json
import unittest

from oslo_config import cfg
import webob

from placement import conf as placement_conf
from placement import errors
from placement import microversion
from placement import sizelimit
from placement import wsgi_wrapper

LIMIT = 1000


@wsgi_wrapper.PlacementWsgify
def echo_length(req):
    """Answer the length of the body read."""
    return webob.Response(json_body={'length': len(req.body)})


def make_app(limit=LIMIT):
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf([], project='placement', default_config_files=[])
    if limit is not None:
        conf.set_override('max_request_body_size', limit,
                          group='oslo_middleware')
    return microversion.MicroversionMiddleware(
        sizelimit.BodySizeLimit(echo_length, conf),
        errors.json_error_formatter)


class UnreadInput:
    """A wsgi.input that records whether anything read it."""

    def __init__(self):
        self.reads = 0

    def read(self, *args):
        self.reads += 1
        return b'x'


def request(body_stream, content_length=None, version='1.39'):
    req = webob.Request.blank('/', method='PUT', headers={
        'Accept': 'application/json',
        'Content-Type': 'application/json',
        'OpenStack-API-Version': 'placement %s' % version})
    req.environ['wsgi.input'] = body_stream
    if content_length is None:
        req.environ.pop('CONTENT_LENGTH', None)
        req.environ['wsgi.input_terminated'] = True
    else:
        req.environ['CONTENT_LENGTH'] = str(content_length)
    return req


class BodySizeLimitTest(unittest.TestCase):

    def assertTooLarge(self, resp, code=errors.BODY_TOO_LARGE):
        self.assertEqual(413, resp.status_int)
        error = json.loads(resp.body)['errors'][0]
        self.assertEqual(413, error['status'])
        self.assertEqual(code, error.get('code'))
        self.assertIn('the limit is %d bytes' % LIMIT, error['detail'])

    def test_default_is_one_mebibyte(self):
        req = request(io.BytesIO(b' ' * (1024 * 1024)), 1024 * 1024)
        resp = req.get_response(make_app(None))
        # WebOb copied the body to a temporary file.
        self.addCleanup(req.environ['wsgi.input'].close)
        self.assertEqual({'length': 1024 * 1024}, resp.json)
        resp = request(io.BytesIO(b' ' * 1048577), 1048577).get_response(
            make_app(None))
        self.assertEqual(413, resp.status_int)

    def test_a_body_at_the_limit_is_read(self):
        resp = request(io.BytesIO(b'x' * LIMIT), LIMIT).get_response(
            make_app())
        self.assertEqual({'length': LIMIT}, resp.json)

    def test_a_declared_length_over_the_limit_is_never_read(self):
        stream = UnreadInput()
        resp = request(stream, 10 ** 12).get_response(make_app())
        self.assertTooLarge(resp)
        self.assertEqual(0, stream.reads)

    def test_no_code_before_1_23(self):
        resp = request(UnreadInput(), LIMIT + 1, version='1.22').get_response(
            make_app())
        self.assertTooLarge(resp, code=None)

    def test_chunked_body_under_the_limit(self):
        resp = request(io.BytesIO(b'x' * LIMIT)).get_response(make_app())
        self.assertEqual({'length': LIMIT}, resp.json)

    def test_chunked_body_over_the_limit_stops_reading(self):
        stream = io.BytesIO(b'x' * (10 * 1024 * 1024))
        resp = request(stream).get_response(make_app())
        self.assertTooLarge(resp)
        # One read of WebOb's (64 KiB) past the limit, not the 10 MiB.
        self.assertLessEqual(stream.tell(), LIMIT + 65535)

    def test_a_non_numeric_length_is_left_to_dispatch(self):
        resp = request(io.BytesIO(b'{}'), 'x').get_response(make_app())
        self.assertNotEqual(413, resp.status_int)


class LimitedInputTest(unittest.TestCase):

    def test_every_way_of_reading_counts(self):
        for read in (lambda s: s.read(),
                     lambda s: [s.readline() for _ in range(10)],
                     lambda s: s.readlines(), lambda s: list(s)):
            stream = sizelimit.LimitedInput(io.BytesIO(b'a\n' * 10), 19)
            with self.assertRaises(webob.exc.HTTPRequestEntityTooLarge):
                read(stream)

    def test_reading_up_to_the_limit_is_fine(self):
        stream = sizelimit.LimitedInput(io.BytesIO(b'a\n' * 10), 20)
        self.assertEqual(b'a\n' * 10, stream.read())
        self.assertEqual(b'', stream.read())
