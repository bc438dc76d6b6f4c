"""Response body schemas, each written once (JSON Schema 2020-12).

A body whose shape changes with the microversion is a table of
``(first version, schema)`` pairs, as ``microversion.Windows`` takes
them; ``windows.split`` cuts it to an operation's window. Members are
exact: ``additionalProperties: false`` wherever the reference lists every
member, and every member the service always sends is required.

Request schemas are not here: the document takes them from
``placement.schemas`` and the handlers' tables, as the service does.
"""
import copy

from placement import errors
from placement import microversion
from placement.schemas import inventory as inventory_schema

UUID = {'type': 'string', 'format': 'uuid'}
NULLABLE_UUID = {'anyOf': [UUID, {'type': 'null'}]}
GENERATION = {'type': 'integer', 'minimum': 0}
NAME_PATTERN = '^[A-Z0-9_]+$'
RESOURCE_CLASS = {'type': 'string', 'pattern': NAME_PATTERN,
                  'maxLength': 255}
TRAIT = {'type': 'string', 'pattern': NAME_PATTERN, 'maxLength': 255}
EXTERNAL_ID = {'type': 'string', 'maxLength': 255}
AMOUNT = {'type': 'integer', 'minimum': 0}
UUID_KEY = ('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
            '[0-9a-fA-F]{12}$')


def exact(properties, required=None, **more):
    """An object with exactly ``properties`` (all required unless
    ``required`` says which)."""
    schema = {'type': 'object', 'properties': copy.deepcopy(properties),
              'required': list(properties if required is None
                               else required),
              'additionalProperties': False}
    schema.update(copy.deepcopy(more))
    return schema


def keyed(key_pattern, value, **more):
    """An object whose keys match ``key_pattern``, each with ``value``."""
    schema = {'type': 'object',
              'patternProperties': {key_pattern: copy.deepcopy(value)},
              'additionalProperties': False}
    schema.update(more)
    return schema


def keyed_any(patterns):
    """An object whose keys each match one of ``patterns`` ({key pattern:
    value schema})."""
    return {'type': 'object', 'patternProperties': copy.deepcopy(patterns),
            'additionalProperties': False}


def link(rel, href_suffix):
    """One {rel, href} link whose href ends with ``href_suffix`` (a
    regex)."""
    return exact({'rel': {'const': rel},
                  'href': {'type': 'string', 'pattern': href_suffix + '$'}})


def links(*items):
    """Exactly these links, in this order."""
    return {'type': 'array', 'prefixItems': list(items), 'items': False,
            'minItems': len(items)}


RESOURCES = keyed(NAME_PATTERN, {'type': 'integer', 'minimum': 1})
USAGES = keyed(NAME_PATTERN, AMOUNT)

# --- the version document ---------------------------------------------------

ROOT = exact({'versions': {
    'type': 'array', 'minItems': 1, 'maxItems': 1,
    'items': exact({
        'id': {'const': 'v%s' % microversion.MIN_VERSION},
        'max_version': {'const': str(microversion.MAX_VERSION)},
        'min_version': {'const': str(microversion.MIN_VERSION)},
        'status': {'const': 'CURRENT'},
        'links': links(exact({'rel': {'const': 'self'},
                              'href': {'type': 'string'}})),
    })}})

# --- errors -----------------------------------------------------------------


# Every code the service gives (errors.py names each once).
ERROR_CODES = sorted(value for name, value in vars(errors).items()
                     if name.isupper() and isinstance(value, str)
                     and value.startswith('placement.'))


def _error_item(with_code):
    properties = {
        'status': {'type': 'integer', 'minimum': 400, 'maximum': 599},
        'title': {'type': 'string'},
        'detail': {'type': 'string'},
        'request_id': {'type': 'string', 'pattern': '^req-[0-9a-f-]{36}$'},
        # Only on a 406 for a version out of range.
        'max_version': {'const': str(microversion.MAX_VERSION)},
        'min_version': {'const': str(microversion.MIN_VERSION)},
    }
    required = ['status', 'title', 'detail', 'request_id']
    if with_code:
        properties['code'] = {'enum': ERROR_CODES}
        required.insert(3, 'code')
    return exact(properties, required=required)


def _errors(with_code):
    return exact({'errors': {'type': 'array', 'minItems': 1, 'maxItems': 1,
                             'items': _error_item(with_code)}})


# Before 1.23 the error has no code; an answer made before a version
# was settled (a bad version header) has none either.
ERROR = [('1.0', _errors(False)), ('1.23', _errors(True))]

# A 401 is made outside placement's formatter: by keystonemiddleware
# ({"error": {...}}) or, with noauth2, by WebOb.
UNAUTHORIZED = {'anyOf': [
    exact({'error': exact({'code': {'const': 401},
                           'title': {'type': 'string'},
                           'message': {'type': 'string'}})}),
    exact({'code': {'const': '401 Unauthorized'},
           'title': {'type': 'string'},
           'message': {'type': 'string'}}),
]}

# --- resource providers -----------------------------------------------------

_PROVIDER_RELS = (
    ('1.0', ('inventories', 'usages')),
    ('1.1', ('inventories', 'usages', 'aggregates')),
    ('1.6', ('inventories', 'usages', 'aggregates', 'traits')),
    ('1.11', ('inventories', 'usages', 'aggregates', 'traits',
              'allocations')),
)
_PROVIDER_HREF = '/resource_providers/[0-9a-f-]{36}'


def _provider(rels, nested):
    properties = {
        'uuid': UUID,
        'name': {'type': 'string', 'maxLength': 200},
        'generation': GENERATION,
        'links': links(link('self', _PROVIDER_HREF),
                       *[link(rel, '%s/%s' % (_PROVIDER_HREF, rel))
                         for rel in rels]),
    }
    if nested:
        properties['parent_provider_uuid'] = NULLABLE_UUID
        properties['root_provider_uuid'] = UUID
    return exact(properties)


RESOURCE_PROVIDER = [(start, _provider(rels, False))
                     for start, rels in _PROVIDER_RELS] + [
    ('1.14', _provider(_PROVIDER_RELS[-1][1], True))]

RESOURCE_PROVIDERS = [
    (start, exact({'resource_providers': {'type': 'array',
                                          'items': provider}}))
    for start, provider in RESOURCE_PROVIDER]

# --- resource classes -------------------------------------------------------

RESOURCE_CLASS_BODY = exact({
    'name': RESOURCE_CLASS,
    'links': links(link('self', '/resource_classes/[A-Z0-9_]+')),
})
RESOURCE_CLASSES = exact({'resource_classes': {
    'type': 'array', 'items': RESOURCE_CLASS_BODY}})

# --- inventories, usages, aggregates, traits ---------------------------------

# The fields as the request schema bounds them; all present in an answer.
_INVENTORY_FIELDS = {
    name: value
    for name, value in inventory_schema.PUT_INVENTORY['properties'].items()
    if name != 'resource_provider_generation'}
INVENTORY = exact(_INVENTORY_FIELDS)
INVENTORY_WITH_GENERATION = exact(
    dict(_INVENTORY_FIELDS, resource_provider_generation=GENERATION))
INVENTORIES = exact({
    'inventories': keyed(NAME_PATTERN, INVENTORY),
    'resource_provider_generation': GENERATION,
})

PROVIDER_USAGES = exact({'resource_provider_generation': GENERATION,
                         'usages': USAGES})

# An aggregate is answered as it was written: any string oslo.utils
# calls uuid-like (dashes anywhere or none, any case, braces, a urn:uuid:
# prefix), as the reference service answers.
AGGREGATE_UUID = {'type': 'string',
                  'pattern': '^(urn:)?(uuid:)?[{]*(-*[0-9a-fA-F]){32}-*[}]*$'}
_AGGREGATE_LIST = {'type': 'array', 'items': AGGREGATE_UUID,
                   'uniqueItems': True}
AGGREGATES = [
    ('1.1', exact({'aggregates': _AGGREGATE_LIST})),
    ('1.19', exact({'aggregates': _AGGREGATE_LIST,
                    'resource_provider_generation': GENERATION})),
]

_TRAIT_LIST = {'type': 'array', 'items': TRAIT, 'uniqueItems': True}
TRAITS = exact({'traits': _TRAIT_LIST})
PROVIDER_TRAITS = exact({'traits': _TRAIT_LIST,
                         'resource_provider_generation': GENERATION})

CONSUMER_TYPE = {'type': 'string', 'maxLength': 255,
                 'pattern': '^[A-Z0-9_]+$|^unknown$'}
_USAGES_BY_TYPE = keyed(
    '^[A-Z0-9_]+$|^unknown$|^all$',
    {'type': 'object', 'properties': {'consumer_count': AMOUNT},
     'required': ['consumer_count'],
     'patternProperties': {NAME_PATTERN: AMOUNT},
     'additionalProperties': False})
TOTAL_USAGES = [
    ('1.9', exact({'usages': USAGES})),
    ('1.38', exact({'usages': _USAGES_BY_TYPE})),
]

# --- allocations ------------------------------------------------------------


def _consumer_allocations(extra):
    """GET /allocations/{uuid}: ``extra`` members are present exactly
    when the consumer has allocations."""
    entry = exact({'resources': RESOURCES, 'generation': GENERATION})
    properties = {'allocations': keyed(UUID_KEY, entry)}
    properties.update(extra)
    schema = exact(properties, required=['allocations'])
    if extra:
        schema['if'] = {'properties': {'allocations': {'minProperties': 1}}}
        schema['then'] = {'required': list(properties)}
        schema['else'] = {'maxProperties': 1}
    return schema


_OWNER = {'project_id': EXTERNAL_ID, 'user_id': EXTERNAL_ID}
_CONSUMER_GENERATION = {'consumer_generation': GENERATION}
CONSUMER_ALLOCATIONS = [
    ('1.0', _consumer_allocations({})),
    ('1.12', _consumer_allocations(_OWNER)),
    ('1.28', _consumer_allocations(dict(_OWNER, **_CONSUMER_GENERATION))),
    ('1.38', _consumer_allocations(dict(
        _OWNER, consumer_type=CONSUMER_TYPE, **_CONSUMER_GENERATION))),
]


def _provider_allocations(entry):
    return exact({'allocations': keyed(UUID_KEY, entry),
                  'resource_provider_generation': GENERATION})


PROVIDER_ALLOCATIONS = [
    ('1.0', _provider_allocations(exact({'resources': RESOURCES}))),
    ('1.28', _provider_allocations(exact(
        dict({'resources': RESOURCES}, **_CONSUMER_GENERATION)))),
]

# --- allocation candidates --------------------------------------------------

_LIST_REQUEST = exact({'allocations': {
    'type': 'array', 'minItems': 1,
    'items': exact({'resource_provider': exact({'uuid': UUID}),
                    'resources': RESOURCES})}})
_DICT_ALLOCATIONS = keyed(UUID_KEY, exact({'resources': RESOURCES}),
                          minProperties=1)
_DICT_REQUEST = exact({'allocations': _DICT_ALLOCATIONS})
_MAPPED_REQUEST = exact({
    'allocations': _DICT_ALLOCATIONS,
    'mappings': keyed('^([a-zA-Z0-9_-]{1,64})?$', {
        'type': 'array', 'minItems': 1, 'items': UUID}),
})
_CAPACITY = exact({'capacity': AMOUNT, 'used': AMOUNT})


def _summary(traits, tree):
    properties = {'resources': keyed(NAME_PATTERN, _CAPACITY)}
    if traits:
        properties['traits'] = _TRAIT_LIST
    if tree:
        properties['parent_provider_uuid'] = NULLABLE_UUID
        properties['root_provider_uuid'] = UUID
    return exact(properties)


def _candidates(request, summary):
    return exact({
        'allocation_requests': {'type': 'array', 'items': request},
        'provider_summaries': keyed(UUID_KEY, summary),
    })


ALLOCATION_CANDIDATES = [
    ('1.10', _candidates(_LIST_REQUEST, _summary(False, False))),
    ('1.12', _candidates(_DICT_REQUEST, _summary(False, False))),
    ('1.17', _candidates(_DICT_REQUEST, _summary(True, False))),
    ('1.29', _candidates(_DICT_REQUEST, _summary(True, True))),
    ('1.34', _candidates(_MAPPED_REQUEST, _summary(True, True))),
]

# The components/schemas of the document: every body above, by name.
NAMED = (
    ('Versions', ROOT),
    ('Error', ERROR),
    ('Unauthorized', UNAUTHORIZED),
    ('ResourceClass', RESOURCE_CLASS_BODY),
    ('ResourceClasses', RESOURCE_CLASSES),
    ('ResourceProvider', RESOURCE_PROVIDER),
    ('ResourceProviders', RESOURCE_PROVIDERS),
    ('Inventory', INVENTORY_WITH_GENERATION),
    ('Inventories', INVENTORIES),
    ('ProviderUsages', PROVIDER_USAGES),
    ('Aggregates', AGGREGATES),
    ('Traits', TRAITS),
    ('ProviderTraits', PROVIDER_TRAITS),
    ('TotalUsages', TOTAL_USAGES),
    ('ConsumerAllocations', CONSUMER_ALLOCATIONS),
    ('ProviderAllocations', PROVIDER_ALLOCATIONS),
    ('AllocationCandidates', ALLOCATION_CANDIDATES),
)
