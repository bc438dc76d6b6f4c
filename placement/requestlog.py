"""Middleware: one INFO access line per request; JSON as default Accept.

A missing or ``*/*`` Accept header is read as ``application/json`` so that
error bodies (rendered by WebOb from the Accept header) default to JSON.
"""
from oslo_log import log as logging

from placement import microversion

LOG = logging.getLogger(__name__)


class RequestLog:
    """Log method, path, status, length and microversion of each request."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        accept = environ.get('HTTP_ACCEPT', '').strip()
        if not accept or accept == '*/*':
            environ['HTTP_ACCEPT'] = 'application/json'
        LOG.debug('Starting request: %s "%s %s"',
                  environ.get('REMOTE_ADDR'), environ['REQUEST_METHOD'],
                  self._uri(environ))
        state = {}

        def record(status, headers, exc_info=None):
            state['status'] = status.split(None, 1)[0]
            for key, value in headers:
                if key.lower() == 'content-length':
                    state['length'] = value
            return start_response(status, headers, exc_info)

        result = self.application(environ, record)
        self._log(environ, state)
        return result

    @staticmethod
    def _uri(environ):
        uri = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
        if environ.get('QUERY_STRING'):
            uri += '?' + environ['QUERY_STRING']
        return uri

    def _log(self, environ, state):
        mv = environ.get(microversion.ENVIRON_KEY)
        LOG.info('%(addr)s "%(method)s %(uri)s" status: %(status)s '
                 'len: %(length)s microversion: %(mv)s',
                 {'addr': environ.get('REMOTE_ADDR', '-'),
                  'method': environ['REQUEST_METHOD'],
                  'uri': self._uri(environ),
                  'status': state.get('status', '-'),
                  'length': state.get('length', 0),
                  'mv': mv if mv is not None else '-'})
