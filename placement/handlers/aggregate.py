"""Handlers for /resource_providers/{uuid}/aggregates (1.1+).

The body is a bare list before 1.19 and carries the provider generation
from 1.19 (checked and bumped on PUT). Last-Modified is always now: the
association time is not recorded.
"""

from placement import exception
from placement import microversion
from placement.objects import aggregate as aggregate_obj
from placement.policies import aggregate as policies
from placement.schemas import aggregate as schema
from placement import util
from placement import wsgi_wrapper

PUT_SCHEMA = microversion.Windows(
    ('1.1', schema.PUT_AGGREGATES_V1_1),
    ('1.19', schema.PUT_AGGREGATES_V1_19),
)


def _render_aggregates(mv, result):
    body = {'aggregates': list(result.aggregates)}
    if mv >= microversion.AGGREGATES_GENERATION:
        body['resource_provider_generation'] = result.generation
    return body


@microversion.since('1.1')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_aggregates(req):
    """GET /resource_providers/{uuid}/aggregates."""
    ctx = util.context(req)
    ctx.authorize(policies.LIST)
    mv = util.version(req)
    result = aggregate_obj.get_aggregates(
        ctx, util.wsgi_path_item(req.environ, 'uuid'))
    return util.json_response(req, mv, _render_aggregates(mv, result))


@microversion.since('1.1')
@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def set_aggregates(req):
    """PUT /resource_providers/{uuid}/aggregates: replace the set."""
    ctx = util.context(req)
    ctx.authorize(policies.UPDATE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    data = util.extract_json_of_found(
        req.body, PUT_SCHEMA.at(mv),
        lambda: aggregate_obj.get_aggregates(ctx, uuid))
    seen_generation = None
    uuids = data
    if mv >= microversion.AGGREGATES_GENERATION:
        seen_generation = data['resource_provider_generation']
        uuids = data['aggregates']
    try:
        result = aggregate_obj.set_aggregates(ctx, uuid, uuids,
                                              seen_generation)
    except exception.ConcurrentUpdateDetected:
        raise util.generation_conflict()
    return util.json_response(req, mv, _render_aggregates(mv, result))
