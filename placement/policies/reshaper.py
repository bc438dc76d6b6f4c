"""Policy rules for the reshaper."""
from placement.policies import base

RESHAPE = 'placement:reshaper:reshape'

RULES = [
    base.api_rule(RESHAPE, base.RULE_SERVICE, 'Reshape Inventory and Allocations.',
                  [('POST', '/reshaper')]),
]


def list_rules():
    return RULES
