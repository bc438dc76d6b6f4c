"""Building the policy enforcer for one application, and asking it.

The rules are registered from ``placement.policies``; the operator's
``[oslo_policy] policy_file`` (YAML, or the deprecated JSON) and
``policy_dirs`` override them, and oslo.policy reloads a file whose
modification time changes.

``[oslo_policy]`` defaults as the upstream release runs (with the
oslo.policy it installs): ``enforce_new_defaults`` and ``enforce_scope``
are True, so the project-scoped defaults apply and a system-scoped token
is refused. (The manual documents False for both; tools/differential
showed upstream 16.0.0 refusing a system-scoped admin and a project admin
reshaping by default.) oslo.policy releases that dropped the
``enforce_scope`` option always check scope; placement registers the
option itself there and, when an operator sets it False, evaluates a rule
whose scope does not match the token's (with a warning) instead of
denying it, as older oslo.policy releases did.
"""
import sys
import time
import warnings
import weakref

from oslo_config import cfg
from oslo_log import log as logging
from oslo_policy import _checks
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy

from placement import exception
from placement import policies

LOG = logging.getLogger(__name__)

DEFAULT_POLICY_FILE = 'policy.yaml'
GROUP = 'oslo_policy'

ENFORCE_SCOPE_OPT = cfg.BoolOpt(
    'enforce_scope',
    default=True,
    help='This option controls whether or not to enforce scope when '
         'evaluating policies. If ``True``, the scope of the token used in '
         'the request is compared to the ``scope_types`` of the policy '
         'being enforced. If the scopes do not match, an ``InvalidScope`` '
         'exception will be raised. If ``False``, a message will be logged '
         'informing operators that policies are being invoked with '
         'mismatching scope.')


def _old_name(opt_class, name, new_name):
    return opt_class(name, deprecated_for_removal=True,
                     deprecated_reason='Use [%s] %s.' % (GROUP, new_name),
                     help='Deprecated name of [%s] %s.' % (GROUP, new_name))


# Option names the manual documents that newer oslo.policy releases no
# longer read: (group, option with the old name, [oslo_policy] option).
OLD_NAMES = [
    ('DEFAULT', _old_name(cfg.StrOpt, 'policy_file', 'policy_file'),
     'policy_file'),
    ('DEFAULT', _old_name(cfg.StrOpt, 'policy_default_rule',
                          'policy_default_rule'), 'policy_default_rule'),
    ('DEFAULT', _old_name(cfg.MultiStrOpt, 'policy_dirs', 'policy_dirs'),
     'policy_dirs'),
    (GROUP, _old_name(cfg.BoolOpt, 'remote_ssl_verify_server_cert',
                      'remote_ssl_verify_server_crt'),
     'remote_ssl_verify_server_crt'),
    (GROUP, _old_name(cfg.StrOpt, 'remote_ssl_ca_cert_file',
                      'remote_ssl_ca_crt_file'), 'remote_ssl_ca_crt_file'),
    (GROUP, _old_name(cfg.StrOpt, 'remote_ssl_client_cert_file',
                      'remote_ssl_client_crt_file'),
     'remote_ssl_client_crt_file'),
]


def _library_opts():
    return {opt.name: opt for _group, opts in policy_opts.list_opts()
            for opt in opts}


def _needs_old_name(group, opt, new_name):
    """True when the library has ``new_name`` but not the old spelling."""
    library = _library_opts()
    if new_name not in library or (group == GROUP and opt.name in library):
        return False
    old_names = {(old.group or 'DEFAULT', old.name)
                 for old in library[new_name].deprecated_opts}
    return (group, opt.name) not in old_names


def register_opts(conf):
    """Register [oslo_policy] with placement's defaults on ``conf``."""
    policy_opts.set_defaults(conf, policy_file=DEFAULT_POLICY_FILE,
                             enforce_new_defaults=True,
                             enforce_scope=True)
    if 'enforce_scope' not in conf[GROUP]:
        conf.register_opt(ENFORCE_SCOPE_OPT, group=GROUP)
    for group, opt, new_name in OLD_NAMES:
        if _needs_old_name(group, opt, new_name):
            conf.register_opt(opt, group=None if group == 'DEFAULT'
                              else group)


def _apply_old_names(conf):
    """Let an old option name set the option when the new one is unset."""
    unset = (cfg.Locations.opt_default, cfg.Locations.set_default)
    for group, opt, new_name in OLD_NAMES:
        section = conf if group == 'DEFAULT' else conf[group]
        if opt.name not in section or new_name not in conf[GROUP]:
            continue
        value = section[opt.name]
        if value in (None, []):
            continue
        where = conf.get_location(new_name, GROUP)
        if where is None or where.location in unset:
            conf.set_default(new_name, value, group=GROUP)


def list_opts():
    """The [oslo_policy] option placement adds, for oslo-config-generator.

    Empty when the installed oslo.policy still defines ``enforce_scope``
    (its own ``oslo.policy`` entry point then lists it).
    """
    library_names = {opt.name for _group, opts in policy_opts.list_opts()
                     for opt in opts}
    if ENFORCE_SCOPE_OPT.name in library_names:
        return []
    return [(GROUP, [ENFORCE_SCOPE_OPT])]


def build_enforcer(conf):
    """An Enforcer with every placement rule registered, file loaded.

    A policy file that is not a YAML or JSON mapping of rule names to
    check strings raises ConfigError here, at startup. (A check string
    oslo.policy cannot parse is logged and denies every caller.)
    """
    register_opts(conf)
    _apply_old_names(conf)
    enforcer = oslo_policy.Enforcer(conf)
    # Every API rule changed its default; one warning per rule at each
    # start would bury the log. The deprecations stay in the sample file.
    enforcer.suppress_default_change_warnings = True
    enforcer.register_defaults(policies.list_rules())
    try:
        enforcer.load_rules()
    except (ValueError, TypeError, AttributeError) as exc:
        raise exception.ConfigError(reason='cannot load policy file %s: %s'
                                    % (enforcer.policy_path
                                       or conf.oslo_policy.policy_file,
                                       exc))
    return enforcer


# How often a request looks for a changed (or new) policy file: oslo.policy
# looks on every check (a stat of the file, and a search of the config
# directories while there is none: some 0.1 ms a request).
RELOAD_CHECK_SECONDS = 1.0


def authorize(ctx, action, target):
    """Raise exception.PolicyNotAuthorized unless ``action`` is allowed."""
    enforcer = ctx.enforcer
    verdicts = _verdicts_of(enforcer)
    now = time.monotonic()
    if verdicts.checked_at is None or (
            now - verdicts.checked_at >= RELOAD_CHECK_SECONDS):
        # What enforce() would do first: reload a policy file that
        # changed (picked up within RELOAD_CHECK_SECONDS).
        verdicts.checked_at = now
        enforcer.load_rules()
    key = verdicts.key(enforcer, ctx, action, target)
    if key is not None and key in verdicts.allowed:
        return
    try:
        enforcer.authorize(action, target, ctx, do_raise=True,
                           exc=exception.PolicyNotAuthorized, action=action)
    except oslo_policy.InvalidScope:
        if ctx.config.oslo_policy.enforce_scope:
            LOG.debug('Policy check for %s failed on scope', action)
            # Upstream's detail for a scope mismatch is the rule's name.
            raise exception.PolicyNotAuthorized(action, action=action)
        _authorize_ignoring_scope(enforcer, ctx, action, target)
        return
    if key is not None:
        verdicts.remember(key)


# Checks whose verdict follows from the credentials, the target and the
# rules alone (not, say, oslo.policy's http: check, which asks a server).
_PURE_CHECKS = (_checks.TrueCheck, _checks.FalseCheck, _checks.NotCheck,
                _checks.AndCheck, _checks.OrCheck, _checks.RuleCheck,
                _checks.RoleCheck, _checks.GenericCheck)
MAX_VERDICTS = 1024
_VERDICTS = weakref.WeakKeyDictionary()


def _is_pure(check):
    if type(check) not in _PURE_CHECKS:
        return False
    inner = getattr(check, 'rules', None) or [getattr(check, 'rule', None)]
    return all(_is_pure(rule) for rule in inner
               if isinstance(rule, _checks.BaseCheck))


def _frozen(mapping):
    return tuple(sorted(
        (name, tuple(value) if isinstance(value, list) else value)
        for name, value in mapping.items()))


class _Verdicts:
    """The (action, credentials, target) an enforcer allowed, while its
    rules stay the same objects and are all pure checks.

    Evaluating a rule costs oslo.policy about 60 microseconds a request
    (it inspects each check's signature every time); the answer for the
    same caller and target only changes with the rules. Denials are not
    kept, nor any answer that needed the enforce_scope=False fallback.
    """

    def __init__(self):
        self.names, self.ids, self.checks = None, None, ()
        self.pure = False
        self.allowed = set()
        # When the policy file was last looked at (time.monotonic).
        self.checked_at = None

    def key(self, enforcer, ctx, action, target):
        """The key of this question; None when it must be asked."""
        rules = enforcer.rules
        ids = tuple(map(id, rules.values()))
        names = tuple(rules)
        if ids != self.ids or names != self.names:
            # Hold the checks: their ids then cannot be reused.
            self.checks = tuple(rules.values())
            self.names, self.ids = names, ids
            self.pure = all(_is_pure(check) for check in self.checks)
            self.allowed = set()
        if not self.pure:
            return None
        try:
            key = (action, ctx.config.oslo_policy.enforce_scope,
                   _frozen(ctx.to_policy_values()), _frozen(target))
            hash(key)
        except TypeError:  # a value that cannot be a key: just ask
            return None
        return key

    def remember(self, key):
        if len(self.allowed) >= MAX_VERDICTS:
            self.allowed = set()
        self.allowed.add(key)


def _verdicts_of(enforcer):
    found = _VERDICTS.get(enforcer)
    if found is None:
        found = _VERDICTS[enforcer] = _Verdicts()
    return found


def _authorize_ignoring_scope(enforcer, ctx, action, target):
    """Evaluate ``action``'s check alone, as with enforce_scope False."""
    warnings.warn('Policy %s was called with a token of a scope not in '
                  'its scope_types; its check string is evaluated anyway '
                  'because [oslo_policy] enforce_scope is False.' % action)
    check = enforcer.rules[action]
    enforcer.enforce(check, target, ctx, do_raise=True,
                     exc=exception.PolicyNotAuthorized, action=action)


def config_file_args(argv):
    """The --config-file/--config-dir arguments (with values) in argv."""
    wanted = ('--config-file', '--config-dir')
    found = []
    args = iter(argv)
    for arg in args:
        if arg in wanted:
            found.extend((arg, next(args, '')))
        elif arg.startswith(tuple(option + '=' for option in wanted)):
            found.append(arg)
    return found


def get_enforcer():
    """The ``oslo.policy.enforcer`` entry point, for oslopolicy-* tools.

    Those tools parse their own command line; this builds a ConfigOpts
    from its ``--config-file``/``--config-dir`` arguments, so that the
    operator's placement.conf (and so its policy file) is used.
    """
    from placement import conf as placement_conf

    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf(config_file_args(sys.argv[1:]), project='placement',
         default_config_files=[])
    return build_enforcer(conf)
