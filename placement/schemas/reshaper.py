"""JSON schemas for POST /reshaper, one published dict per version.

The inventories part is PUT /resource_providers/{uuid}/inventories keyed
by provider uuid; the allocations part is POST /allocations of the same
version, except that it may be empty ("no change to allocations").
"""
import copy

from placement.schemas import allocation
from placement.schemas import inventory

_UUID_KEY = '^[0-9a-fA-F-]{36}$'

_INVENTORIES = {
    'type': 'object',
    'patternProperties': {_UUID_KEY: inventory.PUT_INVENTORIES},
    'minProperties': 1,
    'additionalProperties': False,
}


def _reshaper(consumer):
    return {
        'type': 'object',
        'properties': {
            'inventories': copy.deepcopy(_INVENTORIES),
            'allocations': allocation.consumers_schema(consumer,
                                                       min_consumers=0),
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }


# POST /reshaper, after the schema of its version: the entries of each
# provider's inventories whose name is no class name must be objects.
# Their values are never read: the reshape names the unknown class
# first, whatever they hold, as the reference service does.
POST_RESHAPER_OTHER_NAMES = {
    'type': 'object',
    'properties': {'inventories': {
        'type': 'object',
        'additionalProperties': {
            'type': 'object',
            'properties': {'inventories': {
                'type': 'object',
                'patternProperties': {
                    inventory.OTHER_NAME_PATTERN: {'type': 'object'}},
            }},
        },
    }},
}

POST_RESHAPER_V1_30 = _reshaper(allocation.CONSUMER_V1_28)
POST_RESHAPER_V1_34 = _reshaper(allocation.CONSUMER_V1_34)
POST_RESHAPER_V1_38 = _reshaper(allocation.CONSUMER_V1_38)
