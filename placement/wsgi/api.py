"""The WSGI entry point: ``placement.wsgi.api:application``.

The application is built once, when a WSGI server imports this module,
from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` or
``/etc/placement/placement.conf`` plus ``OS_<GROUP>__<OPTION>`` environment
overrides. A configuration that cannot serve (keystone without
``[keystone_authtoken]``, no database URL) fails here, with the reason in
one CRITICAL log line before the server's traceback.
"""
from oslo_log import log as logging

from placement import exception
from placement import wsgi

try:
    application = wsgi.init_application()
except exception.ConfigError as exc:
    logging.getLogger(__name__).critical('Cannot start: %s', exc)
    raise
