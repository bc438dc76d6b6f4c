"""Handlers for usage (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@wsgi_wrapper.PlacementWsgify
def list_usages(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.9')
@wsgi_wrapper.PlacementWsgify
def get_total_usages(req):
    raise webob.exc.HTTPNotImplemented()
