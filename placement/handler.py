"""Dispatch: the route table, 404/405, version windows, error mapping.

``ROUTE_DECLARATIONS`` maps every URL template of the API to
``{METHOD: handler}``. A handler is one function, or a tuple of functions
with disjoint version windows (``microversion.since``) for one method.
Path templates carry no regex constraints: ``/resource_providers/foo``
reaches the handler, which answers an ordinary 404.
"""
import re

from oslo_log import log as logging
import webob
import webob.exc

from placement import exception
from placement.handlers import aggregate
from placement.handlers import allocation
from placement.handlers import allocation_candidate
from placement.handlers import inventory
from placement.handlers import reshaper
from placement.handlers import resource_class
from placement.handlers import resource_provider
from placement.handlers import root
from placement.handlers import trait
from placement.handlers import usage
from placement import microversion
from placement import observe
from placement import util
from placement import wsgi_wrapper

LOG = logging.getLogger(__name__)

ROUTE_DECLARATIONS = {
    '/': {
        'GET': root.home,
    },
    '/resource_classes': {
        'GET': resource_class.list_resource_classes,
        'POST': resource_class.create_resource_class,
    },
    '/resource_classes/{name}': {
        'GET': resource_class.get_resource_class,
        'PUT': (resource_class.update_resource_class,
                resource_class.create_or_verify_resource_class),
        'DELETE': resource_class.delete_resource_class,
    },
    '/resource_providers': {
        'GET': resource_provider.list_resource_providers,
        'POST': resource_provider.create_resource_provider,
    },
    '/resource_providers/{uuid}': {
        'GET': resource_provider.get_resource_provider,
        'DELETE': resource_provider.delete_resource_provider,
        'PUT': resource_provider.update_resource_provider,
    },
    '/resource_providers/{uuid}/inventories': {
        'GET': inventory.get_inventories,
        'POST': inventory.create_inventory,
        'PUT': inventory.set_inventories,
        'DELETE': inventory.delete_inventories,
    },
    '/resource_providers/{uuid}/inventories/{resource_class}': {
        'GET': inventory.get_inventory,
        'PUT': inventory.update_inventory,
        'DELETE': inventory.delete_inventory,
    },
    '/resource_providers/{uuid}/usages': {
        'GET': usage.list_usages,
    },
    '/resource_providers/{uuid}/aggregates': {
        'GET': aggregate.get_aggregates,
        'PUT': aggregate.set_aggregates,
    },
    '/resource_providers/{uuid}/allocations': {
        'GET': allocation.list_for_resource_provider,
    },
    '/allocations': {
        'POST': allocation.set_allocations,
    },
    '/allocations/{consumer_uuid}': {
        'GET': allocation.list_for_consumer,
        'PUT': allocation.set_allocations_for_consumer,
        'DELETE': allocation.delete_allocations,
    },
    '/allocation_candidates': {
        'GET': allocation_candidate.list_allocation_candidates,
    },
    '/traits': {
        'GET': trait.list_traits,
    },
    '/traits/{name}': {
        'GET': trait.get_trait,
        'PUT': trait.put_trait,
        'DELETE': trait.delete_trait,
    },
    '/resource_providers/{uuid}/traits': {
        'GET': trait.list_traits_for_resource_provider,
        'PUT': trait.update_traits_for_resource_provider,
        'DELETE': trait.delete_traits_for_resource_provider,
    },
    '/usages': {
        'GET': usage.get_total_usages,
    },
    '/reshaper': {
        'POST': reshaper.reshape,
    },
}

_VAR_RE = re.compile(r'\{(\w+)\}')


def _compile(template):
    """'/a/{b}' -> regex '^/a/(?P<b>[^/]+)$' (any segment, no constraint)."""
    pattern = _VAR_RE.sub(r'(?P<\1>[^/]+)', re.escape(template)
                          .replace(r'\{', '{').replace(r'\}', '}'))
    return re.compile('^%s$' % pattern)


def _as_tuple(handlers):
    return handlers if isinstance(handlers, tuple) else (handlers,)


class Route:
    """One URL template and its handlers, by method."""

    def __init__(self, template, methods):
        self.template = template
        self.regex = _compile(template)
        self.methods = {method: _as_tuple(handlers)
                        for method, handlers in methods.items()}

    def select(self, method, mv):
        """The handler serving ``method`` at ``mv``; raise 404/405."""
        handlers = self.methods.get(method)
        if handlers is None:
            raise _method_not_allowed(self.allowed())
        for handler in handlers:
            low, high = microversion.window_of(handler)
            if low <= mv <= high:
                return handler
        status = getattr(handlers[0], 'below_status', 404)
        if status == 405:
            # A method the URL gains at a later version: no Allow header
            # and no reason sentence, as the reference service answers.
            raise webob.exc.HTTPMethodNotAllowed()
        raise webob.exc.HTTPNotFound()

    def allowed(self):
        """Every method declared for the URL, at any version: the
        reference service's Allow header does not follow the version
        (PATCH /reshaper at 1.29 is allowed POST)."""
        return list(self.methods)


def _method_not_allowed(methods):
    return webob.exc.HTTPMethodNotAllowed(
        'The method specified is not allowed for this resource.',
        headers={'allow': ', '.join(methods)})


ROUTES = [Route(template, methods)
          for template, methods in ROUTE_DECLARATIONS.items()]


def _check_content_headers(req):
    """400 for a bad content-length or a body without a content type;
    these answers carry no Vary header upstream."""
    length = req.environ.get('CONTENT_LENGTH')
    if length in (None, ''):
        return
    try:
        length = int(length)
    except ValueError:
        req.environ[microversion.NO_VARY_KEY] = True
        raise webob.exc.HTTPBadRequest(
            'content-length header must be an integer')
    if length > 0 and not req.environ.get('CONTENT_TYPE'):
        req.environ[microversion.NO_VARY_KEY] = True
        raise webob.exc.HTTPBadRequest(
            'content-type header required when content-length > 0')


def _path(environ):
    """PATH_INFO as the WSGI server gives it: each byte one latin-1
    character, never decoded as UTF-8. The reference service matches and
    names path segments that way, so a non-UTF-8 path is an ordinary 404
    and 'CUSTOM_\xc3\xa9' is what a 404 for CUSTOM_\u00e9 names."""
    path = environ.get('PATH_INFO', '') or '/'
    try:
        path.encode('latin-1')
    except UnicodeEncodeError:
        return None  # not from the wire (PEP 3333): matches no route
    return path


# Templates without a variable, by path: a template with a variable has
# two or more segments and so never matches one of these paths.
_STATIC_ROUTES = {route.template: route for route in ROUTES
                  if '{' not in route.template}


def route_template(environ):
    """The template of the route matching the request's path, or None."""
    route, _args = _match(_path(environ))
    return route.template if route is not None else None


def _match(path):
    if path is None:
        return None, None
    route = _STATIC_ROUTES.get(path)
    if route is not None:
        return route, {}
    for route in ROUTES:
        match = route.regex.match(path)
        if match:
            return route, match.groupdict()
    return None, None


class PlacementHandler:
    """The innermost WSGI app: dispatch to a handler by URL and method.

    The handler (a ``PlacementWsgify``) is called with this request
    object rather than as a second WSGI application: the same answer
    without a second Request and a captured copy of the Response.
    """

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            resp = self._dispatch(req)
        except webob.exc.HTTPException as exc:
            resp = wsgi_wrapper.attach_formatter(exc)
        return resp(environ, start_response)

    @staticmethod
    def _dispatch(req):
        _check_content_headers(req)
        route, args = _match(_path(req.environ))
        if route is None:
            req.environ[microversion.NO_VARY_KEY] = True
            raise webob.exc.HTTPNotFound()
        observe.route(req.environ, route.template)
        handler = route.select(req.method, util.version(req))
        req.environ['wsgiorg.routing_args'] = ((), args)
        try:
            return handler(req)
        except exception.NotFound as exc:
            req.environ[microversion.NO_VARY_KEY] = True
            raise webob.exc.HTTPNotFound(str(exc))
        except exception.PolicyNotAuthorized as exc:
            req.environ[microversion.NO_VARY_KEY] = True
            raise webob.exc.HTTPForbidden(str(exc))
        except exception.InvalidInput as exc:
            raise webob.exc.HTTPBadRequest(str(exc))
        except exception.ConcurrentUpdateDetected as exc:
            # A race lost past the retry budget, where the handler had
            # nothing more specific to say.
            raise util.concurrent_update(exc)
        except exception.DatabaseUnavailable as exc:
            raise unavailable(req.environ, exc)


def unavailable(environ, exc):
    """The 503 answering DatabaseUnavailable ``exc``, logged and counted
    (/metrics)."""
    LOG.warning('Answering 503: %s', exc.reason)
    observe.unavailable(environ, exc)
    return util.database_unavailable(exc)
