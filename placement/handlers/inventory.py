"""Handlers for /resource_providers/{uuid}/inventories[/{resource_class}].

Parse, authorize, call one operation of ``objects.inventory``, render.
Generation checks, capacity rules and in-use checks live in the objects
layer; here they become HTTP statuses and codes.
"""
import webob.exc

from placement import errors
from placement import exception
from placement import microversion
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.policies import inventory as policies
from placement.schemas import inventory as schema
from placement import util
from placement import wsgi_wrapper

_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
           'allocation_ratio')


# --- parse and render (pure) -------------------------------------------------

def _parse_inventory(resource_class, data):
    """An Inventory from a validated body dict; absent fields default."""
    # jsonschema's "integer" accepts 8.0: store and echo it as 8.
    values = {field: (float(data[field]) if field == 'allocation_ratio'
                      else int(data[field]))
              for field in _FIELDS if field in data}
    return inv_obj.Inventory(resource_class=resource_class, **values)


def _parse_inventories(data):
    return {name: _parse_inventory(name, body)
            for name, body in data['inventories'].items()}


def _render_inventory(inv, generation=None):
    body = {field: getattr(inv, field) for field in _FIELDS}
    if generation is not None:
        body['resource_provider_generation'] = generation
    return body


def _render_inventories(inventories, generation):
    return {
        'resource_provider_generation': generation,
        'inventories': {name: _render_inventory(inv)
                        for name, inv in inventories.items()},
    }


_DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': schema.MAX_INT,
             'step_size': 1, 'allocation_ratio': 1.0}


def _render_echo(data, generation=None):
    """One written inventory as the client sent it, absent fields at
    their defaults: the reference service answers a write with the
    request's values, so an allocation_ratio sent as 1 reads 1 there
    (and 1.0 in a later GET, from the stored float)."""
    body = {field: data.get(field, _DEFAULTS.get(field))
            for field in _FIELDS}
    if generation is not None:
        body['resource_provider_generation'] = generation
    return body


def _modified(inventories):
    """The newest updated_at/created_at of some inventories; with none,
    no Last-Modified header (as the reference service answers)."""
    inventories = list(inventories)
    if not inventories:
        return util.NOT_MODIFIED
    return util.newest([inv.updated_at or inv.created_at
                        for inv in inventories])


def _inventory_url(req, uuid, resource_class):
    return util.url(
        req, '/resource_providers/%s/inventories/%s' % (uuid, resource_class))


def _allow_reserved_equal_total(mv):
    return mv >= microversion.RESERVED_EQUALS_TOTAL


# --- errors -----------------------------------------------------------------

def _bad_request(detail):
    return util.http_error(webob.exc.HTTPBadRequest, detail)


def _conflict(detail, code=errors.CONCURRENT_UPDATE):
    return util.http_error(webob.exc.HTTPConflict, detail, code=code)


def _write_errors(uuid, verb):
    """Map the domain errors of an inventory write to HTTP errors.

    ``verb`` is 'update' or 'create', as in the reference messages.
    """
    return {
        # Generation mismatches and lost races alike.
        exception.ConcurrentUpdateDetected: util.concurrent_update,
        exception.InvalidInventory: lambda exc: _bad_request(
            'Unable to %s inventory for resource provider %s: %s'
            % (verb, uuid, exc)),
        exception.InventoryInUse: lambda exc: _conflict(
            'update conflict: %s' % exc, code=errors.INVENTORY_INUSE),
        exception.InventoryExists: lambda exc: _conflict(
            'Update conflict: %s' % exc),
    }


def _translate(exc, table):
    for exc_class, make in table.items():
        if isinstance(exc, exc_class):
            return make(exc)
    return None


def _call(operation, table, *args, **kwargs):
    """Run an operation; raise the HTTP error ``table`` maps it to."""
    try:
        return operation(*args, **kwargs)
    except exception.PlacementException as exc:
        http = _translate(exc, table)
        if http is None:
            raise
        raise http


def _extract(req, ctx, uuid, body_schema):
    """The validated body; but 404 first when the provider is missing.

    The reference service looks the provider up before it validates the
    body, so a bad body for a missing provider is a 404, not a 400. The
    lookup runs only for a bad body; a good one goes straight to the
    operation, which finds the provider inside its transaction.
    """
    return util.extract_json_of_found(
        req.body, body_schema, lambda: rp_obj.get_provider(ctx, uuid))


def _check_other_names(ctx, uuid, data):
    """Validate the inventories under names that are no class name
    (schema.PUT_INVENTORIES_OTHER_NAMES) before anything reads them.

    The write would refuse them for their unknown class after its
    generation check; so a bad one is the 404 of a missing provider, or
    the 409 of a stale generation, before the body's 400, as the
    reference service answers where it does not fail (500) on them.
    """
    try:
        util.validate(data, schema.PUT_INVENTORIES_OTHER_NAMES)
    except webob.exc.HTTPBadRequest:
        provider = rp_obj.get_provider(ctx, uuid)
        if provider.generation != data['resource_provider_generation']:
            raise util.concurrent_update(
                exception.ResourceProviderGenerationConflict())
        raise


# --- handlers ---------------------------------------------------------------

@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_inventories(req):
    """GET /resource_providers/{uuid}/inventories."""
    ctx = util.context(req)
    ctx.authorize(policies.LIST)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    with util.provider_not_found(util.PROVIDER_NOT_FOUND_SPACED, uuid):
        provider, inventories = inv_obj.get_inventories(ctx, uuid)
    return util.json_response(
        req, mv, _render_inventories(inventories, provider.generation),
        modified=_modified(inventories.values()))


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_inventory(req):
    """GET /resource_providers/{uuid}/inventories/{resource_class}."""
    ctx = util.context(req)
    ctx.authorize(policies.SHOW)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    name = util.wsgi_path_item(req.environ, 'resource_class')
    with util.provider_not_found(util.PROVIDER_NOT_FOUND_SPACED, uuid):
        try:
            provider, inv = inv_obj.get_inventory(ctx, uuid, name)
        except exception.InventoryNotFound as exc:
            raise util.http_error(webob.exc.HTTPNotFound, str(exc))
    return util.json_response(
        req, mv, _render_inventory(inv, provider.generation),
        modified=_modified([inv]))


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def create_inventory(req):
    """POST /resource_providers/{uuid}/inventories: add one class."""
    ctx = util.context(req)
    ctx.authorize(policies.CREATE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    data = _extract(req, ctx, uuid, schema.POST_INVENTORY)
    inv = _parse_inventory(data['resource_class'], data)
    table = {
        **_write_errors(uuid, 'create'),
        exception.ResourceClassNotFound: lambda exc: _bad_request(
            'Unable to create inventory for resource provider %s: %s'
            % (uuid, exc))}
    generation, stored = _call(inv_obj.add_inventory, table, ctx, uuid, inv,
                               _allow_reserved_equal_total(mv))
    return util.json_response(
        req, mv, _render_echo(data, generation), status=201,
        modified=_modified([stored]),
        location=_inventory_url(req, uuid, inv.resource_class))


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def set_inventories(req):
    """PUT /resource_providers/{uuid}/inventories: replace them all."""
    ctx = util.context(req)
    ctx.authorize(policies.UPDATE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    data = _extract(req, ctx, uuid, schema.PUT_INVENTORIES)
    _check_other_names(ctx, uuid, data)
    table = {
        **_write_errors(uuid, 'update'),
        exception.ResourceClassNotFound: lambda exc: _bad_request(
            'Unknown resource class in inventory for resource provider '
            '%s: %s' % (uuid, exc))}
    generation, stored = _call(
        inv_obj.set_inventories, table, ctx, uuid,
        data['resource_provider_generation'], _parse_inventories(data),
        _allow_reserved_equal_total(mv))
    body = {'resource_provider_generation': generation,
            'inventories': {name: _render_echo(inv)
                            for name, inv in data['inventories'].items()}}
    return util.json_response(req, mv, body,
                              modified=_modified(stored.values()))


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def update_inventory(req):
    """PUT /resource_providers/{uuid}/inventories/{resource_class}."""
    ctx = util.context(req)
    ctx.authorize(policies.UPDATE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    name = util.wsgi_path_item(req.environ, 'resource_class')
    data = _extract(req, ctx, uuid, schema.PUT_INVENTORY)
    table = {
        **_write_errors(uuid, 'update'),
        exception.InventoryNotFound: lambda exc: _bad_request(
            'No inventory record with resource class for resource provider '
            '%s: No inventory of class %s found.' % (uuid, name))}
    generation, stored = _call(
        inv_obj.update_inventory, table, ctx, uuid,
        data['resource_provider_generation'], _parse_inventory(name, data),
        _allow_reserved_equal_total(mv))
    return util.json_response(req, mv, _render_echo(data, generation),
                              modified=_modified([stored]))


@microversion.since('1.5', status=405)
@wsgi_wrapper.PlacementWsgify
def delete_inventories(req):
    """DELETE /resource_providers/{uuid}/inventories (1.5+)."""
    ctx = util.context(req)
    ctx.authorize(policies.DELETE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    table = {
        exception.ConcurrentUpdateDetected: lambda exc: _conflict(
            'Unable to delete inventory for resource provider %s because '
            'the inventory was updated by another process. Please retry '
            'your request.' % uuid),
        exception.InventoryInUse: lambda exc: _conflict(
            str(exc), code=errors.INVENTORY_INUSE),
    }
    _call(inv_obj.delete_inventories, table, ctx, uuid)
    return util.empty_response(req, mv)


@wsgi_wrapper.PlacementWsgify
def delete_inventory(req):
    """DELETE /resource_providers/{uuid}/inventories/{resource_class}.

    In use and lost races are both 409 placement.concurrent_update, as
    the reference service answers (CHECKLIST C9).
    """
    ctx = util.context(req)
    ctx.authorize(policies.DELETE)
    mv = util.version(req)
    uuid = util.wsgi_path_item(req.environ, 'uuid')
    name = util.wsgi_path_item(req.environ, 'resource_class')
    table = {
        exception.ConcurrentUpdateDetected: lambda exc: _conflict(
            'Unable to delete inventory of class %s: %s' % (name, exc)),
        exception.InventoryInUse: lambda exc: _conflict(
            'Unable to delete inventory of class %s: %s' % (name, exc)),
        exception.InventoryNotFound: lambda exc: util.http_error(
            webob.exc.HTTPNotFound,
            'No inventory of class %s found for delete: No inventory of '
            'class %s found for delete' % (name, name)),
        exception.ResourceClassNotFound: lambda exc: util.http_error(
            webob.exc.HTTPNotFound,
            'No inventory of class %s found for delete: %s' % (name, exc)),
    }
    _call(inv_obj.delete_inventory, table, ctx, uuid, name)
    return util.empty_response(req, mv)
