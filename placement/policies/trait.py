"""Policy rules for traits."""
from placement.policies import base

TRAITS_LIST = 'placement:traits:list'
TRAITS_SHOW = 'placement:traits:show'
TRAITS_UPDATE = 'placement:traits:update'
TRAITS_DELETE = 'placement:traits:delete'
RP_TRAIT_LIST = 'placement:resource_providers:traits:list'
RP_TRAIT_UPDATE = 'placement:resource_providers:traits:update'
RP_TRAIT_DELETE = 'placement:resource_providers:traits:delete'

RULES = [
    base.api_rule(
        TRAITS_LIST, base.RULE_ADMIN_OR_SERVICE,
        'List traits.',
        [('GET', '/traits')]),
    base.api_rule(
        TRAITS_SHOW, base.RULE_ADMIN_OR_SERVICE,
        'Show trait.',
        [('GET', '/traits/{name}')]),
    base.api_rule(
        TRAITS_UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update trait.',
        [('PUT', '/traits/{name}')]),
    base.api_rule(
        TRAITS_DELETE, base.RULE_ADMIN_OR_SERVICE,
        'Delete trait.',
        [('DELETE', '/traits/{name}')]),
    base.api_rule(
        RP_TRAIT_LIST, base.RULE_ADMIN_OR_SERVICE,
        'List resource provider traits.',
        [('GET', '/resource_providers/{uuid}/traits')]),
    base.api_rule(
        RP_TRAIT_UPDATE, base.RULE_ADMIN_OR_SERVICE,
        'Update resource provider traits.',
        [('PUT', '/resource_providers/{uuid}/traits')]),
    base.api_rule(
        RP_TRAIT_DELETE, base.RULE_ADMIN_OR_SERVICE,
        'Delete resource provider traits.',
        [('DELETE', '/resource_providers/{uuid}/traits')]),
]


def list_rules():
    return RULES
