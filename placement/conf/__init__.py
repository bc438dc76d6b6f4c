"""Configuration options, one module per option group.

There is no global ConfigOpts: ``register_opts`` is called on the one
ConfigOpts an application or command builds, and that object is passed down.
"""
from oslo_config import cfg
from oslo_log import log as logging

from placement.conf import api
from placement.conf import base
from placement.conf import capacity
from placement.conf import database
from placement.conf import healthcheck
from placement.conf import metrics
from placement.conf import middleware
from placement.conf import paths
from placement.conf import placement
from placement.conf import workarounds

MODULES = (api, base, capacity, database, healthcheck, metrics, middleware,
           paths, placement, workarounds)
# oslo.log's defaults, and alembic's plugin loading, which says "setup
# plugin ..." at INFO for each of its seven built-in plugins whenever a
# migration runs (at the start of a service that syncs, for example):
# nothing an operator acts on.
DEFAULT_LOG_LEVELS = logging.get_default_log_levels() + [
    'alembic.runtime.plugins=WARN']


def _fresh_group(group):
    """A new OptGroup like ``group``.

    ConfigOpts.register_group keeps a shallow copy that shares the
    group's option table, so a set_override on one ConfigOpts would leak
    into every other one registered from the same module-level group.
    """
    return cfg.OptGroup(group.name, title=group.title, help=group.help,
                        dynamic_group_owner=group.dynamic_group_owner,
                        driver_option=group.driver_option)


def register_opts(conf):
    """Register every placement and library option group on ``conf``."""
    for module in MODULES:
        for group in module.list_opts():
            if isinstance(group, cfg.OptGroup):
                conf.register_group(_fresh_group(group))
        module.register_opts(conf)
    logging.register_options(conf)
    conf.set_default('default_log_levels', DEFAULT_LOG_LEVELS)
