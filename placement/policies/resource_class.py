"""Policy rules for resource classes."""
from placement.policies import base

LIST = 'placement:resource_classes:list'
CREATE = 'placement:resource_classes:create'
SHOW = 'placement:resource_classes:show'
UPDATE = 'placement:resource_classes:update'
DELETE = 'placement:resource_classes:delete'

RULES = [
    base.api_rule(
        LIST, base.RULE_ADMIN_OR_SERVICE,
        'List resource classes.',
        [('GET', '/resource_classes')]),
    base.api_rule(
        CREATE, base.RULE_ADMIN_OR_SERVICE,
        'Create resource class.',
        [('POST', '/resource_classes')]),
    base.api_rule(
        SHOW, base.RULE_ADMIN_OR_SERVICE,
        'Show resource class.',
        [('GET', '/resource_classes/{name}')]),
    base.api_rule(
        UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update resource class.',
        [('PUT', '/resource_classes/{name}')]),
    base.api_rule(
        DELETE, base.RULE_ADMIN_OR_SERVICE,
        'Delete resource class.',
        [('DELETE', '/resource_classes/{name}')]),
]


def list_rules():
    return RULES
