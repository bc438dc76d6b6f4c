"""Policy rules for the reshaper.

The manual's policy reference spells the rule ``placement:resaper:reshape``
(its sample file and the API have ``reshaper``); the misspelling is kept
as a legacy name, so a policy file that uses it still takes effect.
"""
from placement.policies import base

RESHAPE = 'placement:reshaper:reshape'
MISSPELLED_RESHAPE = 'placement:resaper:reshape'

RULES = [
    base.api_rule(
        RESHAPE, base.RULE_SERVICE,
        'Reshape Inventory and Allocations.',
        [('POST', '/reshaper')],
        legacy_name=MISSPELLED_RESHAPE),
]


def list_rules():
    return RULES
