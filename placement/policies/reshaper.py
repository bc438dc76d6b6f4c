"""Policy rules for the reshaper.

The manual's policy reference spells the rule ``placement:resaper:reshape``
(its sample file and the API have ``reshaper``). Upstream 16.0.0 does not
know that spelling: a policy file rule under it is ignored, here too.
"""
from placement.policies import base

RESHAPE = 'placement:reshaper:reshape'

RULES = [
    base.api_rule(
        RESHAPE, base.RULE_SERVICE,
        'Reshape Inventory and Allocations.',
        [('POST', '/reshaper')]),
]


def list_rules():
    return RULES
