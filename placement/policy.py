"""Building the policy enforcer for one application, and asking it.

The rules themselves are registered from ``placement.policies``; the
operator's ``[oslo_policy] policy_file`` overrides them.
"""
from oslo_log import log as logging
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy

from placement import exception
from placement import policies

LOG = logging.getLogger(__name__)

DEFAULT_POLICY_FILE = 'policy.yaml'


def set_defaults(conf):
    """Register [oslo_policy] with placement's default file name."""
    policy_opts.set_defaults(conf, policy_file=DEFAULT_POLICY_FILE)


def build_enforcer(conf):
    """An Enforcer with every placement rule registered, file loaded.

    A malformed policy file raises here, at startup, not on a request.
    """
    set_defaults(conf)
    enforcer = oslo_policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    enforcer.load_rules()
    return enforcer


def authorize(ctx, action, target):
    """Raise exception.PolicyNotAuthorized unless ``action`` is allowed."""
    try:
        ctx.enforcer.authorize(action, target, ctx, do_raise=True,
                               exc=exception.PolicyNotAuthorized,
                               action=action)
    except oslo_policy.InvalidScope:
        LOG.debug('Policy check for %s failed on scope', action)
        raise exception.PolicyNotAuthorized(action=action)


def get_enforcer():
    """The ``oslo.policy.enforcer`` entry point, for oslopolicy-* tools.

    Those tools parse their own command line; this builds a ConfigOpts
    from it so that ``--config-file`` points at the operator's files.
    """
    import sys

    from oslo_config import cfg

    from placement import conf as placement_conf
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    argv = [arg for arg in sys.argv[1:]
            if arg.startswith('--config-') or not arg.startswith('--')]
    conf(argv, project='placement', default_config_files=[])
    return build_enforcer(conf)
