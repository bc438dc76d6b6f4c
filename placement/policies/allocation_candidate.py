"""Policy rules for allocation candidates."""
from placement.policies import base

LIST = 'placement:allocation_candidates:list'

RULES = [
    base.api_rule(
        LIST, base.RULE_ADMIN_OR_SERVICE,
        'List allocation candidates.',
        [('GET', '/allocation_candidates')]),
]


def list_rules():
    return RULES
