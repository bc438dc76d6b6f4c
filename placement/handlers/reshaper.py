"""Handler for POST /reshaper (1.30+)."""
import contextlib

import webob.exc

from placement import errors
from placement import exception
from placement import microversion
from placement.objects import allocation as allocation_obj
from placement.objects import inventory as inv_obj
from placement.objects import reshaper as reshaper_obj
from placement.policies import reshaper as policies
from placement.schemas import reshaper as schema
from placement import util
from placement import wsgi_wrapper

POST_SCHEMA = microversion.Windows(
    ('1.30', schema.POST_RESHAPER_V1_30),
    ('1.34', schema.POST_RESHAPER_V1_34),
    ('1.38', schema.POST_RESHAPER_V1_38),
)

_INVENTORY_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit',
                     'step_size', 'allocation_ratio')


def _parse_change(provider_uuid, body):
    """One provider's entry of ``inventories`` as an InventoryChange."""
    inventories = {
        rc_name: inv_obj.Inventory(
            resource_class=rc_name,
            **{field: value for field, value in fields.items()
               if field in _INVENTORY_FIELDS})
        for rc_name, fields in body['inventories'].items()}
    return reshaper_obj.InventoryChange(
        provider_uuid=provider_uuid,
        generation=body['resource_provider_generation'],
        inventories=inventories)


def _parse_requests(data):
    """The consumers' bodies (project and user are required from 1.30)."""
    return [allocation_obj.AllocationRequest.from_body(
                consumer_uuid, body, check_generation=True,
                default_project_id=None, default_user_id=None)
            for consumer_uuid, body in data['allocations'].items()]


def _http(exc_class, exc, code=None):
    return util.http_error(exc_class, str(exc), code=code)


@contextlib.contextmanager
def _reshape_errors():
    """Translate the failures of a reshape into HTTP errors."""
    try:
        yield
    except exception.ResourceProviderNotFound as exc:
        raise util.http_error(
            webob.exc.HTTPBadRequest,
            'Resource provider %s in inventories not found: %s' % (
                exc.kwargs.get('uuid'), exc),
            code=errors.RESOURCE_PROVIDER_NOT_FOUND)
    except exception.ResourceClassNotFound as exc:
        # In an inventory or an allocation alike, as upstream says it.
        raise util.http_error(webob.exc.HTTPBadRequest,
                              'malformed reshaper data: %s' % exc)
    except (exception.NotFound, exception.InvalidInput) as exc:
        raise _http(webob.exc.HTTPBadRequest, exc)
    except exception.InventoryInUse as exc:
        raise util.http_error(webob.exc.HTTPConflict,
                              'update conflict: %s' % exc,
                              code=errors.INVENTORY_INUSE)
    except exception.InsufficientCapacity as exc:
        raise _http(webob.exc.HTTPConflict, exc)
    except exception.ConcurrentUpdateDetected as exc:
        raise util.concurrent_update(exc)


@microversion.since('1.30')
@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def reshape(req):
    """POST /reshaper: move inventories and allocations atomically."""
    ctx = util.context(req)
    ctx.authorize(policies.RESHAPE)
    mv = util.version(req)
    data = util.extract_json(req.body, POST_SCHEMA.at(mv))
    # Inventories under names that are no class name: checked before
    # anything reads them (the schema of the version leaves them alone).
    util.validate(data, schema.POST_RESHAPER_OTHER_NAMES)
    changes = [_parse_change(provider_uuid, body)
               for provider_uuid, body in data['inventories'].items()]
    requests = _parse_requests(data)
    with _reshape_errors():
        reshaper_obj.reshape(ctx, changes, requests)
    return util.empty_response(req, mv)
