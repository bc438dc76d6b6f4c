"""Handlers for resource class (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
def list_resource_classes(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
def create_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
def get_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.2', '1.6')
@wsgi_wrapper.PlacementWsgify
def update_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.7')
@wsgi_wrapper.PlacementWsgify
def create_or_verify_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
def delete_resource_class(req):
    raise webob.exc.HTTPNotImplemented()
