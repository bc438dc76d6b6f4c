"""Policy rules for resource providers."""
from placement.policies import base

LIST = 'placement:resource_providers:list'
CREATE = 'placement:resource_providers:create'
SHOW = 'placement:resource_providers:show'
UPDATE = 'placement:resource_providers:update'
DELETE = 'placement:resource_providers:delete'

RULES = [
    base.api_rule(
        LIST, base.RULE_ADMIN_OR_SERVICE,
        'List resource providers.',
        [('GET', '/resource_providers')]),
    base.api_rule(
        CREATE, base.RULE_ADMIN_OR_SERVICE,
        'Create resource provider.',
        [('POST', '/resource_providers')]),
    base.api_rule(
        SHOW, base.RULE_ADMIN_OR_SERVICE,
        'Show resource provider.',
        [('GET', '/resource_providers/{uuid}')]),
    base.api_rule(
        UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update resource provider.',
        [('PUT', '/resource_providers/{uuid}')]),
    base.api_rule(
        DELETE, base.RULE_ADMIN_OR_SERVICE,
        'Delete resource provider.',
        [('DELETE', '/resource_providers/{uuid}')]),
]


def list_rules():
    return RULES
