"""Error codes of the JSON error body, and the one formatter of that body.

Each code is a constant used for exactly one meaning. The codes appear in
error bodies from microversion 1.23. Imports only the ``microversion``
leaf.
"""
import webob.exc

from placement import microversion

DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
ILLEGAL_DUPLICATE_QUERYPARAM = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'
# 503: no database node could serve the request within the retry budget.
DATABASE_UNAVAILABLE = 'placement.database.unavailable'
# 413: the request body is longer than [oslo_middleware]
# max_request_body_size.
BODY_TOO_LARGE = 'placement.body.too_large'
# 400: the JSON body nests objects and arrays deeper than any request of
# the API does (util.MAX_JSON_DEPTH).
BODY_TOO_DEEP = 'placement.body.too_deep'

REQUEST_ID_KEY = 'openstack.request_id'


def json_error_formatter(body, status, title, environ, code=None,
                         extra=None):
    """Build ``{"errors": [{status, title, detail, request_id, code}]}``.

    WebOb calls this with the rendered (HTML-ish) body; tags are stripped.
    ``code`` is included from microversion 1.23, defaulting to
    ``placement.undefined_code``.
    """
    body = webob.exc.strip_tags(body)
    status_code = int(status.split(None, 1)[0])
    error = {
        'status': status_code,
        'title': title,
        'detail': body,
    }
    # The reference service's member order: code (from 1.23) before
    # request_id.
    mv = environ.get(microversion.ENVIRON_KEY)
    if mv is not None and mv >= microversion.ERROR_CODES:
        error['code'] = code or DEFAULT
    request_id = environ.get(REQUEST_ID_KEY)
    if request_id:
        error['request_id'] = request_id
    if extra:
        error.update(extra)
    return {'errors': [error]}
