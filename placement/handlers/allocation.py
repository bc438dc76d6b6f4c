"""Handlers for allocation (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@wsgi_wrapper.PlacementWsgify
def list_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.13')
@wsgi_wrapper.PlacementWsgify
def set_allocations(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def list_for_consumer(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def set_allocations_for_consumer(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def delete_allocations(req):
    raise webob.exc.HTTPNotImplemented()
