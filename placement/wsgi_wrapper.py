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
    """wsgify that formats HTTP errors as placement JSON errors.

    Called as a WSGI application it answers as webob's wsgify does, but
    builds the spare ``req.response`` only for a handler that returns
    None or a string (ours return a Response or raise).
    """

    def __call__(self, req, *args, **kw):
        if self.func is None or not isinstance(req, dict) or \
                len(args) != 1 or kw:
            return super().__call__(req, *args, **kw)
        environ, start_response = req, args[0]
        req = self.RequestClass(environ)
        args, kw = self._prepare_args(None, None)
        resp = self.call_func(req, *args, **kw)
        if resp is None or isinstance(resp, (str, bytes)):
            req.response = req.ResponseClass()
            if resp is None:
                resp = req.response
            else:
                if isinstance(resp, str):
                    resp = resp.encode(req.charset)
                req.response.write(resp)
                resp = req.response
        return resp(environ, start_response)

    def call_func(self, req, *args, **kwargs):
        try:
            return super().call_func(req, *args, **kwargs)
        except webob.exc.HTTPException as exc:
            return attach_formatter(exc)
