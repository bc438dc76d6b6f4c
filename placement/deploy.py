"""Compose the WSGI application from one ConfigOpts.

The middleware order, outermost first, and why:

1. request id (``requestlog.RequestId``, oslo.middleware's as plain WSGI):
   every response, even a 401 or a 500, carries ``x-openstack-request-id``;
   a valid caller id is kept as the global id.
2. request log: one access line per request, with the final status; also
   makes JSON the default Accept so error bodies default to JSON.
3. CORS (only when ``[cors] allowed_origin`` is set): outside auth, so a
   browser's preflight needs no token.
4. auth: keystonemiddleware's auth_token or noauth2; ``/`` bypasses it.
5. context: the RequestContext from the identity headers (401 if none).
6. microversion: negotiates and stamps the version on every response the
   inner layers produce, including 500s.
7. body size limit (``sizelimit``): a JSON 413 for a body longer than
   ``[oslo_middleware] max_request_body_size``, after auth (nothing is
   read for an anonymous client) and where the version is known (the
   error's code).
8. fault wrap: an uncaught exception becomes a logged JSON 500.
9. dispatch (``handler.PlacementHandler``).
"""
import os

from oslo_log import log as logging

from placement import auth
from placement.db import api as db_api
from placement.db import migration
from placement import errors
from placement import fault_wrap
from placement import handler
from placement import microversion
from placement.objects import standards
from placement import policy
from placement import requestlog
from placement import sizelimit

LOG = logging.getLogger(__name__)

CORS_ALLOW_HEADERS = [
    'X-Auth-Token', 'X-Openstack-Request-Id', 'X-Identity-Status',
    'X-Roles', 'X-Service-Catalog', 'X-User-Id', 'X-Tenant-Id',
    'OpenStack-API-Version',
]
CORS_EXPOSE_HEADERS = [
    'X-Auth-Token', 'X-Openstack-Request-Id', 'X-Subject-Token',
    'X-Service-Token', 'OpenStack-API-Version',
]
CORS_ALLOW_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']


# The option groups of oslo.middleware's CORS and proxy headers parsing.
# The package imports every middleware it has (jinja2, bcrypt and more):
# 3.7 MiB per process, so it is imported only when a configuration file
# section, an environment override or an earlier registration may set
# one of these groups (_middleware_configured).
MIDDLEWARE_GROUPS = ('cors', 'oslo_middleware')
# An option each library registers itself: placement registers
# [oslo_middleware] max_request_body_size always, which needs no library.
_LIBRARY_OPTS = {'cors': 'allowed_origin',
                 'oslo_middleware': 'enable_proxy_headers_parsing'}


def set_cors_defaults():
    """Placement's CORS defaults: the headers and methods the API needs."""
    from oslo_middleware import cors
    cors.set_defaults(allow_headers=CORS_ALLOW_HEADERS,
                      expose_headers=CORS_EXPOSE_HEADERS,
                      allow_methods=CORS_ALLOW_METHODS)


def register_middleware_opts(conf):
    """Register the [cors] and [oslo_middleware] options on ``conf``."""
    from oslo_middleware import cors
    from oslo_middleware import http_proxy_to_wsgi
    set_cors_defaults()
    cors.CORS(None, conf)
    http_proxy_to_wsgi.HTTPProxyToWSGI(None, conf)


def _middleware_configured(conf):
    sections = set(conf.list_all_sections())
    for group in MIDDLEWARE_GROUPS:
        prefix = 'OS_%s__' % group.upper()
        registered = group in conf and _LIBRARY_OPTS[group] in conf[group]
        if registered or group in sections or any(
                name.startswith(prefix) for name in os.environ):
            return True
    return False


def _auth(app, conf):
    if conf.api.auth_strategy == 'noauth2':
        return auth.NoAuthMiddleware(app)
    return auth.keystone_filter(app, conf)


def _cors(app, conf):
    from oslo_middleware import cors
    set_cors_defaults()
    middleware = cors.CORS(app, conf)
    return middleware if conf.cors.allowed_origin else app


def _proxy_headers(app, conf):
    from oslo_middleware import http_proxy_to_wsgi
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        return http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    return app


def build_app(conf, db, enforcer):
    """The middleware stack around dispatch (see the module docstring)."""
    app = handler.PlacementHandler()
    app = fault_wrap.FaultWrapper(app)
    app = sizelimit.BodySizeLimit(app, conf)
    app = microversion.MicroversionMiddleware(
        app, errors.json_error_formatter)
    app = auth.PlacementContext(app, conf, db, enforcer)
    app = _auth(app, conf)
    with_middleware = _middleware_configured(conf)
    if with_middleware:
        app = _cors(app, conf)
    app = requestlog.RequestLog(app)
    app = requestlog.RequestId(app)
    if with_middleware:
        app = _proxy_headers(app, conf)
    return app


def update_database(conf, db):
    """Migrate when asked to, then sync the standard classes and traits.

    The migration runs in a forked child (``migration.upgrade_in_child``):
    alembic then never takes up memory in the serving process.
    """
    if conf.placement_database.sync_on_startup:
        migration.upgrade_in_child(conf, db, 'head')
    standards.sync(db)


def loadapp(conf, db=None):
    """Build the whole application for ``conf`` (and optionally ``db``)."""
    if db is None:
        db = db_api.create_database(conf)
    if _middleware_configured(conf):
        register_middleware_opts(conf)
    enforcer = policy.build_enforcer(conf)
    update_database(conf, db)
    return build_app(conf, db, enforcer)
