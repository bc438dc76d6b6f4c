"""Handlers for inventory (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@wsgi_wrapper.PlacementWsgify
def get_inventories(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def create_inventory(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def set_inventories(req):
    raise webob.exc.HTTPNotImplemented()


@microversion.since('1.5', status=405)
@wsgi_wrapper.PlacementWsgify
def delete_inventories(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def get_inventory(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def update_inventory(req):
    raise webob.exc.HTTPNotImplemented()


@wsgi_wrapper.PlacementWsgify
def delete_inventory(req):
    raise webob.exc.HTTPNotImplemented()
