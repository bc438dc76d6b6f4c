"""Every policy rule placement registers, one module per entity.

``list_rules`` is the ``oslo.policy.policies`` entry point used by the
sample and policy generators; the order is the manual's.
"""
import itertools

from placement.policies import aggregate
from placement.policies import allocation
from placement.policies import allocation_candidate
from placement.policies import base
from placement.policies import inventory
from placement.policies import metrics
from placement.policies import reshaper
from placement.policies import resource_class
from placement.policies import resource_provider
from placement.policies import trait
from placement.policies import usage

MODULES = (base, resource_provider, resource_class, inventory, aggregate,
           usage, trait, allocation, allocation_candidate, reshaper, metrics)


def list_rules():
    return list(itertools.chain.from_iterable(
        module.list_rules() for module in MODULES))
