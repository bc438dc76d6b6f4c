"""The decorator that turns a handler function into a WSGI application.

Every webob HTTP error a handler (or dispatch) raises gets its body from
the one formatter in ``errors``, with the code the raiser attached.
"""
import functools

import webob.dec
import webob.exc

from placement import errors


def attach_formatter(exc):
    """Give an HTTP error the placement JSON formatter and its code."""
    code = getattr(exc, 'placement_code', None)
    exc.json_formatter = functools.partial(errors.json_error_formatter,
                                           code=code)
    return exc


class PlacementWsgify(webob.dec.wsgify):
    """wsgify that formats HTTP errors as placement JSON errors."""

    def call_func(self, req, *args, **kwargs):
        try:
            return super().call_func(req, *args, **kwargs)
        except webob.exc.HTTPException as exc:
            return attach_formatter(exc)
