"""Base rules and the helper every per-entity policy module uses.

Defaults are the project-scoped ones deployments run today: admins and the
``service`` role manage everything, a project reader may read its own
project's usages, and only ``service`` may reshape. Each API rule keeps the
legacy ``role:admin`` as its deprecated fallback, which oslo.policy ORs in
while ``[oslo_policy] enforce_new_defaults`` is False.
"""
from oslo_policy import policy

ADMIN_API = 'admin_api'
SERVICE_API = 'service_api'
ADMIN_OR_SERVICE_API = 'admin_or_service_api'
PROJECT_READER_API = 'project_reader_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE_API = (
    'admin_or_project_reader_or_service_api')

RULE_ADMIN_OR_SERVICE = 'rule:%s' % ADMIN_OR_SERVICE_API
RULE_SERVICE = 'rule:%s' % SERVICE_API
RULE_ADMIN_OR_PROJECT_READER_OR_SERVICE = (
    'rule:%s' % ADMIN_OR_PROJECT_READER_OR_SERVICE_API)

DEPRECATED_REASON = (
    'The placement API now supports project-scoped roles: admin, the '
    'service role, and a project reader for usages. The legacy rule '
    'role:admin remains in force while enforce_new_defaults is False.')
DEPRECATED_SINCE = '2023.1'

RULES = [
    policy.RuleDefault(
        ADMIN_API, 'role:admin',
        description='Default rule for most placement APIs.',
        scope_types=['project']),
    policy.RuleDefault(
        SERVICE_API, 'role:service',
        description='Default rule for service-to-service placement APIs.',
        scope_types=['project']),
    policy.RuleDefault(
        ADMIN_OR_SERVICE_API, 'role:admin or role:service',
        description='Default rule for administrative or service-to-service '
                    'placement APIs.',
        scope_types=['project']),
    policy.RuleDefault(
        PROJECT_READER_API, 'role:reader and project_id:%(project_id)s',
        description='Default rule for Project level read only APIs.',
        scope_types=['project']),
    policy.RuleDefault(
        ADMIN_OR_PROJECT_READER_OR_SERVICE_API,
        'role:admin or rule:project_reader_api or role:service',
        description='Default rule for project level reader APIs, '
                    'administrators and services.',
        scope_types=['project']),
]


def api_rule(name, check_str, description, operations):
    """An API rule with the legacy ``role:admin`` deprecated fallback.

    ``operations`` is a list of (method, path) pairs.
    """
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        operations=[{'method': method, 'path': path}
                    for method, path in operations],
        scope_types=['project'],
        deprecated_rule=policy.DeprecatedRule(
            name=name, check_str='role:admin',
            deprecated_reason=DEPRECATED_REASON,
            deprecated_since=DEPRECATED_SINCE))


def list_rules():
    return RULES
