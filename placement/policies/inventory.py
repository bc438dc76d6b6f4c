"""Policy rules for inventories."""
from placement.policies import base

LIST = 'placement:resource_providers:inventories:list'
CREATE = 'placement:resource_providers:inventories:create'
SHOW = 'placement:resource_providers:inventories:show'
UPDATE = 'placement:resource_providers:inventories:update'
DELETE = 'placement:resource_providers:inventories:delete'

ALL_PATH = '/resource_providers/{uuid}/inventories'
ONE_PATH = ALL_PATH + '/{resource_class}'

RULES = [
    base.api_rule(
        LIST, base.RULE_ADMIN_OR_SERVICE,
        'List resource provider inventories.',
        [('GET', ALL_PATH)]),
    base.api_rule(
        CREATE, base.RULE_ADMIN_OR_SERVICE,
        'Create one resource provider inventory.',
        [('POST', ALL_PATH)]),
    base.api_rule(
        SHOW, base.RULE_ADMIN_OR_SERVICE,
        'Show resource provider inventory.',
        [('GET', ONE_PATH)]),
    base.api_rule(
        UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update resource provider inventory.',
        [('PUT', ALL_PATH),
         ('PUT', ONE_PATH)]),
    base.api_rule(
        DELETE, base.RULE_ADMIN_OR_SERVICE,
        'Delete resource provider inventory.',
        [('DELETE', ALL_PATH),
         ('DELETE', ONE_PATH)]),
]


def list_rules():
    return RULES
