"""Policy rule for the Prometheus metrics endpoint."""
from oslo_policy import policy


METRICS = 'placement:metrics'

RULES = [
    policy.DocumentedRuleDefault(
        name=METRICS,
        check_str='role:admin or (role:reader and system_scope:all)',
        description='Read the Prometheus metrics of the service (capacity '
                    'of every resource provider, request counts and '
                    'latencies). Only checked when [metrics] enabled is '
                    'True and [metrics] allow_anonymous is False.',
        operations=[{'method': 'GET', 'path': '/metrics'}],
        scope_types=['project', 'system']),
]


def list_rules():
    return RULES
