"""Base rules and the helper every per-entity policy module uses.

Defaults are the project-scoped ones deployments run today: admins and the
``service`` role manage everything, a project reader may read its own
project's usages, and only ``service`` may reshape. Each API rule keeps the
legacy ``role:admin`` as its deprecated fallback, which oslo.policy ORs in
while ``[oslo_policy] enforce_new_defaults`` is False.

The system-scoped base rules of the Wallaby to Zed releases
(``system_admin_api`` and friends) stay registered with their documented
check strings: no API rule uses them by default, but an operator's
policy file written for those releases may refer to them, and
``etc/placement/policy-system-scope.yaml`` restores them as the defaults.
No WebOb or database access in this package.
"""
import collections.abc

from oslo_log import log as logging
from oslo_policy import _checks
from oslo_policy import policy

LOG = logging.getLogger(__name__)


class _RuleCheckPlugins(collections.abc.Mapping):
    """oslo.policy's plugin checks (``http:``, ``https:``), loaded on use.

    oslo.policy loads every ``oslo.policy.rule_checks`` entry point (and
    with them requests, urllib3, charset_normalizer...: ~5 MiB per process)
    the first time it parses any check string. Here a plugin is imported
    only when a check string names its kind; as with stevedore, a plugin
    that cannot be imported is logged and left out.
    """

    def __init__(self):
        from importlib import metadata
        self._entry_points = {
            entry_point.name: entry_point for entry_point in
            metadata.entry_points(group='oslo.policy.rule_checks')}
        self._loaded = {}

    def _load(self, name):
        if name not in self._loaded:
            try:
                self._loaded[name] = self._entry_points[name].load()
            except Exception:
                LOG.exception('Could not load the policy rule check %s',
                              name)
                self._loaded[name] = None
        return self._loaded[name]

    def __contains__(self, name):
        return name in self._entry_points and self._load(name) is not None

    def __getitem__(self, name):
        if name not in self:
            raise KeyError(name)
        return self._loaded[name]

    def __iter__(self):
        return (name for name in self._entry_points if name in self)

    def __len__(self):
        return sum(1 for _name in self)


def _defer_plugin_checks():
    """Import oslo.policy's plugin checks only when a rule uses one."""
    if getattr(_checks, 'extension_checks', False) is None:
        _checks.extension_checks = _RuleCheckPlugins()


# Before the first RuleDefault below parses its check string.
_defer_plugin_checks()

ADMIN_API = 'admin_api'
SERVICE_API = 'service_api'
ADMIN_OR_SERVICE_API = 'admin_or_service_api'
PROJECT_READER_API = 'project_reader_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE_API = (
    'admin_or_project_reader_or_service_api')
SYSTEM_ADMIN_API = 'system_admin_api'
SYSTEM_READER_API = 'system_reader_api'
SYSTEM_OR_PROJECT_READER = 'system_or_project_reader'

RULE_ADMIN_OR_SERVICE = 'rule:%s' % ADMIN_OR_SERVICE_API
RULE_SERVICE = 'rule:%s' % SERVICE_API
RULE_ADMIN_OR_PROJECT_READER_OR_SERVICE = (
    'rule:%s' % ADMIN_OR_PROJECT_READER_OR_SERVICE_API)

LEGACY_CHECK = 'role:admin'
DEPRECATED_SINCE = 'W'
DEPRECATED_REASON = (
    'Placement API policies now use the project-scoped admin, service and '
    'reader roles. The legacy check "role:admin" is still ORed into each '
    'rule while [oslo_policy] enforce_new_defaults is False.')
SYSTEM_SCOPE_REASON = (
    'System-scoped defaults are no longer used by any placement API rule; '
    'the rule remains for policy files that refer to it. While '
    '[oslo_policy] enforce_new_defaults is False, "role:admin" is ORed in.')

PROJECT_SCOPE = ['project']


def _legacy(name, reason=DEPRECATED_REASON):
    """The ``role:admin`` fallback of rule ``name``, deprecated since W."""
    return policy.DeprecatedRule(
        name=name, check_str=LEGACY_CHECK, deprecated_reason=reason,
        deprecated_since=DEPRECATED_SINCE)


def _system_rule(name, check_str, description):
    return policy.RuleDefault(
        name, check_str, description=description,
        deprecated_rule=_legacy(name, SYSTEM_SCOPE_REASON))


RULES = [
    policy.RuleDefault(
        ADMIN_API, 'role:admin',
        description='Default rule for most placement APIs.',
        scope_types=PROJECT_SCOPE),
    policy.RuleDefault(
        SERVICE_API, 'role:service',
        description='Default rule for service-to-service APIs.',
        scope_types=PROJECT_SCOPE),
    policy.RuleDefault(
        ADMIN_OR_SERVICE_API, 'role:admin or role:service',
        description='Default rule for most placement APIs: administrators '
                    'and services.',
        scope_types=PROJECT_SCOPE),
    policy.RuleDefault(
        PROJECT_READER_API, 'role:reader and project_id:%(project_id)s',
        description='Default rule for Project level read only APIs.',
        scope_types=PROJECT_SCOPE),
    policy.RuleDefault(
        ADMIN_OR_PROJECT_READER_OR_SERVICE_API,
        'role:admin or rule:project_reader_api or role:service',
        description='Default rule for Project level read only APIs that '
                    'administrators and services may also use.',
        scope_types=PROJECT_SCOPE),
    _system_rule(SYSTEM_ADMIN_API, 'role:admin and system_scope:all',
                 'Default rule for System Admin APIs.'),
    _system_rule(SYSTEM_READER_API, 'role:reader and system_scope:all',
                 'Default rule for System level read only APIs.'),
    _system_rule(SYSTEM_OR_PROJECT_READER,
                 'rule:system_reader_api or rule:project_reader_api',
                 'Default rule for System+Project read only APIs.'),
]


def api_rule(name, check_str, description, operations, legacy_name=None):
    """An API rule, project scoped, with the ``role:admin`` fallback.

    ``operations`` is a list of (method, path) pairs. ``legacy_name`` is an
    older name of the rule that policy files may still use (oslo.policy
    then applies the file's rule for the old name to this one).
    """
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        operations=[{'method': method, 'path': path}
                    for method, path in operations],
        scope_types=PROJECT_SCOPE,
        deprecated_rule=_legacy(legacy_name or name))


def list_rules():
    return RULES
