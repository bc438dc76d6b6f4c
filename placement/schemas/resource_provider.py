"""JSON schemas for resource provider bodies and the list query string.

Each schema is a published constant; a later version is built from an
earlier one by a helper returning a new dict, never by mutation.
"""
import copy

_UUID = {'type': 'string', 'format': 'uuid'}
_NULLABLE_UUID = {'anyOf': [_UUID, {'type': 'null'}]}


def _with_properties(schema, **properties):
    """A copy of ``schema`` with more (or replaced) properties."""
    new = copy.deepcopy(schema)
    new['properties'].update(copy.deepcopy(properties))
    return new


POST_PROVIDER_V1_0 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 200},
        'uuid': _UUID,
    },
    'required': ['name'],
    'additionalProperties': False,
}
POST_PROVIDER_V1_14 = _with_properties(
    POST_PROVIDER_V1_0, parent_provider_uuid=_NULLABLE_UUID)

PUT_PROVIDER_V1_0 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 200},
    },
    'required': ['name'],
    'additionalProperties': False,
}
PUT_PROVIDER_V1_14 = _with_properties(
    PUT_PROVIDER_V1_0, parent_provider_uuid=_NULLABLE_UUID)

LIST_PROVIDERS_V1_0 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'uuid': _UUID,
    },
    'additionalProperties': False,
}
LIST_PROVIDERS_V1_3 = _with_properties(
    LIST_PROVIDERS_V1_0, member_of={'type': 'string'})
LIST_PROVIDERS_V1_4 = _with_properties(
    LIST_PROVIDERS_V1_3, resources={'type': 'string'})
LIST_PROVIDERS_V1_14 = _with_properties(LIST_PROVIDERS_V1_4, in_tree=_UUID)
LIST_PROVIDERS_V1_18 = _with_properties(
    LIST_PROVIDERS_V1_14, required={'type': 'string'})
