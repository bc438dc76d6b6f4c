"""Middleware: refuse request bodies longer than ``[oslo_middleware]
max_request_body_size`` with a JSON 413 (``placement.body.too_large``).

The option and its meaning are oslo.middleware's (its sizelimit
middleware), whose 413 is not the API's error body: so this one.

- A Content-Length over the limit is answered at once: nothing of the
  body is read, however long the client says it is.
- A body without Content-Length (chunked, where the server hands it on
  and sets ``wsgi.input_terminated``) is counted as the handler reads it;
  the read that passes the limit raises the same 413, which the handler's
  wrapper formats. At most the limit plus one read (64 KiB, WebOb's) is
  taken from the client.

It sits inside the microversion middleware (the error's ``code`` is shown
from 1.23) and outside dispatch; a Content-Length that is not a number is
left to dispatch's 400.
"""
import functools

import webob.exc

from placement import errors


def too_large(limit):
    """The 413 for a body over ``limit`` bytes, with the placement code."""
    exc = webob.exc.HTTPRequestEntityTooLarge(
        'Request body too large: the limit is %d bytes '
        '([oslo_middleware] max_request_body_size).' % limit)
    exc.placement_code = errors.BODY_TOO_LARGE
    exc.json_formatter = functools.partial(errors.json_error_formatter,
                                           code=errors.BODY_TOO_LARGE)
    return exc


class LimitedInput:
    """A ``wsgi.input`` that raises the 413 once more than ``limit``
    bytes have been read from it."""

    def __init__(self, stream, limit):
        self.stream, self.limit, self.taken = stream, limit, 0

    def _count(self, data):
        self.taken += len(data)
        if self.taken > self.limit:
            raise too_large(self.limit)
        return data

    def read(self, *args):
        return self._count(self.stream.read(*args))

    def readline(self, *args):
        return self._count(self.stream.readline(*args))

    def readlines(self, hint=-1):
        return [self._count(line) for line in self.stream.readlines(hint)]

    def __iter__(self):
        return (self._count(line) for line in self.stream)


def _declared_length(environ):
    """The Content-Length as a number; None when absent or not a number."""
    try:
        return int(environ.get('CONTENT_LENGTH') or '')
    except ValueError:
        return None


class BodySizeLimit:
    """413 for a request body longer than the configured limit."""

    def __init__(self, application, conf):
        self.application = application
        self.limit = conf.oslo_middleware.max_request_body_size

    def __call__(self, environ, start_response):
        length = _declared_length(environ)
        if length is not None:
            if length > self.limit:
                return too_large(self.limit)(environ, start_response)
        elif environ.get('wsgi.input_terminated'):
            environ['wsgi.input'] = LimitedInput(environ['wsgi.input'],
                                                 self.limit)
        return self.application(environ, start_response)
