"""Handlers for aggregate (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@microversion.since('1.1')
@wsgi_wrapper.PlacementWsgify
def get_aggregates(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.1')
@wsgi_wrapper.PlacementWsgify
def set_aggregates(req):
    raise webob.exc.HTTPNotImplemented()
