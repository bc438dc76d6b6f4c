"""Query-string schemas of GET /allocation_candidates, one per version.

Each schema is built from the previous one by a helper returning a new
dict; published schemas are never mutated. Content and key order are
observable (a 400 prints the schema, as the reference service does).
"""
import copy

from placement import microversion

_SUFFIX_1_25 = '([1-9][0-9]*)?'
_SUFFIX_1_33 = '([a-zA-Z0-9_-]{1,64})?'
_STRING = {'type': 'string'}


def _extend(schema, properties=None, patterns=None, drop_required=False):
    new = copy.deepcopy(schema)
    new['properties'].update(properties or {})
    if patterns is not None:
        new['patternProperties'] = patterns
    if drop_required:
        new.pop('required', None)
    return new


def _group_patterns(suffix, names):
    return {'^%s%s$' % (name, suffix): dict(_STRING) for name in names}


GET_SCHEMA_1_10 = {
    'type': 'object',
    'properties': {'resources': dict(_STRING)},
    'required': ['resources'],
    'additionalProperties': False,
}
# Any number of digits passes (the handler caps the value).
GET_SCHEMA_1_16 = _extend(GET_SCHEMA_1_10, {'limit': {
    'type': ['integer', 'string'], 'pattern': '^[1-9][0-9]*$',
    'minimum': 1, 'minLength': 1}})
GET_SCHEMA_1_17 = _extend(GET_SCHEMA_1_16, {'required': {'type': ['string']}})
GET_SCHEMA_1_21 = _extend(GET_SCHEMA_1_17,
                          {'member_of': {'type': ['string']}})


def _granular(suffix, names):
    base = {key: value for key, value in GET_SCHEMA_1_21['properties'].items()
            if key == 'limit'}
    base['group_policy'] = {'type': 'string', 'enum': ['none', 'isolate']}
    return {'type': 'object', 'properties': base,
            'additionalProperties': False,
            'patternProperties': _group_patterns(suffix, names)}


GET_SCHEMA_1_25 = _granular(_SUFFIX_1_25,
                            ('resources', 'required', 'member_of'))
GET_SCHEMA_1_31 = _granular(_SUFFIX_1_25,
                            ('resources', 'required', 'member_of',
                             'in_tree'))
GET_SCHEMA_1_33 = _granular(_SUFFIX_1_33,
                            ('resources', 'required', 'member_of',
                             'in_tree'))
GET_SCHEMA_1_35 = _extend(GET_SCHEMA_1_33,
                          {'root_required': {'type': ['string']}})
GET_SCHEMA_1_36 = _extend(GET_SCHEMA_1_35,
                          {'same_subtree': {'type': ['string']}})

GET_SCHEMA = microversion.Windows(
    ('1.10', GET_SCHEMA_1_10),
    ('1.16', GET_SCHEMA_1_16),
    ('1.17', GET_SCHEMA_1_17),
    ('1.21', GET_SCHEMA_1_21),
    ('1.25', GET_SCHEMA_1_25),
    ('1.31', GET_SCHEMA_1_31),
    ('1.33', GET_SCHEMA_1_33),
    ('1.35', GET_SCHEMA_1_35),
    ('1.36', GET_SCHEMA_1_36),
)
