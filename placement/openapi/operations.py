"""What each operation answers: the one table the document adds to the
route table.

Keyed by (URL template, method) exactly as ``handler.ROUTE_DECLARATIONS``
(a test holds the two key sets equal). The version window of an
operation is its handlers'; its query and body schemas are the tables
the handlers validate with, named here, never copied. What is written
here is what the code does not say: a summary, the success answers
(status, body, headers, window) and the error statuses particular to
the operation. The statuses every operation shares (a bad version
header, authentication, policy, the database) are added by the builder.
"""
import dataclasses
import typing

from placement.handlers import aggregate
from placement.handlers import allocation
from placement.handlers import reshaper
from placement.handlers import resource_provider
from placement.handlers import usage
from placement.openapi import bodies
from placement.schemas import allocation_candidate as candidate_schema
from placement.schemas import inventory as inventory_schema
from placement.schemas import resource_class as rc_schema
from placement.schemas import trait as trait_schema

# Response headers, by name (see builder.HEADERS). 'cache' is the pair
# Last-Modified and Cache-Control, sent from 1.15 on.
LOCATION = 'Location'
CACHE = 'cache'
# As CACHE, but Last-Modified may be missing (nothing to date it by).
CACHE_MAYBE_UNDATED = 'cache-maybe-undated'


@dataclasses.dataclass(frozen=True)
class Answer:
    """One success status: its body (a schema or a [(first version,
    schema)] table, None for no body), headers and window."""
    status: int
    description: str
    body: typing.Any = None
    headers: tuple = ()
    since: typing.Optional[str] = None
    until: typing.Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Operation:
    summary: str
    tag: str
    answers: tuple
    # Error statuses of this operation beyond the shared ones.
    errors: tuple = ()
    # The query-string schema(s) (a microversion.Windows or a schema).
    query: typing.Any = None
    # Query parameters that may repeat: ((name, first version), ...).
    repeatable: tuple = ()
    # The request body schema(s): Windows, [(first version, schema or
    # None)] or a schema.
    body: typing.Any = None
    # Path parameter schemas particular to this operation.
    path: dict = dataclasses.field(default_factory=dict)
    # When several handlers serve the method (one per version window).
    operation_id: typing.Optional[str] = None


_RP = '/resource_providers/{uuid}'
_OK_NO_BODY = 'Done; no body.'

_PROVIDER = 'Resource providers'
_CLASSES = 'Resource classes'
_INVENTORIES = 'Inventories'
_AGGREGATES = 'Aggregates'
_TRAITS = 'Traits'
_ALLOCATIONS = 'Allocations'
_USAGES = 'Usages'
_CANDIDATES = 'Allocation candidates'

TAGS = ('Versions', _PROVIDER, _CLASSES, _INVENTORIES, _AGGREGATES,
        _TRAITS, _ALLOCATIONS, _USAGES, _CANDIDATES, 'Reshaper')

OPERATIONS = {
    ('/', 'GET'): Operation(
        'List the API versions (no authentication)', 'Versions',
        (Answer(200, 'The version document.', bodies.ROOT, (CACHE,)),)),

    # --- resource classes ---------------------------------------------------
    ('/resource_classes', 'GET'): Operation(
        'List resource classes', _CLASSES,
        (Answer(200, 'Standard and custom classes.',
                bodies.RESOURCE_CLASSES, (CACHE,)),)),
    ('/resource_classes', 'POST'): Operation(
        'Create a custom resource class', _CLASSES,
        (Answer(201, 'Created; no body.', headers=(LOCATION,)),),
        errors=(400, 409), body=rc_schema.POST_RESOURCE_CLASS),
    ('/resource_classes/{name}', 'GET'): Operation(
        'Show a resource class', _CLASSES,
        (Answer(200, 'The class.', bodies.RESOURCE_CLASS_BODY, (CACHE,)),),
        errors=(404,)),
    ('/resource_classes/{name}', 'PUT'): Operation(
        'Rename a custom class (1.2 - 1.6); create or verify one (1.7+)',
        _CLASSES,
        (Answer(200, 'Renamed.', bodies.RESOURCE_CLASS_BODY, (CACHE,),
                until='1.6'),
         Answer(201, 'Created.', headers=(LOCATION,), since='1.7'),
         Answer(204, 'It exists already.', headers=(LOCATION,),
                since='1.7')),
        errors=(400, 404, 409),
        body=[('1.2', rc_schema.PUT_RESOURCE_CLASS_V1_2), ('1.7', None)],
        path={'name': [('1.2', bodies.RESOURCE_CLASS),
                       ('1.7', rc_schema.CUSTOM_NAME)]},
        operation_id='put_resource_class'),
    ('/resource_classes/{name}', 'DELETE'): Operation(
        'Delete a custom class without inventory', _CLASSES,
        (Answer(204, _OK_NO_BODY),), errors=(400, 404, 409)),

    # --- resource providers -------------------------------------------------
    ('/resource_providers', 'GET'): Operation(
        'List resource providers (filters are ANDed)', _PROVIDER,
        (Answer(200, 'The providers.', bodies.RESOURCE_PROVIDERS,
                (CACHE,)),),
        errors=(400,), query=resource_provider.LIST_SCHEMA,
        repeatable=(('member_of', '1.24'), ('required', '1.39'))),
    ('/resource_providers', 'POST'): Operation(
        'Create a resource provider', _PROVIDER,
        (Answer(201, 'Created; no body.', headers=(LOCATION,),
                until='1.19'),
         Answer(200, 'Created.', bodies.RESOURCE_PROVIDER,
                (LOCATION, CACHE), since='1.20')),
        errors=(400, 409), body=resource_provider.POST_SCHEMA),
    (_RP, 'GET'): Operation(
        'Show a resource provider', _PROVIDER,
        (Answer(200, 'The provider.', bodies.RESOURCE_PROVIDER,
                (CACHE,)),),
        errors=(404,)),
    (_RP, 'PUT'): Operation(
        'Update a resource provider (name; parent from 1.14)', _PROVIDER,
        # The reference service sends no Last-Modified for a child
        # provider never updated before.
        (Answer(200, 'The updated provider. Last-Modified may be missing '
                'when the provider is a child that was never updated '
                'before.', bodies.RESOURCE_PROVIDER,
                (CACHE_MAYBE_UNDATED,)),),
        errors=(400, 404, 409), body=resource_provider.PUT_SCHEMA),
    (_RP, 'DELETE'): Operation(
        'Delete a resource provider without allocations or children',
        _PROVIDER, (Answer(204, _OK_NO_BODY),), errors=(404, 409)),

    # --- inventories --------------------------------------------------------
    (_RP + '/inventories', 'GET'): Operation(
        "List a provider's inventories", _INVENTORIES,
        (Answer(200, 'The inventories, keyed by class.', bodies.INVENTORIES,
                (CACHE_MAYBE_UNDATED,)),),
        errors=(404,)),
    (_RP + '/inventories', 'POST'): Operation(
        'Add one inventory to a provider', _INVENTORIES,
        (Answer(201, 'Created.', bodies.INVENTORY_WITH_GENERATION,
                (LOCATION, CACHE)),),
        errors=(400, 404, 409), body=inventory_schema.POST_INVENTORY),
    (_RP + '/inventories', 'PUT'): Operation(
        "Replace all of a provider's inventories", _INVENTORIES,
        (Answer(200, 'The inventories as written.', bodies.INVENTORIES,
                (CACHE_MAYBE_UNDATED,)),),
        errors=(400, 404, 409), body=inventory_schema.PUT_INVENTORIES),
    (_RP + '/inventories', 'DELETE'): Operation(
        "Delete all of a provider's inventories", _INVENTORIES,
        (Answer(204, _OK_NO_BODY),), errors=(404, 409)),
    (_RP + '/inventories/{resource_class}', 'GET'): Operation(
        'Show one inventory', _INVENTORIES,
        (Answer(200, 'The inventory.', bodies.INVENTORY_WITH_GENERATION,
                (CACHE,)),),
        errors=(404,)),
    (_RP + '/inventories/{resource_class}', 'PUT'): Operation(
        'Update one existing inventory', _INVENTORIES,
        (Answer(200, 'The inventory as written.',
                bodies.INVENTORY_WITH_GENERATION, (CACHE,)),),
        errors=(400, 404, 409), body=inventory_schema.PUT_INVENTORY),
    (_RP + '/inventories/{resource_class}', 'DELETE'): Operation(
        'Delete one inventory', _INVENTORIES,
        (Answer(204, _OK_NO_BODY),), errors=(404, 409)),

    # --- usages, aggregates, allocations of a provider ----------------------
    (_RP + '/usages', 'GET'): Operation(
        "A provider's usages, by class", _USAGES,
        (Answer(200, 'The usages.', bodies.PROVIDER_USAGES, (CACHE,)),),
        errors=(404,)),
    (_RP + '/aggregates', 'GET'): Operation(
        "List a provider's aggregates", _AGGREGATES,
        (Answer(200, 'The aggregates.', bodies.AGGREGATES, (CACHE,)),),
        errors=(404,)),
    (_RP + '/aggregates', 'PUT'): Operation(
        "Replace a provider's aggregates", _AGGREGATES,
        (Answer(200, 'The aggregates.', bodies.AGGREGATES, (CACHE,)),),
        errors=(400, 404, 409), body=aggregate.PUT_SCHEMA),
    (_RP + '/allocations', 'GET'): Operation(
        'List the allocations against a provider', _ALLOCATIONS,
        (Answer(200, 'The allocations, keyed by consumer.',
                bodies.PROVIDER_ALLOCATIONS, (CACHE,)),),
        errors=(404,)),

    # --- allocations --------------------------------------------------------
    ('/allocations', 'POST'): Operation(
        'Replace the allocations of several consumers at once',
        _ALLOCATIONS, (Answer(204, _OK_NO_BODY),), errors=(400, 409),
        body=allocation.POST_SCHEMA),
    ('/allocations/{consumer_uuid}', 'GET'): Operation(
        "List a consumer's allocations", _ALLOCATIONS,
        (Answer(200, 'The allocations, keyed by provider ({} when none).',
                bodies.CONSUMER_ALLOCATIONS, (CACHE,)),)),
    ('/allocations/{consumer_uuid}', 'PUT'): Operation(
        "Replace a consumer's allocations", _ALLOCATIONS,
        (Answer(204, _OK_NO_BODY),), errors=(400, 404, 409),
        body=allocation.PUT_SCHEMA),
    ('/allocations/{consumer_uuid}', 'DELETE'): Operation(
        "Delete a consumer's allocations", _ALLOCATIONS,
        (Answer(204, _OK_NO_BODY),), errors=(404, 409)),

    # --- allocation candidates ----------------------------------------------
    ('/allocation_candidates', 'GET'): Operation(
        'List allocation candidates', _CANDIDATES,
        (Answer(200, 'Allocation requests and provider summaries.',
                bodies.ALLOCATION_CANDIDATES, (CACHE,)),),
        errors=(400,), query=candidate_schema.GET_SCHEMA,
        repeatable=(('member_of', '1.24'), ('required', '1.39'),
                    ('same_subtree', '1.36'))),

    # --- traits -------------------------------------------------------------
    ('/traits', 'GET'): Operation(
        'List traits', _TRAITS,
        (Answer(200, 'The trait names.', bodies.TRAITS, (CACHE,)),),
        errors=(400,), query=trait_schema.LIST_TRAITS),
    ('/traits/{name}', 'GET'): Operation(
        'Check that a trait exists', _TRAITS,
        (Answer(204, 'It exists.', headers=(CACHE,)),), errors=(404,)),
    ('/traits/{name}', 'PUT'): Operation(
        'Create a custom trait', _TRAITS,
        (Answer(201, 'Created.', headers=(LOCATION, CACHE)),
         Answer(204, 'It exists already.', headers=(LOCATION, CACHE))),
        errors=(400,), path={'name': trait_schema.CUSTOM_TRAIT}),
    ('/traits/{name}', 'DELETE'): Operation(
        'Delete a custom trait no provider has', _TRAITS,
        (Answer(204, _OK_NO_BODY),), errors=(400, 404, 409)),
    (_RP + '/traits', 'GET'): Operation(
        "List a provider's traits", _TRAITS,
        (Answer(200, 'The traits.', bodies.PROVIDER_TRAITS, (CACHE,)),),
        errors=(404,)),
    (_RP + '/traits', 'PUT'): Operation(
        "Replace a provider's traits", _TRAITS,
        (Answer(200, 'The traits.', bodies.PROVIDER_TRAITS, (CACHE,)),),
        errors=(400, 404, 409), body=trait_schema.SET_PROVIDER_TRAITS),
    (_RP + '/traits', 'DELETE'): Operation(
        "Remove all of a provider's traits", _TRAITS,
        (Answer(204, _OK_NO_BODY),), errors=(404, 409)),

    # --- usages of a project, reshaper --------------------------------------
    ('/usages', 'GET'): Operation(
        "A project's (and user's) usages", _USAGES,
        (Answer(200, 'The usages, by class (by consumer type from 1.38).',
                bodies.TOTAL_USAGES, (CACHE,)),),
        errors=(400,), query=usage.QUERY_SCHEMA),
    ('/reshaper', 'POST'): Operation(
        'Move inventories and allocations atomically', 'Reshaper',
        (Answer(204, _OK_NO_BODY),), errors=(400, 409),
        body=reshaper.POST_SCHEMA),
}
