"""Handlers for resource provider (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@wsgi_wrapper.PlacementWsgify
def list_resource_providers(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def create_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def get_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def update_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def delete_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()
