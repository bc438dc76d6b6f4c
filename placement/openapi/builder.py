"""Assemble the OpenAPI 3.1 document from the route table and the tables.

``build()`` returns the document as plain data (the same every call).
Paths and methods come from ``handler.ROUTE_DECLARATIONS``; each
operation's window from its handlers (``microversion.window_of``); its
parameters and request body from the schemas the handlers validate
with (``operations``); its answers from ``operations`` and ``bodies``.
"""
from placement import handler
from placement import microversion
from placement.openapi import bodies
from placement.openapi import operations
from placement.openapi import parameters
from placement.openapi import windows

TITLE = 'OpenStack Placement API'
CACHE_SINCE = microversion.CACHE_HEADERS
_SCHEMA_REF = '#/components/schemas/%s'
_JSON = 'application/json'

ERROR_RESPONSES = {
    400: ('BadRequest', 'Bad request: the body, the query string, a path '
          'value or a header (microversion, content-length) is invalid.'),
    401: ('Unauthorized', 'No (valid) authentication token.'),
    403: ('Forbidden', 'The policy does not allow this request.'),
    404: ('NotFound', 'Not found; or the route does not exist at the '
          'requested microversion.'),
    405: ('MethodNotAllowed', 'The method does not exist at the requested '
          'microversion.'),
    406: ('NotAcceptable', 'The microversion is out of range, or the '
          'Accept header does not allow application/json.'),
    409: ('Conflict', 'A conflict: a generation changed (code '
          'placement.concurrent_update), a name is taken, the resource is '
          'in use, or capacity is exceeded.'),
    413: ('PayloadTooLarge', 'The request body is longer than the limit '
          '([oslo_middleware] max_request_body_size).'),
    415: ('UnsupportedMediaType', 'The body is not application/json.'),
    503: ('ServiceUnavailable', 'No database could serve the request; '
          'retry after Retry-After seconds.'),
}

_HTTP_DATE = (r'^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} '
              r'(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) '
              r'[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$')


def _header(description, schema, required=True):
    return {'description': description, 'required': required,
            'schema': schema}


VERSION_HEADER = _header(
    'The microversion that served the request.',
    {'type': 'string', 'pattern': r'^placement 1\.(0|[1-9][0-9]*)$'})
REQUEST_ID_HEADER = _header(
    'The local request id.',
    {'type': 'string', 'pattern': '^req-[0-9a-f-]{36}$'})
VARY_HEADER = _header(
    'The answer depends on the microversion (and on more, e.g. Origin '
    'with CORS).',
    {'type': 'string',
     'pattern': '(^|,) *openstack-api-version *(,|$)'})
LOCATION_HEADER = _header('The URL of the resource.', {'type': 'string'})
LAST_MODIFIED_HEADER = _header(
    'When the resource last changed (now, for computed answers).',
    {'type': 'string', 'pattern': _HTTP_DATE})
CACHE_CONTROL_HEADER = _header('Do not cache.', {'const': 'no-cache'})


def build():
    """The document, microversions MIN_VERSION to MAX_VERSION."""
    return {
        'openapi': '3.1.0',
        'info': _info(),
        windows.KEY: windows.span(*windows.FULL),
        'tags': [{'name': tag} for tag in operations.TAGS],
        'security': [{'keystone': []}],
        'paths': {template: _path_item(template, methods)
                  for template, methods
                  in handler.ROUTE_DECLARATIONS.items()},
        'components': _components(),
    }


def _info():
    return {
        'title': TITLE,
        'version': str(microversion.MAX_VERSION),
        'summary': 'Resource providers, inventories, allocations and '
                   'allocation candidates; microversions %s to %s.'
                   % windows.FULL,
        'description': (
            'Send `OpenStack-API-Version: placement 1.N` to choose the '
            'microversion (1.0 when absent). A part of this document '
            'that exists only at some microversions carries '
            '`x-placement-microversions` (min and max, both included); '
            'a schema that changes shape is an `anyOf` of such tagged '
            'branches. `placement.openapi.windows.at_version` projects '
            'it onto one microversion.'),
        'license': {'name': 'Apache-2.0', 'identifier': 'Apache-2.0'},
    }


def _path_item(template, methods):
    return {method.lower(): _operation(template, method, handlers)
            for method, handlers in methods.items()}


def handler_windows(handlers):
    """[(low, high, handler)] of one method's handler(s)."""
    if not isinstance(handlers, tuple):
        handlers = (handlers,)
    return [microversion.window_of(h) + (h,) for h in handlers]


def _operation(template, method, handlers):
    declared = handler_windows(handlers)
    low, high = declared[0][0], declared[-1][1]
    op = operations.OPERATIONS[(template, method)]
    result = {
        windows.KEY: windows.span(low, high),
        'operationId': op.operation_id or declared[0][2].func.__name__,
        'summary': op.summary,
        'tags': [op.tag],
        'parameters': (
            [{'$ref': '#/components/parameters/OpenStackAPIVersion'}]
            + parameters.path_parameters(template, op, low, high)
            + parameters.query_parameters(op, low, high)),
    }
    body = parameters.request_body(op, low, high)
    if body is not None:
        result['requestBody'] = body
    if template == '/':
        result['security'] = []
    below = getattr(declared[0][2], 'below_status', None)
    result['responses'] = _responses(
        op, low, high, _error_statuses(template, op, body, below))
    return result


def _error_statuses(template, op, body, below_status):
    # Any request: a bad version header or Content-Length (400), a
    # version out of range (406), a body over the size limit (413, even
    # where no body is read).
    statuses = {400, 406, 413} | set(op.errors)
    if template != '/':
        statuses |= {401, 403, 503}
    if body is not None:
        statuses.add(415)
    if below_status is not None:
        statuses.add(below_status)
    return sorted(statuses)


def _responses(op, low, high, error_statuses):
    responses = {}
    for answer in op.answers:
        since = (microversion.parse_version(answer.since) if answer.since
                 else low)
        until = (microversion.parse_version(answer.until) if answer.until
                 else high)
        response = {'description': answer.description,
                    'headers': _answer_headers(answer, since, until)}
        if (since, until) != (low, high):
            response = windows.tagged(response, since, until)
        if answer.body is not None:
            response['content'] = {_JSON: {'schema': {
                '$ref': _SCHEMA_REF % _schema_name(answer.body)}}}
        assert str(answer.status) not in responses, answer
        responses[str(answer.status)] = response
    for status in error_statuses:
        responses[str(status)] = {
            '$ref': '#/components/responses/%s' % ERROR_RESPONSES[status][0]}
    return responses


def _schema_name(body):
    for name, value in bodies.NAMED:
        if value is body:
            return name
    raise LookupError('a response body without a name in bodies.NAMED')


_HEADER_REF = '#/components/headers/%s'
# Headers every success answer carries, by name in components/headers.
COMMON_HEADERS = {
    'OpenStack-API-Version': VERSION_HEADER,
    'Vary': VARY_HEADER,
    'X-OpenStack-Request-Id': REQUEST_ID_HEADER,
    'Location': LOCATION_HEADER,
}


def _answer_headers(answer, low, high):
    names = ['OpenStack-API-Version', 'Vary', 'X-OpenStack-Request-Id']
    if operations.LOCATION in answer.headers:
        names.append('Location')
    headers = {name: {'$ref': _HEADER_REF % name} for name in names}
    cache = {operations.CACHE, operations.CACHE_MAYBE_UNDATED}
    if cache & set(answer.headers) and high >= CACHE_SINCE:
        dated = operations.CACHE in answer.headers
        last_modified = dict(LAST_MODIFIED_HEADER, required=dated)
        since = max(low, CACHE_SINCE)
        for name, header in (('Last-Modified', last_modified),
                             ('Cache-Control', CACHE_CONTROL_HEADER)):
            if since > low:
                header = windows.tagged(header, since, high)
            headers[name] = header
    return headers


# --- components -------------------------------------------------------------

def _components():
    return {
        'schemas': {name: _named_schema(value)
                    for name, value in bodies.NAMED},
        'parameters': {'OpenStackAPIVersion': {
            'name': 'OpenStack-API-Version', 'in': 'header',
            'required': False,
            'description': 'The microversion, e.g. `placement 1.39`, or '
                           '`placement latest`; 1.0 when absent.',
            'schema': {'type': 'string',
                       'pattern': r'^placement (latest|1\.[0-9]+)$'}}},
        'headers': COMMON_HEADERS,
        'responses': {name: _error_response(status, description)
                      for status, (name, description)
                      in ERROR_RESPONSES.items()},
        'securitySchemes': {'keystone': {
            'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token',
            'description': 'A Keystone token (with auth_strategy = '
                           'noauth2: "user[:project]").'}},
    }


def _named_schema(value):
    if isinstance(value, list):
        return windows.alternatives(windows.split(value, *windows.FULL))
    return value


def _error_response(status, description):
    headers = {'OpenStack-API-Version': dict(VERSION_HEADER, required=False),
               # Without openstack-api-version on an answer made before
               # a version was chosen (a 401: "Vary: Origin" with CORS).
               'Vary': _header('What the answer depends on.',
                               {'type': 'string'}, required=False),
               'X-OpenStack-Request-Id': REQUEST_ID_HEADER}
    if status == 405:
        headers['Allow'] = _header('The methods the URL has.',
                                   {'type': 'string'}, required=False)
    if status == 503:
        headers['Retry-After'] = _header('Seconds to wait.',
                                         {'type': 'string',
                                          'pattern': '^[0-9]+$'})
    schema = 'Unauthorized' if status == 401 else 'Error'
    # JSON unless the Accept header asks for HTML or plain text only.
    return {'description': description, 'headers': headers,
            'content': {_JSON: {'schema': {'$ref': _SCHEMA_REF % schema}},
                        'text/html': {'schema': {'type': 'string'}},
                        'text/plain': {'schema': {'type': 'string'}}}}
