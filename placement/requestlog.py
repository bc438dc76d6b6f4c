"""Middleware: the request id; one INFO access line per request; JSON as
the default Accept.

A missing or ``*/*`` Accept header is read as ``application/json`` so that
error bodies (rendered by WebOb from the Accept header) default to JSON.

The access line is written when the server closes the response body
(PEP 3333: every server calls ``close()``, the client gone or not), so
after the body has been handed to the server: formatting it through
oslo.log costs about 0.1 ms, which the client then no longer waits for.
"""
import logging as py_logging
import re
import uuid

from oslo_log import log as logging

from placement import microversion
from placement import util

LOG = logging.getLogger(__name__)

# The names oslo.middleware's request_id middleware uses, which
# oslo.context and oslo.log read back.
ENV_REQUEST_ID = 'openstack.request_id'
ENV_GLOBAL_REQUEST_ID = 'openstack.global_request_id'
RESPONSE_HEADER = 'x-openstack-request-id'
_INBOUND_HEADER = 'HTTP_X_OPENSTACK_REQUEST_ID'
_GLOBAL_ID_RE = re.compile(
    r'^req-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$')


class RequestId:
    """oslo.middleware's RequestId, as plain WSGI.

    A new ``req-<uuid4>`` for every request, in the environ and in the
    ``x-openstack-request-id`` response header (unless the application set
    that header); an inbound ``X-Openstack-Request-Id`` of the same form is
    kept as the global request id. The same environ keys and header as the
    library's, without a webob Request and a captured copy of the
    response at each request.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        global_id = environ.get(_INBOUND_HEADER, '')
        if _GLOBAL_ID_RE.match(global_id):
            environ[ENV_GLOBAL_REQUEST_ID] = global_id
        request_id = 'req-%s' % uuid.uuid4()
        environ[ENV_REQUEST_ID] = request_id

        def add_id(status, headers, exc_info=None):
            if not any(key.lower() == RESPONSE_HEADER for key, _ in headers):
                headers = list(headers)
                headers.append((RESPONSE_HEADER, request_id))
            return start_response(status, headers, exc_info)

        return self.application(environ, add_id)


class RequestLog:
    """Log method, path, status, length and microversion of each request."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        accept = environ.get('HTTP_ACCEPT', '').strip()
        if not accept or accept == '*/*':
            environ['HTTP_ACCEPT'] = 'application/json'
        if LOG.isEnabledFor(py_logging.DEBUG):
            LOG.debug('Starting request: %s "%s %s"',
                      environ.get('REMOTE_ADDR'), environ['REQUEST_METHOD'],
                      _uri(environ))
        if not LOG.isEnabledFor(py_logging.INFO):
            return self.application(environ, start_response)
        state = {}

        def record(status, headers, exc_info=None):
            state['status'] = status.split(None, 1)[0]
            for key, value in headers:
                if key.lower() == 'content-length':
                    state['length'] = value
            return start_response(status, headers, exc_info)

        # The line once the body has gone out, before the body's own
        # close (which may log more).
        return util.ThenClose(self.application(environ, record),
                              lambda: _log(environ, state))


def _uri(environ):
    uri = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    if environ.get('QUERY_STRING'):
        uri += '?' + environ['QUERY_STRING']
    return uri


def _log(environ, state):
    mv = environ.get(microversion.ENVIRON_KEY)
    LOG.info('%(addr)s "%(method)s %(uri)s" status: %(status)s '
             'len: %(length)s microversion: %(mv)s',
             {'addr': environ.get('REMOTE_ADDR', '-'),
              'method': environ['REQUEST_METHOD'],
              'uri': _uri(environ),
              'status': state.get('status', '-'),
              'length': state.get('length', 0),
              'mv': mv if mv is not None else '-'})
