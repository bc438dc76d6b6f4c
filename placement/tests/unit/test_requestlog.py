"""The access line: its content, and that it is written once the server
has taken the whole body (when it closes it), before the body's own
close runs."""
import logging

import testtools

from placement import requestlog


class _Records(logging.Handler):

    def __init__(self, events):
        super().__init__(logging.DEBUG)
        self.messages, self.events = [], events

    def emit(self, record):
        self.messages.append(record.getMessage())
        self.events.append('line')


class _Body:
    """A response body that notes when it is iterated and closed."""

    def __init__(self, events):
        self.events = events

    def __iter__(self):
        self.events.append('iterated')
        return iter([b'{"a": 1}'])

    def close(self):
        self.events.append('closed')


class TestRequestLog(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.events = []
        self.records = _Records(self.events)
        logger = logging.getLogger('placement.requestlog')
        level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self.records)
        self.addCleanup(logger.removeHandler, self.records)
        self.addCleanup(logger.setLevel, level)

    def app(self, environ, start_response):
        environ['placement.microversion'] = '1.39'
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', '8')])
        return _Body(self.events)

    def serve(self, environ):
        """Call the middleware as a WSGI server does (PEP 3333)."""
        body = requestlog.RequestLog(self.app)(
            environ, lambda status, headers, exc_info=None: None)
        chunks = list(body)
        self.events.append('sent')
        body.close()
        return b''.join(chunks)

    def test_line_names_request_status_length_and_version(self):
        self.assertEqual(b'{"a": 1}', self.serve({
            'REQUEST_METHOD': 'GET', 'REMOTE_ADDR': '10.0.0.1',
            'SCRIPT_NAME': '/placement', 'PATH_INFO': '/traits',
            'QUERY_STRING': 'name=in:A'}))
        self.assertEqual(
            ['10.0.0.1 "GET /placement/traits?name=in:A" status: 200 '
             'len: 8 microversion: 1.39'], self.records.messages)

    def test_line_is_written_on_close_before_the_body_closes(self):
        self.serve({'REQUEST_METHOD': 'GET', 'PATH_INFO': '/'})
        self.assertEqual(['iterated', 'sent', 'line', 'closed'],
                         self.events)

    def test_no_line_and_body_unwrapped_below_info(self):
        logging.getLogger('placement.requestlog').setLevel(logging.WARNING)
        body = requestlog.RequestLog(self.app)(
            {'REQUEST_METHOD': 'GET', 'PATH_INFO': '/'},
            lambda status, headers, exc_info=None: None)
        self.assertIsInstance(body, _Body)
        self.assertEqual([], self.records.messages)
