"""The WSGI entry point: ``placement.wsgi.api:application``.

The application is built once, when a WSGI server imports this module,
from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` or
``/etc/placement/placement.conf`` plus ``OS_<GROUP>__<OPTION>`` environment
overrides.
"""
from placement import wsgi

application = wsgi.init_application()
