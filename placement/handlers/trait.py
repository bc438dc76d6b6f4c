"""Handlers for trait (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def list_traits(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def get_trait(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def put_trait(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def delete_trait(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def list_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def update_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def delete_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()
