"""Middleware that turns any uncaught exception into a logged JSON 500."""
import traceback

from oslo_log import log as logging
import webob.exc

from placement import errors

LOG = logging.getLogger(__name__)


class FaultWrapper:
    """Catch what nothing else caught; never show a traceback page."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        try:
            return self.application(environ, start_response)
        except Exception as exc:
            LOG.exception('Placement API unexpected error: %s', exc)
            formatted = traceback.format_exception_only(type(exc), exc)
            detail = 'Unexpected error: %s' % ''.join(formatted).strip()

            def formatter(body, status, title, environ):
                return errors.json_error_formatter(body, status, title,
                                                   environ)
            error = webob.exc.HTTPInternalServerError(
                detail, json_formatter=formatter)
            return error(environ, start_response)
