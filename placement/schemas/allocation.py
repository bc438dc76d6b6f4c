"""JSON schemas for allocation bodies, one published dict per version.

Each version is built from the previous one by ``_extend`` which returns
a new dict: a published schema is never mutated.

The content and the key order of these dicts are observable: a 400 for a
body that does not validate prints the failing (sub)schema, as the
reference service does, so each dict is written in the order that
service prints it. Amounts have no maximum here: one beyond a provider's
max_unit fails the capacity check with a 409, as in the reference
service.
"""
import copy

RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        '^[A-Z0-9_]+$': {'type': 'integer', 'minimum': 1},
    },
    'additionalProperties': False,
}

_UUID_KEY = '^[0-9a-fA-F-]{36}$'
_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
CONSUMER_GENERATION = {'type': ['integer', 'null'],
                       'additionalProperties': False}
CONSUMER_TYPE = {'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                 'minLength': 1, 'maxLength': 255}
# Accepted (as upstream: unanchored, so any key passes) and ignored.
MAPPINGS = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        '[a-zA-Z0-9_-]{1,64}': {
            'type': 'array', 'minItems': 1,
            'items': {'type': 'string', 'format': 'uuid'},
        },
    },
}


def _extend(schema, properties=None, required=()):
    """A copy of ``schema`` with more properties (or replaced ones, kept
    in place) and more required keys, appended."""
    new = copy.deepcopy(schema)
    new['properties'].update(copy.deepcopy(properties or {}))
    new['required'] = list(new.get('required', [])) + list(required)
    return new


# --- the list form (1.0 - 1.11) ------------------------------------------

_LIST_ENTRY = {
    'type': 'object',
    'properties': {
        'resource_provider': {
            'type': 'object',
            'properties': {'uuid': {'type': 'string', 'format': 'uuid'}},
            'additionalProperties': False,
            'required': ['uuid'],
        },
        'resources': RESOURCES,
    },
    'required': ['resource_provider', 'resources'],
    'additionalProperties': False,
}

PUT_ALLOCATIONS_V1_0 = {
    'type': 'object',
    'properties': {
        'allocations': {'type': 'array', 'minItems': 1,
                        'items': _LIST_ENTRY},
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

PUT_ALLOCATIONS_V1_8 = _extend(
    PUT_ALLOCATIONS_V1_0,
    properties={'project_id': _EXTERNAL_ID, 'user_id': _EXTERNAL_ID},
    required=['project_id', 'user_id'])

# --- the dict form (1.12+) -----------------------------------------------


def _dict_allocations(min_providers):
    return {
        'type': 'object',
        'minProperties': min_providers,
        'patternProperties': {
            _UUID_KEY: {
                'type': 'object',
                'properties': {
                    'generation': {'type': 'integer'},
                    'resources': RESOURCES,
                },
                'required': ['resources'],
                'additionalProperties': False,
            },
        },
        'additionalProperties': False,
    }


def _consumer(min_providers):
    """One consumer's body in the dict form (its key order differs from
    the list form's: additionalProperties before required)."""
    return copy.deepcopy({
        'type': 'object',
        'properties': {
            'allocations': _dict_allocations(min_providers),
            'project_id': _EXTERNAL_ID,
            'user_id': _EXTERNAL_ID,
        },
        'additionalProperties': False,
        'required': ['allocations', 'project_id', 'user_id'],
    })


PUT_ALLOCATIONS_V1_12 = _consumer(1)

# From 1.28 an empty allocations object deletes them all.
PUT_ALLOCATIONS_V1_28 = _extend(
    PUT_ALLOCATIONS_V1_12,
    properties={'allocations': _dict_allocations(0),
                'consumer_generation': CONSUMER_GENERATION},
    required=['consumer_generation'])

PUT_ALLOCATIONS_V1_34 = _extend(
    PUT_ALLOCATIONS_V1_28, properties={'mappings': MAPPINGS})

PUT_ALLOCATIONS_V1_38 = _extend(
    PUT_ALLOCATIONS_V1_34, properties={'consumer_type': CONSUMER_TYPE},
    required=['consumer_type'])

# --- POST /allocations (1.13+): many consumers at once -------------------

CONSUMER_V1_13 = _consumer(0)
CONSUMER_V1_28 = _extend(
    CONSUMER_V1_13, properties={'consumer_generation': CONSUMER_GENERATION},
    required=['consumer_generation'])
CONSUMER_V1_34 = _extend(CONSUMER_V1_28, properties={'mappings': MAPPINGS})
CONSUMER_V1_38 = _extend(
    CONSUMER_V1_34, properties={'consumer_type': CONSUMER_TYPE},
    required=['consumer_type'])


def consumers_schema(consumer, min_consumers=1):
    """An object keyed by consumer uuid whose values match ``consumer``."""
    return {
        'type': 'object',
        'minProperties': min_consumers,
        'additionalProperties': False,
        'patternProperties': {_UUID_KEY: copy.deepcopy(consumer)},
    }


POST_ALLOCATIONS_V1_13 = consumers_schema(CONSUMER_V1_13)
POST_ALLOCATIONS_V1_28 = consumers_schema(CONSUMER_V1_28)
POST_ALLOCATIONS_V1_34 = consumers_schema(CONSUMER_V1_34)
POST_ALLOCATIONS_V1_38 = consumers_schema(CONSUMER_V1_38)
