"""Handlers for allocation candidate (not yet implemented: answer 501)."""
import webob.exc

from placement import microversion
from placement import wsgi_wrapper


@microversion.since('1.10')
@wsgi_wrapper.PlacementWsgify
def list_allocation_candidates(req):
    raise webob.exc.HTTPNotImplemented()
