"""Policy rules for aggregates."""
from placement.policies import base

LIST = 'placement:resource_providers:aggregates:list'
UPDATE = 'placement:resource_providers:aggregates:update'

RULES = [
    base.api_rule(
        LIST, base.RULE_ADMIN_OR_SERVICE,
        'List resource provider aggregates.',
        [('GET', '/resource_providers/{uuid}/aggregates')]),
    base.api_rule(
        UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update resource provider aggregates.',
        [('PUT', '/resource_providers/{uuid}/aggregates')]),
]


def list_rules():
    return RULES
