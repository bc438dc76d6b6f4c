"""Handlers for reshaper (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@microversion.since('1.30')
@wsgi_wrapper.PlacementWsgify
def reshape(req):
    raise webob.exc.HTTPNotImplemented()
