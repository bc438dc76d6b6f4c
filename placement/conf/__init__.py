"""Configuration options, one module per option group.

There is no global ConfigOpts: ``register_opts`` is called on the one
ConfigOpts an application or command builds, and that object is passed down.
"""
from oslo_log import log as logging

from placement.conf import api
from placement.conf import base
from placement.conf import database
from placement.conf import paths
from placement.conf import placement
from placement.conf import workarounds

MODULES = (api, base, database, paths, placement, workarounds)


def register_opts(conf):
    """Register every placement and library option group on ``conf``."""
    for module in MODULES:
        module.register_opts(conf)
    logging.register_options(conf)
