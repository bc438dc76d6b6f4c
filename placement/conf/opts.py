"""The ``oslo.config.opts`` entry points: every group placement owns."""
from oslo_config import cfg

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


def list_opts():
    """Return [(group, [opts])] for oslo-config-generator."""
    from placement import policy as placement_policy

    merged = {}
    for module in (base, paths, api, placement, database, workarounds,
                   healthcheck, metrics, middleware, capacity):
        for group, opts in module.list_opts().items():
            key = group if isinstance(group, str) else group.name
            merged.setdefault(key, (group, []))[1].extend(opts)
    # [oslo_policy] enforce_scope, when the installed oslo.policy lacks it.
    for group, opts in placement_policy.list_opts():
        merged.setdefault(group, (group, []))[1].extend(opts)
    return [(group, opts) for group, opts in merged.values()]


def set_lib_defaults():
    """The ``oslo.config.opts.defaults`` hook: placement's library defaults.

    Used by oslo-config-generator so that the sample shows the values the
    service really runs with.
    """
    from placement import deploy
    from placement import healthcheck
    from placement import policy
    deploy.set_cors_defaults()
    healthcheck.set_defaults()
    policy.register_opts(cfg.CONF)
