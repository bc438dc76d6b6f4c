"""JSON schemas for traits: names, the provider trait set, the list query."""

TRAIT = {'type': 'string', 'minLength': 1, 'maxLength': 255}
CUSTOM_TRAIT = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                'pattern': '^CUSTOM_[A-Z0-9_]+$'}

SET_PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': TRAIT},
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}

LIST_TRAITS = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'associated': {'type': 'string'},
    },
    'additionalProperties': False,
}
