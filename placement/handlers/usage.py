"""Handlers for usages: of one provider, and of a project (1.9+).

Both report "now" as Last-Modified: a usage is a sum, not an entity.
"""
from placement import microversion
from placement.objects import usage as usage_obj
from placement.policies import usage as policies
from placement.schemas import usage as schema
from placement import util
from placement import wsgi_wrapper

QUERY_SCHEMA = microversion.Windows(
    ('1.9', schema.GET_USAGES_V1_9),
    ('1.38', schema.GET_USAGES_V1_38),
)


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_usages(req):
    """GET /resource_providers/{uuid}/usages: every inventoried class."""
    ctx = util.context(req)
    ctx.authorize(policies.PROVIDER_USAGES)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    with util.provider_not_found(util.PROVIDER_NOT_FOUND_COLON, uuid):
        provider, usages = usage_obj.get_provider_usages(ctx, uuid)
    body = {'resource_provider_generation': provider.generation,
            'usages': usages}
    return util.json_response(req, mv, body)


def _last(params, name):
    values = params.get(name)
    return values[-1] if values else None


@microversion.since('1.9')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_total_usages(req):
    """GET /usages?project_id=&user_id=[&consumer_type=] (1.9+).

    Policy first, on the asked-for project, then the query string.
    """
    ctx = util.context(req)
    ctx.authorize(policies.TOTAL_USAGES,
                  target={'project_id': _last(util.query_lists(req),
                                              'project_id')})
    mv = util.version(req)
    params = util.validate_query(req, QUERY_SCHEMA.at(mv))
    group_by_type = mv >= microversion.CONSUMER_TYPES
    usages = usage_obj.get_project_usages(
        ctx, _last(params, 'project_id'), user_id=_last(params, 'user_id'),
        consumer_type=_last(params, 'consumer_type'),
        group_by_type=group_by_type)
    return util.json_response(req, mv, {'usages': usages})
