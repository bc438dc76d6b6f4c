"""Handlers for /resource_providers and /resource_providers/{uuid}.

Parse and validate for the version, authorize, call one operation in
``objects.resource_provider``, render. No SQL here.
"""

import webob.exc
from oslo_utils import uuidutils

from placement import errors
from placement import exception
from placement.handlers import json_text
from placement.handlers import querystring
from placement import microversion
from placement.objects import provider_list
from placement.objects import resource_provider as rp_obj
from placement.policies import resource_provider as policies
from placement.schemas import resource_provider as schema
from placement import util
from placement import wsgi_wrapper

POST_SCHEMA = microversion.Windows(
    ('1.0', schema.POST_PROVIDER_V1_0),
    ('1.14', schema.POST_PROVIDER_V1_14),
)
PUT_SCHEMA = microversion.Windows(
    ('1.0', schema.PUT_PROVIDER_V1_0),
    ('1.14', schema.PUT_PROVIDER_V1_14),
)
LIST_SCHEMA = microversion.Windows(
    ('1.0', schema.LIST_PROVIDERS_V1_0),
    ('1.3', schema.LIST_PROVIDERS_V1_3),
    ('1.4', schema.LIST_PROVIDERS_V1_4),
    ('1.14', schema.LIST_PROVIDERS_V1_14),
    ('1.18', schema.LIST_PROVIDERS_V1_18),
)

# Link relations after 'self', with the version that added each.
_LINK_RELS = (
    ('inventories', microversion.MIN_VERSION),
    ('usages', microversion.MIN_VERSION),
    ('aggregates', microversion.AGGREGATES),
    ('traits', microversion.TRAITS),
    ('allocations', microversion.ALLOCATIONS_LINK),
)


def provider_url(req, provider_uuid):
    return util.url(req, '/resource_providers/%s' % provider_uuid)


def _provider_form(req, mv):
    """(URL prefix, [(rel, suffix)] of the links, whether nested fields
    show) of a provider rendered for ``req`` at ``mv``."""
    links = [('self', '')] + [(rel, '/' + rel) for rel, since in _LINK_RELS
                              if mv >= since]
    return (provider_url(req, ''), links,
            mv >= microversion.NESTED_PROVIDERS)


def _provider_renderer(req, mv):
    """A function rendering one provider (uuid, name, generation, parent
    uuid, root uuid) for ``req`` at ``mv``.

    The links shown at ``mv``, the URL prefix and the nested fields are
    worked out once per request, not once per provider (a list of 1,000
    providers made 6,000 version comparisons).
    """
    prefix, links, is_nested = _provider_form(req, mv)

    def render(uuid, name, generation, parent_uuid, root_uuid):
        url = prefix + uuid
        body = {'uuid': uuid, 'name': name, 'generation': generation,
                'links': [{'rel': rel, 'href': url + suffix}
                          for rel, suffix in links]}
        if is_nested:
            body['parent_provider_uuid'] = parent_uuid
            body['root_provider_uuid'] = root_uuid
        return body
    return render


def _render_provider(req, mv, provider):
    return _provider_renderer(req, mv)(
        provider.uuid, provider.name, provider.generation,
        provider.parent_provider_uuid, provider.root_provider_uuid)


def _listed_texts(req, mv):
    """json_text.Texts of a listed provider (what _provider_renderer
    gives): (a root's, a child's), None if the URL prefix cannot be a
    constant of one. Slots: 0 the uuid, 1 the name, 3 the parent's
    uuid (a child's only), 4 the root's; int slot 2 the generation."""
    prefix, links, is_nested = _provider_form(req, mv)
    if json_text.has_markers(prefix):
        return None
    uuid = json_text.slot(0)
    body = {'uuid': uuid, 'name': json_text.slot(1),
            'generation': json_text.int_slot(2),
            'links': [{'rel': rel, 'href': prefix + uuid + suffix}
                      for rel, suffix in links]}
    if not is_nested:
        text = json_text.Text(body)
        return text, text
    body['parent_provider_uuid'] = None
    body['root_provider_uuid'] = json_text.slot(4)
    root = json_text.Text(body)
    body['parent_provider_uuid'] = json_text.slot(3)
    return root, json_text.Text(body)


def _render_provider_list(req, mv, rows):
    """The list's body: each provider (a row of provider_list) fills the
    text of a listed provider, encoded once (json_text: each value
    checked, or escaped, as it goes in). In a large list, as the encoder
    reaches it (util.deferred). GET /resource_providers of 1,000
    providers as dicts held 7,000 of them, built, encoded and freed:
    about half its CPU."""
    texts = _listed_texts(req, mv) if rows else None
    if texts is None:
        render = _provider_renderer(req, mv)
        return {'resource_providers': util.deferred(
            lambda row: render(row[0], row[1], row[2] or 0, row[3],
                               row[4]), rows)}
    root_fill, child_fill = texts[0].fill, texts[1].fill
    render = _provider_renderer(req, mv)

    def fill(row):
        if row[2] is None or row[4] is None:  # written by other means
            return render(row[0], row[1], row[2] or 0, row[3], row[4])
        return (root_fill if row[3] is None else child_fill)(row)
    return {'resource_providers': util.deferred(fill, rows)}


def _modified(provider):
    return provider.updated_at or provider.created_at


def _duplicate(exc):
    return util.http_error(webob.exc.HTTPConflict, str(exc),
                           code=errors.DUPLICATE_NAME)


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def create_resource_provider(req):
    """POST /resource_providers: 201 + Location, from 1.20 200 + body."""
    ctx = util.context(req)
    ctx.authorize(policies.CREATE)
    mv = util.version(req)
    data = util.extract_json(req.body, POST_SCHEMA.at(mv))
    uuid = (util.normalize_uuid(data['uuid']) if data.get('uuid')
            else uuidutils.generate_uuid())
    # The parent as given: the lookup decides whether 'ABC...' names
    # 'abc...' (the collation does, as for the reference service).
    parent_uuid = data.get('parent_provider_uuid')
    try:
        provider = rp_obj.create_provider(
            ctx, uuid, data['name'], parent_uuid or None)
    except exception.DuplicateName as exc:
        raise _duplicate(exc)
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)
    except exception.ObjectActionError as exc:
        raise util.http_error(
            webob.exc.HTTPBadRequest,
            'Unable to create resource provider "%s", %s: %s'
            % (data['name'], uuid, exc))
    location = provider_url(req, provider.uuid)
    if mv < microversion.RP_POST_RETURNS_BODY:
        return util.empty_response(req, mv, status=201, location=location)
    return util.json_response(req, mv, _render_provider(req, mv, provider),
                              modified=_modified(provider),
                              location=location)


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_resource_provider(req):
    """GET /resource_providers/{uuid}."""
    ctx = util.context(req)
    ctx.authorize(policies.SHOW)
    mv = util.version(req)
    provider = rp_obj.get_provider(ctx, util.wsgi_path_item(req.environ,
                                                            'uuid'))
    return util.json_response(req, mv, _render_provider(req, mv, provider),
                              modified=_modified(provider))


def _one(params, key):
    values = params.get(key)
    return values[-1] if values else None


def _parse_list_filter(params, mv):
    """The validated query string as a provider_list.ProviderFilter."""
    member_of = required = None
    if 'member_of' in params:
        member_of = querystring.parse_member_of(params['member_of'], mv)
    if 'required' in params:
        required = querystring.parse_required(params['required'], mv)
    resources = {}
    if 'resources' in params:
        resources = querystring.parse_resources(_one(params, 'resources'))
    in_tree = _one(params, 'in_tree')
    uuid = _one(params, 'uuid')
    return provider_list.ProviderFilter(
        # An empty name filters nothing, as upstream.
        name=_one(params, 'name') or None,
        uuid=uuid,
        in_tree=querystring.parse_in_tree(in_tree) if in_tree else None,
        resources=resources, member_of=member_of, required=required)


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_resource_providers(req):
    """GET /resource_providers with its filters (all ANDed)."""
    ctx = util.context(req)
    ctx.authorize(policies.LIST)
    mv = util.version(req)
    params = util.validate_query(req, LIST_SCHEMA.at(mv))
    pfilter = _parse_list_filter(params, mv)
    try:
        providers = provider_list.list_providers(ctx, pfilter)
    except exception.ResourceClassNotFound as exc:
        raise querystring.bad_request(
            'Invalid resource class in resources parameter: %s' % exc)
    except exception.TraitNotFound as exc:
        raise querystring.bad_request(
            'Invalid trait(s) in "required" parameter: %s' % exc)
    return util.json_response(
        req, mv, _render_provider_list(req, mv, providers),
        modified=util.newest([provider_list.newest_of(providers)]))


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def update_resource_provider(req):
    """PUT /resource_providers/{uuid}: name, and the parent from 1.14."""
    ctx = util.context(req)
    ctx.authorize(policies.UPDATE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    data = util.extract_json_of_found(
        req.body, PUT_SCHEMA.at(mv), lambda: rp_obj.get_provider(ctx, uuid))
    parent_uuid = data.get('parent_provider_uuid', rp_obj.UNSET)
    try:
        provider = rp_obj.update_provider(
            ctx, uuid, data['name'], parent_uuid,
            allow_reparenting=mv >= microversion.REPARENT)
    except exception.DuplicateName:
        raise util.http_error(
            webob.exc.HTTPConflict,
            'Conflicting resource provider %s already exists.'
            % data['name'], code=errors.DUPLICATE_NAME)
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)
    except exception.ObjectActionError as exc:
        raise util.http_error(
            webob.exc.HTTPBadRequest,
            'Unable to save resource provider %s: %s' % (uuid, exc))
    return util.json_response(req, mv, _render_provider(req, mv, provider),
                              modified=_modified(provider))


# Why a delete is refused, and the error code each reason carries.
_DELETE_CONFLICT_CODES = (
    (exception.CannotDeleteParentResourceProvider,
     errors.PROVIDER_CANNOT_DELETE_PARENT),
    (exception.ResourceProviderInUse, errors.PROVIDER_IN_USE),
    (exception.ConcurrentUpdateDetected, errors.CONCURRENT_UPDATE),
)


def _delete_conflict(exc):
    code = next(code for kind, code in _DELETE_CONFLICT_CODES
                if isinstance(exc, kind))
    return util.http_error(webob.exc.HTTPConflict, str(exc), code=code)


@wsgi_wrapper.PlacementWsgify
def delete_resource_provider(req):
    """DELETE /resource_providers/{uuid}: leaves without allocations."""
    ctx = util.context(req)
    ctx.authorize(policies.DELETE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    try:
        rp_obj.delete_provider(ctx, uuid)
    except exception.ResourceProviderNotFound:
        raise webob.exc.HTTPNotFound(
            'No resource provider with uuid %s found for delete' % uuid)
    except tuple(kind for kind, _ in _DELETE_CONFLICT_CODES) as exc:
        raise _delete_conflict(exc)
    return util.empty_response(req, mv)
