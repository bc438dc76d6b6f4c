"""JSON schemas for PUT /resource_providers/{uuid}/aggregates."""

PUT_AGGREGATES_V1_1 = {
    'type': 'array',
    'items': {'type': 'string', 'format': 'uuid'},
    'uniqueItems': True,
}

PUT_AGGREGATES_V1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': PUT_AGGREGATES_V1_1,
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
