"""Compose the WSGI application from one ConfigOpts.

The middleware order, outermost first, and why:

0. proxy headers (only when ``[oslo_middleware]
   enable_proxy_headers_parsing``): the scheme and host the client used.
1. ``/healthcheck`` (``placement.healthcheck``, oslo.middleware's): for
   load balancers and probes, so outside auth (no token) and outside the
   request log and metrics (a probe every few seconds is not traffic).
2. request metrics (only when ``[metrics] enabled``): counts and times
   every other request, the 401s of auth included.
3. request id (``requestlog.RequestId``, oslo.middleware's as plain WSGI):
   every response, even a 401 or a 500, carries ``x-openstack-request-id``;
   a valid caller id is kept as the global id.
4. request log: one access line per request, with the final status; also
   makes JSON the default Accept so error bodies default to JSON.
5. CORS (only when ``[cors] allowed_origin`` is set): outside auth, so a
   browser's preflight needs no token.
6. ``/metrics`` when ``[metrics] allow_anonymous``: no token needed.
7. auth: keystonemiddleware's auth_token or noauth2; ``/`` bypasses it.
8. context: the RequestContext from the identity headers (401 if none).
9. ``/metrics`` (when enabled, not anonymous): the caller's context must
   pass the ``placement:metrics`` rule.
10. microversion: negotiates and stamps the version on every response the
    inner layers produce, including 500s.
11. body size limit (``sizelimit``): a JSON 413 for a body longer than
    ``[oslo_middleware] max_request_body_size``, after auth (nothing is
    read for an anonymous client) and where the version is known (the
    error's code).
12. fault wrap: an uncaught exception becomes a logged JSON 500.
13. dispatch (``handler.PlacementHandler``).

The health check costs each process about 3 MiB (importing
oslo.middleware loads all of its middleware), shared between the
workers of a prefork server, which fork after loading the application.
"""
import functools
import os

from oslo_log import log as logging

from placement import auth
from placement import exception
from placement.db import api as db_api
from placement.db import migration
from placement import errors
from placement import fault_wrap
from placement import gc_settings
from placement import handler
from placement.handlers import capacity_shape
from placement import healthcheck
from placement import microversion
from placement.objects import standards
from placement import policy
from placement import requestlog
from placement import sizelimit
from placement import wsgi_wrapper

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
METRICS_PATH = '/metrics'


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


class OnPath:
    """Send the requests for one path to ``app``, the rest to ``other``."""

    def __init__(self, path, app, other):
        self.path, self.app, self.other = path, app, other

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') == self.path:
            return self.app(environ, start_response)
        return self.other(environ, start_response)


def _metrics_setup(conf, db):
    """The /metrics application and the request metrics middleware, or
    (None, None) when ``[metrics] enabled`` is False. The multiprocess
    directory is prepared before prometheus_client is first imported."""
    if not conf.metrics.enabled:
        return None, None
    from placement.metrics import process
    directory = process.prepare(conf)
    from placement.metrics import database
    from placement.metrics import endpoint
    from placement.metrics import middleware
    database.install(db)
    middleware.initialize()
    scrape = endpoint.MetricsApp(
        db, conf, directory, authorize=not conf.metrics.allow_anonymous)
    return scrape, functools.partial(middleware.RequestMetrics,
                                     route_of=handler.route_template)


def build_app(conf, db, enforcer, synced=True):
    """The middleware stack around dispatch (see the module docstring)."""
    scrape, request_metrics = _metrics_setup(conf, db)
    app = handler.PlacementHandler()
    if not synced:
        app = SyncStandardsFirst(app, db)
    app = fault_wrap.FaultWrapper(app)
    app = sizelimit.BodySizeLimit(app, conf)
    app = microversion.MicroversionMiddleware(
        app, errors.json_error_formatter)
    if scrape is not None and scrape.authorize:
        app = OnPath(METRICS_PATH, scrape, app)
    app = auth.PlacementContext(app, conf, db, enforcer)
    app = _auth(app, conf)
    if scrape is not None and not scrape.authorize:
        app = OnPath(METRICS_PATH, scrape, app)
    with_middleware = _middleware_configured(conf)
    if with_middleware:
        app = _cors(app, conf)
    app = requestlog.RequestLog(app)
    app = requestlog.RequestId(app)
    if request_metrics is not None:
        app = request_metrics(app)
    app = OnPath(healthcheck.PATH, healthcheck.build(app, conf), app)
    if with_middleware:
        app = _proxy_headers(app, conf)
    return app


def update_database(conf, db):
    """Migrate when asked to, then sync the standard classes and traits.

    The migration runs in a forked child (``migration.upgrade_in_child``):
    alembic then never takes up memory in the serving process. Returns
    True when the sync is done, False when no database answered: a
    worker started while the database is away still serves (503s, and
    /healthcheck), and syncs on its first request once it is back.
    """
    if conf.placement_database.sync_on_startup:
        migration.upgrade_in_child(conf, db, 'head')
    try:
        standards.sync(db)
    except exception.DatabaseUnavailable as exc:
        LOG.warning('Standard resource classes and traits not synced at '
                    'start (%s); syncing on the first request instead',
                    exc.reason)
        return False
    return True


class SyncStandardsFirst:
    """Sync the standard rows before the first request is dispatched,
    for a worker whose start-up sync found no database (see
    ``update_database``); a pass-through once it succeeded."""

    def __init__(self, app, db):
        self.app, self.db, self.synced = app, db, False

    def __call__(self, environ, start_response):
        if not self.synced:
            try:
                standards.sync(self.db)
            except exception.DatabaseUnavailable as exc:
                error = wsgi_wrapper.attach_formatter(
                    handler.unavailable(environ, exc))
                return error(environ, start_response)
            self.synced = True
        return self.app(environ, start_response)


def loadapp(conf, db=None):
    """Build the whole application for ``conf`` (and optionally ``db``)."""
    # A bad [capacity] shape stops the start, whether /metrics reads
    # the shapes or not (ConfigError naming it, in the API's words).
    capacity_shape.configured(conf)
    if db is None:
        db = db_api.create_database(conf)
    if _middleware_configured(conf):
        register_middleware_opts(conf)
    enforcer = policy.build_enforcer(conf)
    synced = update_database(conf, db)
    gc_settings.configure()
    return build_app(conf, db, enforcer, synced)
