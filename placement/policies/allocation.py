"""Policy rules for allocations."""
from placement.policies import base

ALLOC_MANAGE = 'placement:allocations:manage'
ALLOC_LIST = 'placement:allocations:list'
ALLOC_UPDATE = 'placement:allocations:update'
ALLOC_DELETE = 'placement:allocations:delete'
RP_ALLOC_LIST = 'placement:resource_providers:allocations:list'

RULES = [
    base.api_rule(
        ALLOC_MANAGE, base.RULE_ADMIN_OR_SERVICE,
        'Manage allocations.',
        [('POST', '/allocations')]),
    base.api_rule(
        ALLOC_LIST, base.RULE_ADMIN_OR_SERVICE,
        'List allocations.',
        [('GET', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        ALLOC_UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update allocations.',
        [('PUT', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        ALLOC_DELETE, base.RULE_ADMIN_OR_SERVICE,
        'Delete allocations.',
        [('DELETE', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        RP_ALLOC_LIST, base.RULE_ADMIN_OR_SERVICE,
        'List resource provider allocations.',
        [('GET', '/resource_providers/{uuid}/allocations')]),
]


def list_rules():
    return RULES
