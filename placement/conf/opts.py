"""The ``oslo.config.opts`` entry points: every group placement owns."""
from oslo_config import cfg

from placement.conf import api
from placement.conf import base
from placement.conf import database
from placement.conf import paths
from placement.conf import placement
from placement.conf import workarounds


def list_opts():
    """Return [(group, [opts])] for oslo-config-generator."""
    merged = {}
    for module in (base, paths, api, placement, database, workarounds):
        for group, opts in module.list_opts().items():
            key = group if isinstance(group, str) else group.name
            merged.setdefault(key, (group, []))[1].extend(opts)
    return [(group, opts) for group, opts in merged.values()]


def set_lib_defaults():
    """The ``oslo.config.opts.defaults`` hook: placement's library defaults.

    Used by oslo-config-generator so that the sample shows the values the
    service really runs with.
    """
    from oslo_policy import opts as policy_opts

    from placement import deploy
    from placement import policy
    deploy.set_cors_defaults()
    policy_opts.set_defaults(cfg.CONF, policy_file=policy.DEFAULT_POLICY_FILE)
