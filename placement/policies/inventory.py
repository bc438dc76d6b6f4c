"""Policy rules for inventories."""
from placement.policies import base

LIST = 'placement:resource_providers:inventories:list'
CREATE = 'placement:resource_providers:inventories:create'
SHOW = 'placement:resource_providers:inventories:show'
UPDATE = 'placement:resource_providers:inventories:update'
DELETE = 'placement:resource_providers:inventories:delete'

RULES = [
    base.api_rule(LIST, base.RULE_ADMIN_OR_SERVICE, 'List resource provider inventories.',
                  [('GET', '/resource_providers/{uuid}/inventories')]),
    base.api_rule(CREATE, base.RULE_ADMIN_OR_SERVICE, 'Create one resource provider inventory.',
                  [('POST', '/resource_providers/{uuid}/inventories')]),
    base.api_rule(SHOW, base.RULE_ADMIN_OR_SERVICE, 'Show resource provider inventory.',
                  [('GET', '/resource_providers/{uuid}/inventories/{resource_class}')]),
    base.api_rule(UPDATE, base.RULE_ADMIN_OR_SERVICE, 'Update resource provider inventory.',
                  [('PUT', '/resource_providers/{uuid}/inventories'), ('PUT', '/resource_providers/{uuid}/inventories/{resource_class}')]),
    base.api_rule(DELETE, base.RULE_ADMIN_OR_SERVICE, 'Delete resource provider inventory.',
                  [('DELETE', '/resource_providers/{uuid}/inventories'), ('DELETE', '/resource_providers/{uuid}/inventories/{resource_class}')]),
]


def list_rules():
    return RULES
