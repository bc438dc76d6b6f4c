"""Handlers for allocations: per consumer, per provider, and POST many."""
import contextlib

import webob.exc

from placement import exception
from placement import microversion
from placement.objects import allocation as allocation_obj
from placement.objects import allocation_reads
from placement.policies import allocation as policies
from placement.schemas import allocation as schema
from placement import util
from placement import wsgi_wrapper

PUT_SCHEMA = microversion.Windows(
    ('1.0', schema.PUT_ALLOCATIONS_V1_0),
    ('1.8', schema.PUT_ALLOCATIONS_V1_8),
    ('1.12', schema.PUT_ALLOCATIONS_V1_12),
    ('1.28', schema.PUT_ALLOCATIONS_V1_28),
    ('1.34', schema.PUT_ALLOCATIONS_V1_34),
    ('1.38', schema.PUT_ALLOCATIONS_V1_38),
)

POST_SCHEMA = microversion.Windows(
    ('1.13', schema.POST_ALLOCATIONS_V1_13),
    ('1.28', schema.POST_ALLOCATIONS_V1_28),
    ('1.34', schema.POST_ALLOCATIONS_V1_34),
    ('1.38', schema.POST_ALLOCATIONS_V1_38),
)


# --- parsing --------------------------------------------------------------

def _parse_consumer(consumer_uuid, data, mv, conf):
    """One consumer's body (PUT, or a value of POST) as a request."""
    return allocation_obj.AllocationRequest.from_body(
        consumer_uuid, data,
        check_generation=mv >= microversion.CONSUMER_GENERATION,
        default_project_id=conf.placement.incomplete_consumer_project_id,
        default_user_id=conf.placement.incomplete_consumer_user_id)


def _parse_consumer_uuid(req):
    value = util.wsgi_path_item(req.environ, 'consumer_uuid')
    if not util.is_uuid_like(value):
        raise util.http_error(webob.exc.HTTPBadRequest,
                              'Malformed consumer_uuid: %s' % value)
    return util.normalize_uuid(value)


@contextlib.contextmanager
def _write_errors(consumer_uuid=None):
    """Translate the failures of an allocation write into HTTP errors."""
    try:
        yield
    except exception.ResourceClassNotFound as exc:
        prefix = 'Unable to allocate inventory'
        if consumer_uuid:
            prefix += ' for consumer %s' % consumer_uuid
        raise util.http_error(webob.exc.HTTPBadRequest,
                              '%s: %s' % (prefix, exc))
    except exception.InvalidInput as exc:
        raise util.http_error(webob.exc.HTTPBadRequest, str(exc))
    except exception.InsufficientCapacity as exc:
        raise util.http_error(webob.exc.HTTPConflict, str(exc))
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)


# --- rendering ------------------------------------------------------------

def _render_consumer(result, mv):
    """The GET /allocations/{consumer_uuid} body for ``mv``."""
    providers = {}
    for alloc in result.allocations:
        entry = providers.setdefault(alloc.resource_provider_uuid, {
            'resources': {},
            'generation': alloc.resource_provider_generation})
        entry['resources'][alloc.resource_class] = alloc.used
    body = {'allocations': providers}
    consumer = result.consumer
    if not providers or consumer is None:
        return body
    if mv >= microversion.ALLOCATIONS_DICT:
        body['project_id'] = consumer.project_id
        body['user_id'] = consumer.user_id
    if mv >= microversion.CONSUMER_GENERATION:
        body['consumer_generation'] = consumer.generation
    if mv >= microversion.CONSUMER_TYPES:
        body['consumer_type'] = consumer.type_name
    return body


def _render_provider(generation, held, mv):
    """The GET /resource_providers/{uuid}/allocations body for ``mv``:
    ``held`` are allocation_reads.Held rows in the order written."""
    consumers = {}
    with_generation = mv >= microversion.CONSUMER_GENERATION
    for alloc in held:
        entry = consumers.get(alloc.consumer_uuid)
        if entry is None:
            entry = consumers[alloc.consumer_uuid] = {'resources': {}}
            if with_generation:
                entry['consumer_generation'] = alloc.consumer_generation
        entry['resources'][alloc.resource_class] = alloc.used
    return {'allocations': consumers,
            'resource_provider_generation': generation}


# --- handlers -------------------------------------------------------------

@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_for_resource_provider(req):
    """GET /resource_providers/{uuid}/allocations."""
    ctx = util.context(req)
    ctx.authorize(policies.RP_ALLOC_LIST)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    with util.provider_not_found(util.PROVIDER_NOT_FOUND_QUOTED, uuid):
        provider, held = allocation_reads.get_provider_allocations(
            ctx, uuid)
    return util.json_response(
        req, mv, _render_provider(provider.generation, held, mv),
        modified=util.newest(a.created_at for a in held))


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_for_consumer(req):
    """GET /allocations/{consumer_uuid}: never 404."""
    ctx = util.context(req)
    ctx.authorize(policies.ALLOC_LIST)
    mv = util.version(req)
    result = allocation_obj.get_for_consumer(
        ctx, util.wsgi_path_item(req.environ, 'consumer_uuid'))
    return util.json_response(
        req, mv, _render_consumer(result, mv),
        modified=util.newest(a.created_at for a in result.allocations))


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def set_allocations_for_consumer(req):
    """PUT /allocations/{consumer_uuid}: replace one consumer's."""
    ctx = util.context(req)
    ctx.authorize(policies.ALLOC_UPDATE)
    mv = util.version(req)
    consumer_uuid = _parse_consumer_uuid(req)
    data = util.extract_json(req.body, PUT_SCHEMA.at(mv))
    request = _parse_consumer(consumer_uuid, data, mv, ctx.config)
    with _write_errors(consumer_uuid):
        allocation_obj.replace_allocations(
            ctx, [request],
            ctx.config.placement.allocation_conflict_retry_count)
    return util.empty_response(req, mv)


@microversion.since('1.13')
@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def set_allocations(req):
    """POST /allocations: replace several consumers', all or nothing."""
    ctx = util.context(req)
    ctx.authorize(policies.ALLOC_MANAGE)
    mv = util.version(req)
    data = util.extract_json(req.body, POST_SCHEMA.at(mv))
    requests = [_parse_consumer(consumer_uuid, body, mv, ctx.config)
                for consumer_uuid, body in data.items()]
    with _write_errors():
        allocation_obj.replace_allocations(
            ctx, requests,
            ctx.config.placement.allocation_conflict_retry_count)
    return util.empty_response(req, mv)


@wsgi_wrapper.PlacementWsgify
def delete_allocations(req):
    """DELETE /allocations/{consumer_uuid}: 404 when it has none."""
    ctx = util.context(req)
    ctx.authorize(policies.ALLOC_DELETE)
    mv = util.version(req)
    consumer_uuid = util.wsgi_path_item(req.environ, 'consumer_uuid')
    try:
        allocation_obj.delete_for_consumer(ctx, consumer_uuid)
    except exception.ConsumerNotFound:
        raise util.http_error(
            webob.exc.HTTPNotFound,
            "No allocations for consumer '%s'" % consumer_uuid)
    return util.empty_response(req, mv)
