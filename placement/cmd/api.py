"""placement-api: a small threaded development server.

Not for production: put ``placement.wsgi.api:application`` behind uwsgi,
mod_wsgi or gunicorn there. With no ``[placement_database] connection``
configured it runs in *embedded mode*, so that a newcomer needs no
configuration at all: an SQLite file in the current directory
(``placement.sqlite``, the file the admin commands also use when no
database is configured: ``placement.conf.paths``), the schema
created on start, and ``[api] auth_strategy`` defaulting to ``noauth2``
(``x-auth-token: admin`` is the admin). A value from a config file or from
``OS_API__AUTH_STRATEGY`` still wins over that default.
"""
import argparse
import socketserver
import sys
from wsgiref import simple_server

from oslo_config import cfg

from placement.conf import paths
from placement import exception
from placement import wsgi
from placement.wsgi import startup

DEFAULT_HOST = '127.0.0.1'
DEFAULT_PORT = 8778


class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        """The request log middleware already logs each request."""


def _parse(argv):
    parser = argparse.ArgumentParser(
        prog='placement-api',
        description='Run the placement API in a development server.',
        epilog='Other arguments go to oslo.config (--config-file PATH, '
               '--config-dir DIR); without them the configuration is '
               '$OS_PLACEMENT_CONFIG_DIR/placement.conf or '
               '/etc/placement/placement.conf, and OS_<GROUP>__<OPTION> '
               'variables override it.')
    parser.add_argument('--host', default=DEFAULT_HOST,
                        help='Address to listen on (default: %(default)s).')
    parser.add_argument('--port', type=int, default=DEFAULT_PORT,
                        help='Port to listen on (default: %(default)s).')
    return parser.parse_known_args(argv)


def _embedded_defaults(conf):
    if not conf.placement_database.connection:
        path = paths.embedded_database_path()
        conf.set_override('connection', paths.embedded_database_url(),
                          group='placement_database')
        conf.set_override('sync_on_startup', True,
                          group='placement_database')
        conf.set_default('auth_strategy', 'noauth2', group='api')
        print('No [placement_database] connection configured: embedded '
              'mode, SQLite at %s, auth_strategy %s'
              % (path, conf.api.auth_strategy), file=sys.stderr)


def _listen(host, port):
    """The server bound to host:port, before the application exists (so
    that a busy port is reported at once, before any migration)."""
    return simple_server.make_server(
        host, port, None, server_class=_ThreadingServer,
        handler_class=_QuietHandler)


def _fail(message):
    print('placement-api: error: %s' % message, file=sys.stderr)
    return 1


def main(argv=None):
    args, oslo_args = _parse(sys.argv[1:] if argv is None else argv)
    try:
        server = _listen(args.host, args.port)
    except OSError as exc:
        return _fail('cannot listen on %s:%d: %s' % (
            args.host, args.port, exc.strerror or exc))
    try:
        conf = wsgi.load_config(oslo_args)
        _embedded_defaults(conf)
        server.set_app(startup.build(conf))
    except (cfg.Error, exception.ConfigError) as exc:
        server.server_close()
        return _fail(exc)
    try:
        # (In the try: a Ctrl-C right after this line ends quietly too.)
        print('placement-api serving on http://%s:%d/'
              % (args.host, args.port), file=sys.stderr)
        server.serve_forever()
    except KeyboardInterrupt:
        return 0
    return 0
