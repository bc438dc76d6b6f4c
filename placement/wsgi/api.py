"""The WSGI entry point: ``placement.wsgi.api:application``.

The application is built once, when a WSGI server imports this module,
from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` or
``/etc/placement/placement.conf`` plus ``OS_<GROUP>__<OPTION>`` environment
overrides. A start that cannot serve (keystone without
``[keystone_authtoken]``, no database URL, a database without placement's
tables) logs the reason in one CRITICAL line and leaves ``application``
undefined: the server reports a failed load without a traceback (uwsgi
``--need-app`` then exits 22; gunicorn and mod_wsgi say the module has no
``application``).
"""
from oslo_log import log as logging

from placement import exception
from placement.wsgi import startup


def _build():
    """(the application, None), or (None, why it cannot start)."""
    try:
        return startup.build(), None
    except exception.ConfigError as exc:
        return None, str(exc)


_application, _reason = _build()
if _reason is None:
    application = _application
else:
    # Out of the except block: the formatter would append the exception.
    logging.getLogger(__name__).critical('Cannot start: %s', _reason)
