"""Authentication middleware and the context middleware.

``keystone``: keystonemiddleware's auth_token validates the token and sets
the identity headers. ``noauth2``: the token itself names the user and
project (see NoAuthMiddleware). Either way ``PlacementContext`` then builds
the RequestContext from those headers. ``GET /`` never needs a token.

keystonemiddleware (and keystoneauth/keystoneclient behind it, some 20 MiB
per process) is imported only when ``keystone_filter`` is called, so a
noauth2 deployment never loads it.
"""
import functools

import webob
import webob.exc

from placement import context
from placement import exception
from placement import util


def is_root_path(environ):
    """True for the version document, which needs no authentication."""
    return environ.get('PATH_INFO', '') in ('', '/')


class NoAuthMiddleware:
    """Read identity from the token ``USER[:PROJECT]`` (testing only).

    Roles come from ``X-Roles`` when sent; otherwise ``admin`` for the user
    named admin and none for anyone else. With ``OpenStack-System-Scope``
    the request is system scoped and the token sets no project.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        # The identity headers as webob's request.headers would set them.
        if is_root_path(environ):
            return self.application(environ, start_response)
        token = environ.get('HTTP_X_AUTH_TOKEN')
        if token is None:
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        # An empty token names a user without roles: policy refuses it
        # (403), as in the reference service.
        user_id, _sep, project_id = token.partition(':')
        project_id = project_id or user_id
        if 'HTTP_X_ROLES' not in environ:
            environ['HTTP_X_ROLES'] = 'admin' if user_id == 'admin' else ''
        environ['HTTP_X_USER_ID'] = user_id
        if 'HTTP_OPENSTACK_SYSTEM_SCOPE' not in environ:
            environ['HTTP_X_TENANT_ID'] = project_id
        return self.application(environ, start_response)


@functools.cache
def auth_protocol_class():
    """``PlacementAuthProtocol``: auth_token, letting ``GET /`` through."""
    from keystonemiddleware import auth_token

    class PlacementAuthProtocol(auth_token.AuthProtocol):
        """keystonemiddleware's auth_token, letting ``GET /`` through."""

        def __call__(self, environ, start_response):
            if is_root_path(environ):
                return self._app(environ, start_response)
            return super().__call__(environ, start_response)

    return PlacementAuthProtocol


def keystone_filter(application, conf):
    """Wrap ``application`` in auth_token configured from ``conf``.

    Raises ConfigError when ``[keystone_authtoken]`` cannot validate a
    token (see ``check_keystone_options``).
    """
    check_keystone_options(conf)
    return auth_protocol_class()(
        application, {'oslo_config_config': conf,
                      'oslo_config_project': 'placement'})


KEYSTONE_GROUP = 'keystone_authtoken'
_NO_AUTH_TYPE = (
    '[api] auth_strategy is keystone, but [%s] sets no auth_type, so no '
    'token can be validated: set auth_type = password with auth_url, '
    'username, password, project_name, user_domain_name and '
    'project_domain_name (the service user that validates tokens), and '
    'www_authenticate_uri (the public Keystone endpoint); or, for testing '
    'only, [api] auth_strategy = noauth2')


def check_keystone_options(conf):
    """Raise ConfigError unless ``[keystone_authtoken]`` names an auth
    plugin with every option it requires.

    Without auth_type, auth_token starts and answers every request that
    carries a token with a 500; with a plugin short of an option, it
    raises keystoneauth's exception from its constructor.
    """
    from keystoneauth1 import exceptions as ksa_exceptions
    from keystoneauth1 import loading
    loading.register_auth_conf_options(conf, KEYSTONE_GROUP)
    group = conf[KEYSTONE_GROUP].auth_section or KEYSTONE_GROUP
    try:
        plugin = loading.load_auth_from_conf_options(conf, KEYSTONE_GROUP)
    except ksa_exceptions.MissingRequiredOptions as exc:
        raise exception.ConfigError(reason=(
            '[api] auth_strategy is keystone, but [%s] lacks %s, which '
            'auth_type %s requires' % (
                group, ', '.join(opt.dest for opt in exc.options),
                conf[group].auth_type)))
    except ksa_exceptions.NoMatchingPlugin as exc:
        raise exception.ConfigError(reason='[%s] auth_type: %s' % (
            group, exc))
    if plugin is None:
        raise exception.ConfigError(reason=_NO_AUTH_TYPE % group)


class PlacementContext:
    """Build the RequestContext; 401 when no user is known (but for /)."""

    def __init__(self, application, conf, db, enforcer):
        self.application = application
        self.conf = conf
        self.db = db
        self.enforcer = enforcer

    def __call__(self, environ, start_response):
        ctx = context.RequestContext.from_environ(
            environ, config=self.conf, db=self.db, enforcer=self.enforcer)
        if ctx.user_id is None and not is_root_path(environ):
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        environ[util.CONTEXT_KEY] = ctx
        return self.application(environ, start_response)
