"""Handlers for /traits, /traits/{name} and a provider's traits (1.6+).

Parse, authorize, call one operation in ``objects.trait``, render. Trait
responses without a body (GET/PUT /traits/{name}) still carry the cache
headers from 1.15, with the trait's created_at.
"""
import jsonschema
import webob.exc

from placement import errors
from placement import exception
from placement import microversion
from placement.objects import trait as trait_obj
from placement.policies import trait as policies
from placement.schemas import trait as schema
from placement import util
from placement import wsgi_wrapper

_BAD_NAME_FILTER = (
    'Badly formatted name parameter. Expected name query string parameter '
    'in form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "%s"')
_BAD_TRAIT = (
    'The trait is invalid. A valid trait must be no longer than 255 '
    'characters, start with the prefix "CUSTOM_" and use following '
    'characters: "A"-"Z", "0"-"9" and "_"')


def _bad_request(detail):
    return util.http_error(webob.exc.HTTPBadRequest, detail)


def _modified(traits):
    return util.newest(trait.updated_at or trait.created_at
                       for trait in traits)


def _render_traits(traits):
    return {'traits': [trait.name for trait in traits]}


def _trait_url(req, name):
    return util.url(req, '/traits/%s' % name)


def parse_name_filter(value):
    """'in:A,B' -> names; 'startswith:P' -> prefix; other ops: no filter."""
    operator, sep, operand = value.partition(':')
    if not sep:
        raise _bad_request(_BAD_NAME_FILTER % value)
    if operator == 'in':
        return {'names': frozenset(operand.split(','))}
    if operator == 'startswith':
        return {'prefix': operand}
    return {}


def parse_associated(value):
    lowered = value.lower()
    if lowered not in ('true', 'false'):
        raise _bad_request(
            'The query parameter "associated" only accepts "true" or '
            '"false"')
    return lowered == 'true'


def _parse_list_filter(params):
    kwargs = {}
    if 'name' in params:
        kwargs.update(parse_name_filter(params['name'][-1]))
    if 'associated' in params:
        kwargs['associated'] = parse_associated(params['associated'][-1])
    return trait_obj.TraitListFilter(**kwargs)


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_traits(req):
    """GET /traits?name=in:|startswith:&associated=true|false."""
    ctx = util.context(req)
    ctx.authorize(policies.TRAITS_LIST)
    mv = util.version(req)
    params = util.validate_query(req, schema.LIST_TRAITS)
    traits = trait_obj.list_traits(ctx, _parse_list_filter(params))
    return util.json_response(req, mv, _render_traits(traits),
                              modified=_modified(traits))


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def get_trait(req):
    """GET /traits/{name}: 204 when it exists."""
    ctx = util.context(req)
    ctx.authorize(policies.TRAITS_SHOW)
    mv = util.version(req)
    # Translated here rather than by dispatch: the reference service's
    # 404 for a trait carries the Vary header (see NO_VARY_KEY).
    try:
        trait = trait_obj.get_trait(ctx, util.wsgi_path_item(req.environ,
                                                             'name'))
    except exception.TraitNotFound as exc:
        raise util.http_error(webob.exc.HTTPNotFound, str(exc))
    return util.empty_response(req, mv, modified=trait.created_at,
                               cache_headers=True)


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def put_trait(req):
    """PUT /traits/{name}: 201 created, 204 already there."""
    ctx = util.context(req)
    ctx.authorize(policies.TRAITS_UPDATE)
    mv = util.version(req)
    name = util.wsgi_path_item(req.environ, 'name')
    try:
        jsonschema.validate(name, schema.CUSTOM_TRAIT)
    except jsonschema.ValidationError:
        raise _bad_request(_BAD_TRAIT)
    trait, created = trait_obj.create_trait(ctx, name)
    return util.empty_response(req, mv, status=201 if created else 204,
                               location=_trait_url(req, name),
                               modified=trait.created_at,
                               cache_headers=True)


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def delete_trait(req):
    """DELETE /traits/{name}: custom traits no provider has."""
    ctx = util.context(req)
    ctx.authorize(policies.TRAITS_DELETE)
    mv = util.version(req)
    try:
        trait_obj.delete_trait(ctx, util.wsgi_path_item(req.environ,
                                                        'name'))
    except exception.TraitCannotDeleteStandard as exc:
        raise _bad_request(str(exc))
    except exception.TraitNotFound as exc:
        raise util.http_error(webob.exc.HTTPNotFound, str(exc))
    except exception.TraitInUse as exc:
        raise util.http_error(webob.exc.HTTPConflict, str(exc))
    return util.empty_response(req, mv)


def _render_provider_traits(result):
    body = _render_traits(result.traits)
    body['resource_provider_generation'] = result.generation
    return body


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_traits_for_resource_provider(req):
    """GET /resource_providers/{uuid}/traits."""
    ctx = util.context(req)
    ctx.authorize(policies.RP_TRAIT_LIST)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    with util.provider_not_found(util.PROVIDER_NOT_FOUND_COLON, uuid):
        result = trait_obj.get_provider_traits(ctx, uuid)
    return util.json_response(req, mv, _render_provider_traits(result),
                              modified=_modified(result.traits))


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def update_traits_for_resource_provider(req):
    """PUT /resource_providers/{uuid}/traits: replace the set."""
    ctx = util.context(req)
    ctx.authorize(policies.RP_TRAIT_UPDATE)
    mv = util.version(req)
    data = util.extract_json(req.body, schema.SET_PROVIDER_TRAITS)
    try:
        result = trait_obj.set_provider_traits(
            ctx, util.wsgi_path_item(req.environ, 'uuid'), data['traits'],
            data['resource_provider_generation'])
    except exception.ConcurrentUpdateDetected:
        raise util.generation_conflict()
    except exception.TraitNotFound as exc:
        raise _bad_request('No such trait %s' % exc.kwargs['names'])
    return util.json_response(req, mv, _render_provider_traits(result),
                              modified=_modified(result.traits))


@microversion.since('1.6')
@wsgi_wrapper.PlacementWsgify
def delete_traits_for_resource_provider(req):
    """DELETE /resource_providers/{uuid}/traits: remove them all."""
    ctx = util.context(req)
    ctx.authorize(policies.RP_TRAIT_DELETE)
    mv = util.version(req)
    try:
        trait_obj.set_provider_traits(
            ctx, util.wsgi_path_item(req.environ, 'uuid'), [], None)
    except exception.ConcurrentUpdateDetected:
        raise util.http_error(
            webob.exc.HTTPConflict,
            exception.ConcurrentUpdateDetected.msg_fmt,
            code=errors.CONCURRENT_UPDATE)
    return util.empty_response(req, mv)
