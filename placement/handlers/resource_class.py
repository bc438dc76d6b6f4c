"""Handlers for /resource_classes and /resource_classes/{name} (1.2+).

PUT has two windows: a rename with a body (1.2 - 1.6) and a bodiless
create-or-verify (1.7+).
"""
import webob.exc

from placement import exception
from placement import microversion
from placement.objects import resource_class as rc_obj
from placement.policies import resource_class as policies
from placement.schemas import resource_class as schema
from placement import util
from placement import wsgi_wrapper


def _self_url(req, name):
    return util.url(req, '/resource_classes/%s' % name)


def _render(req, rc):
    return {'name': rc.name,
            'links': [{'rel': 'self', 'href': _self_url(req, rc.name)}]}


def _modified(classes):
    return util.newest([rc.updated_at or rc.created_at for rc in classes])


def _path_name(req):
    return util.wsgi_path_item(req.environ, 'name')


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_resource_classes(req):
    """GET /resource_classes: standard and custom classes."""
    ctx = util.context(req)
    ctx.authorize(policies.LIST)
    mv = util.version(req)
    classes = rc_obj.list_resource_classes(ctx)
    body = {'resource_classes': [_render(req, rc) for rc in classes]}
    return util.json_response(req, mv, body, modified=_modified(classes))


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def create_resource_class(req):
    """POST /resource_classes: 201 + Location, no body."""
    ctx = util.context(req)
    ctx.authorize(policies.CREATE)
    mv = util.version(req)
    data = util.extract_json(req.body, schema.POST_RESOURCE_CLASS)
    try:
        rc_obj.create(ctx, data['name'])
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)
    except exception.ResourceClassExists:
        raise util.http_error(
            webob.exc.HTTPConflict,
            'Conflicting resource class already exists: %s' % data['name'])
    return util.empty_response(req, mv, status=201,
                               location=_self_url(req, data['name']))


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_resource_class(req):
    """GET /resource_classes/{name}."""
    ctx = util.context(req)
    ctx.authorize(policies.SHOW)
    mv = util.version(req)
    rc = rc_obj.get_by_name(ctx, _path_name(req))
    return util.json_response(req, mv, _render(req, rc),
                              modified=_modified([rc]))


@microversion.since('1.2', '1.6')
@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def update_resource_class(req):
    """PUT /resource_classes/{name} (1.2 - 1.6): rename a custom class."""
    ctx = util.context(req)
    ctx.authorize(policies.UPDATE)
    mv = util.version(req)
    name = _path_name(req)
    data = util.extract_json(req.body, schema.PUT_RESOURCE_CLASS_V1_2)
    try:
        rc = rc_obj.rename(ctx, name, data['name'])
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)
    except exception.ResourceClassCannotUpdateStandard as exc:
        raise util.http_error(webob.exc.HTTPBadRequest, str(exc))
    except exception.ResourceClassExists:
        raise util.http_error(
            webob.exc.HTTPConflict,
            'Resource class already exists: %s' % data['name'])
    return util.json_response(req, mv, _render(req, rc),
                              modified=_modified([rc]))


def _check_path_name(name):
    """400 unless ``name`` is a custom class name. The reference service
    judges the name as the JSON text '{"name": "<name>"}', so a control
    character, a quote or a backslash in it is "Malformed JSON" there,
    and so it is here; the name itself must match the schema too (there
    a JSON escape that decodes to a valid name was stored as written)."""
    text = '{"name": "%s"}' % name
    util.extract_json(text.encode('utf-8'), schema.PUT_RESOURCE_CLASS_V1_7)
    util.validate({'name': name}, schema.PUT_RESOURCE_CLASS_V1_7)


@microversion.since('1.7')
@wsgi_wrapper.PlacementWsgify
def create_or_verify_resource_class(req):
    """PUT /resource_classes/{name} (1.7+): 201 created, 204 present."""
    ctx = util.context(req)
    ctx.authorize(policies.UPDATE)
    mv = util.version(req)
    name = _path_name(req)
    _check_path_name(name)
    try:
        created = rc_obj.ensure(ctx, name)
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)
    return util.empty_response(req, mv, status=201 if created else 204,
                               location=_self_url(req, name))


@microversion.since('1.2')
@wsgi_wrapper.PlacementWsgify
def delete_resource_class(req):
    """DELETE /resource_classes/{name}: custom and unused only."""
    ctx = util.context(req)
    ctx.authorize(policies.DELETE)
    mv = util.version(req)
    name = _path_name(req)
    try:
        rc_obj.delete(ctx, name)
    except exception.ResourceClassCannotDeleteStandard as exc:
        raise util.http_error(webob.exc.HTTPBadRequest,
                              'Error in delete resource class: %s' % exc)
    except exception.ResourceClassInUse as exc:
        raise util.http_error(webob.exc.HTTPConflict,
                              'Error in delete resource class: %s' % exc)
    return util.empty_response(req, mv)
