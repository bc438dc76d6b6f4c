"""JSON schemas for inventory request bodies.

The field limits are the database's: integers fit a signed 32-bit column,
allocation_ratio a single-precision float. Content and key order are
observable (a 400 prints the failing schema, as the reference service
does), so they follow that service's. Schemas are the same at every
microversion; the reserved == total rule that changed at 1.26 is a
capacity check in ``objects.inventory``, not a schema.
"""
import copy

MAX_INT = 2147483647
MAX_FLOAT = 3.40282e38
RESOURCE_CLASS_PATTERN = '^[A-Z0-9_]+$'

_FIELDS = {
    'total': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
    'reserved': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 0},
    'min_unit': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
    'max_unit': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
    'step_size': {'type': 'integer', 'maximum': MAX_INT, 'minimum': 1},
    'allocation_ratio': {'type': 'number', 'maximum': MAX_FLOAT},
}

_GENERATION = {'type': 'integer'}


def _object(required, **properties):
    return {
        'type': 'object',
        'properties': copy.deepcopy(properties),
        'required': list(required),
        'additionalProperties': False,
    }


# One entry of PUT /resource_providers/{uuid}/inventories. A generation
# here is accepted and ignored, as the reference service does.
_INVENTORY = _object(['total'], resource_provider_generation=_GENERATION,
                     **_FIELDS)

# PUT /resource_providers/{uuid}/inventories/{resource_class}
PUT_INVENTORY = _object(['total', 'resource_provider_generation'],
                        resource_provider_generation=_GENERATION, **_FIELDS)

# POST /resource_providers/{uuid}/inventories (undocumented, upstream has it)
POST_INVENTORY = _object(
    ['total', 'resource_class'],
    resource_provider_generation=_GENERATION, **_FIELDS,
    resource_class={'type': 'string', 'pattern': RESOURCE_CLASS_PATTERN})

# PUT /resource_providers/{uuid}/inventories
PUT_INVENTORIES = _object(
    ['resource_provider_generation', 'inventories'],
    resource_provider_generation=_GENERATION,
    # Any key passes here: an unknown or malformed class name is the
    # operation's 400 ("Unknown resource class in inventory ...").
    inventories={
        'type': 'object',
        'patternProperties': {RESOURCE_CLASS_PATTERN: _INVENTORY},
    })

# The entries of ``inventories`` whose name is no class name: the schema
# above leaves them alone, as the reference service's does (its 400s
# print it), yet the operation reads their values: the generation and
# each capacity are checked before the unknown class, as there. So they
# are checked apart, after it: an object with an integer total and each
# inventory field of its type; other members are ignored, as there.
OTHER_NAME_INVENTORY = {
    'type': 'object',
    'properties': {name: {'type': field['type']}
                   for name, field in _FIELDS.items()},
    'required': ['total'],
}
# A name that is no class name.
OTHER_NAME_PATTERN = '^(?!%s)' % RESOURCE_CLASS_PATTERN[1:]
_OTHER_NAMES = {
    'type': 'object',
    'patternProperties': {OTHER_NAME_PATTERN: OTHER_NAME_INVENTORY},
}

# PUT /resource_providers/{uuid}/inventories, after PUT_INVENTORIES.
PUT_INVENTORIES_OTHER_NAMES = {
    'type': 'object',
    'properties': {'inventories': _OTHER_NAMES},
}
