"""JSON schemas for the GET /usages query string."""
import copy

_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

GET_USAGES_V1_9 = {
    'type': 'object',
    'properties': {
        'project_id': _ID,
        'user_id': _ID,
    },
    'required': ['project_id'],
    'additionalProperties': False,
}


def _with_consumer_type(schema):
    new = copy.deepcopy(schema)
    # The reference service's pattern, verbatim: '^all' has no '$'.
    new['properties']['consumer_type'] = {
        'type': 'string',
        'pattern': '^[A-Z0-9_]+$|^all|^unknown$',
        'minLength': 1,
        'maxLength': 255,
    }
    return new


GET_USAGES_V1_38 = _with_consumer_type(GET_USAGES_V1_9)
