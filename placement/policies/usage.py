"""Policy rules for usages."""
from placement.policies import base

PROVIDER_USAGES = 'placement:resource_providers:usages'
TOTAL_USAGES = 'placement:usages'

RULES = [
    base.api_rule(
        PROVIDER_USAGES, base.RULE_ADMIN_OR_SERVICE,
        'List resource provider usages.',
        [('GET', '/resource_providers/{uuid}/usages')]),
    base.api_rule(
        TOTAL_USAGES, base.RULE_ADMIN_OR_PROJECT_READER_OR_SERVICE,
        'List total resource usages for a given project.',
        [('GET', '/usages')]),
]


def list_rules():
    return RULES
