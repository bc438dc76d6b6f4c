"""HTTP helpers shared by dispatch and every handler.

Parsing and validating bodies and query strings, the one way to raise an
HTTP error with a code, and the one way to build a JSON response (where the
version-dependent headers are decided). No SQL here.
"""
import contextlib
import datetime
import functools
import json
import string
import uuid

import jsonschema
import orjson
from oslo_log import log as logging
from oslo_utils import uuidutils
import webob
import webob.datetime_utils
import webob.exc

from placement import errors
from placement import exception
from placement import microversion

LOG = logging.getLogger(__name__)

CONTEXT_KEY = 'placement.context'
# Bodies: a 'uuid' is anything oslo calls uuid-like (dashless too). Query
# strings: jsonschema's own 'uuid' format (dashes required). The
# reference service checks each with these two rules.
_FORMAT_CHECKER = jsonschema.FormatChecker()
_QUERY_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks('uuid')
def _is_uuid_like(value):
    return uuidutils.is_uuid_like(value)


def http_error(exc_class, detail, code=None, **kwargs):
    """Return a webob HTTP error carrying the placement error ``code``."""
    exc = exc_class(detail, **kwargs)
    exc.placement_code = code
    return exc


def normalize_uuid(value):
    """Canonical lower-case dashed form of a uuid-like string."""
    return str(uuid.UUID(value))


def is_uuid_like(value):
    return isinstance(value, str) and uuidutils.is_uuid_like(value)


def wsgi_path_item(environ, name):
    """The value of one named path segment, or None."""
    args = environ.get('wsgiorg.routing_args', ((), {}))[1]
    return args.get(name)


def url(req, path):
    """A link to ``path`` under the application's SCRIPT_NAME."""
    return req.environ.get('SCRIPT_NAME', '') + path


# --- request bodies -------------------------------------------------------

def _check_storable(data):
    """Refuse what passed the schema but no database can store: NaN and
    infinities, and strings with lone surrogates."""
    try:
        json.dumps(data, ensure_ascii=False, allow_nan=False).encode('utf-8')
    except UnicodeEncodeError:
        if _values_encodable(data):
            # Only in map keys: the handler finds no class or provider of
            # that name and says so, as upstream does.
            return
        raise http_error(
            webob.exc.HTTPBadRequest,
            'Malformed JSON: the body contains characters that are not '
            'valid Unicode (lone surrogates).')
    except ValueError:
        raise http_error(
            webob.exc.HTTPBadRequest,
            'Malformed JSON: NaN, Infinity and numbers out of the range of '
            'a double are not JSON numbers.')


def _values_encodable(data):
    """Whether every string of ``data`` but its map keys is UTF-8."""
    if isinstance(data, str):
        try:
            data.encode('utf-8')
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(data, dict):
        return all(map(_values_encodable, data.values()))
    if isinstance(data, list):
        return all(map(_values_encodable, data))
    return True


def _schema_entry(schema, format_checker=_FORMAT_CHECKER):
    """(schema, its jsonschema validator, the query strings that passed
    it), built once per schema object.

    Schemas are module-level constants (one per microversion window), so
    the cache holds a few dozen entries. It keeps the schema too, so that
    its id cannot be reused by another dict while cached.
    """
    key = (id(schema), id(format_checker))
    entry = _VALIDATORS.get(key)
    if entry is None or entry[0] is not schema:
        if len(_VALIDATORS) >= _MAX_VALIDATORS:
            _VALIDATORS.clear()  # only a caller building schemas gets here
        validator = jsonschema.validators.validator_for(schema)(
            schema, format_checker=format_checker)
        entry = _VALIDATORS[key] = (schema, validator, set())
    return entry


_VALIDATORS = {}
_MAX_VALIDATORS = 256


def validate(data, schema, prefix='JSON does not validate',
             format_checker=_FORMAT_CHECKER):
    """Validate ``data`` against ``schema``; 400 with jsonschema's report.

    Same as ``jsonschema.validate`` (the best-matching error) without
    checking our own schema against its metaschema on every request,
    which cost more than the rest of a write request.
    """
    try:
        validator = _schema_entry(schema, format_checker)[1]
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is not None:
            raise error
    except jsonschema.ValidationError as exc:
        # jsonschema's whole report (message, the failing keyword with its
        # schema, the instance), as the reference service gives it:
        # clients match on "Failed validating 'maximum'" and the like.
        raise http_error(webob.exc.HTTPBadRequest,
                         '%s: %s' % (prefix, exc))


# No request body of the API nests objects and arrays deeper than 6 (a
# reshaper's allocation: body, allocations, consumer, allocations,
# provider, resources). Up to a few hundred levels the reference service
# answers its schema's report, and so do we; beyond about 330 its report
# recurses past Python's limit (a 500 there). Deeper than MAX_JSON_DEPTH
# is refused before the schema sees it, and a report that recurses too
# deep below it is the same 400.
MAX_JSON_DEPTH = 400


def _too_deep():
    return http_error(
        webob.exc.HTTPBadRequest,
        'JSON nested too deeply: request bodies may nest objects and '
        'arrays %d levels deep at most.' % MAX_JSON_DEPTH,
        code=errors.BODY_TOO_DEEP)


def _check_depth(body, data):
    """400 placement.body.too_deep when ``data`` (parsed from the bytes
    ``body``) nests objects and arrays deeper than MAX_JSON_DEPTH."""
    if body.count(b'[') + body.count(b'{') <= MAX_JSON_DEPTH:
        return  # fewer brackets than the limit: no need to walk
    pending = [(data, 1)] if isinstance(data, (dict, list)) else []
    while pending:
        value, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            raise _too_deep()
        children = value.values() if isinstance(value, dict) else value
        pending.extend((child, depth + 1) for child in children
                       if isinstance(child, (dict, list)))


def extract_json(body, schema):
    """Parse a JSON request body (bytes) and validate it against
    ``schema``.

    400 for malformed JSON; 400 placement.body.too_deep for nesting past
    MAX_JSON_DEPTH, before the schema; and (after the schema, which sees
    them as the reference service's does: NaN is a float there) for
    NaN/Infinity, numbers that overflow to infinity and strings with
    lone surrogates.
    """
    try:
        # Decoded as strict UTF-8 first, as the reference service does
        # (json.loads would let UTF-8-encoded surrogates through).
        data = json.loads(body.decode('utf-8') if isinstance(body, bytes)
                          else body)
    except RecursionError:
        # Deeper than the parser goes (about a thousand levels).
        raise _too_deep()
    except ValueError as exc:
        raise http_error(webob.exc.HTTPBadRequest,
                         'Malformed JSON: %s' % exc)
    _check_depth(body, data)
    try:
        validate(data, schema)
        _check_storable(data)
    except RecursionError:
        raise _too_deep()
    return data


def extract_json_of_found(body, schema, find):
    """``extract_json`` for a write to one stored thing: when the body is
    bad, ``find()`` runs first, so that a missing target is a 404 (its
    NotFound) before the body's 400.
    """
    try:
        return extract_json(body, schema)
    except webob.exc.HTTPBadRequest:
        find()
        raise


# The 404 details of the routes that name a missing provider twice, as
# the reference service words them (other routes say it once).
PROVIDER_NOT_FOUND_SPACED = 'No resource provider with uuid %s found : %s'
PROVIDER_NOT_FOUND_COLON = 'No resource provider with uuid %s found: %s'
PROVIDER_NOT_FOUND_QUOTED = "Resource provider '%s' not found: %s"


@contextlib.contextmanager
def provider_not_found(template, uuid):
    """Make a missing provider (ResourceProviderNotFound) a 404 whose
    detail is ``template % (uuid, the exception's message)``."""
    try:
        yield
    except exception.ResourceProviderNotFound as exc:
        raise http_error(webob.exc.HTTPNotFound, template % (uuid, exc))


def concurrent_update(exc):
    """409 placement.concurrent_update with ``exc``'s message: the write
    lost a race or a generation check; the client re-reads and retries."""
    return http_error(webob.exc.HTTPConflict, str(exc),
                      code=errors.CONCURRENT_UPDATE)


def database_unavailable(exc):
    """503 placement.database.unavailable with Retry-After: no database
    node could serve the request within the retry budget."""
    return http_error(webob.exc.HTTPServiceUnavailable, str(exc),
                      code=errors.DATABASE_UNAVAILABLE,
                      headers={'Retry-After': str(exc.retry_after)})


def generation_conflict():
    """409 placement.concurrent_update: the resource provider generation
    the client sent is not the current one."""
    return http_error(
        webob.exc.HTTPConflict,
        "Resource provider's generation already changed. Please update "
        "the generation and try again.", code=errors.CONCURRENT_UPDATE)


# --- query strings --------------------------------------------------------

def query_lists(req):
    """The query string as {name: [value, ...]} in the order given.

    400 when a name or value is not UTF-8, with the decoder's words, as
    the reference service answers (only where a handler reads the query
    string: other routes ignore it there too).
    """
    params = {}
    try:
        items = req.GET.items()
    except UnicodeError as exc:
        # (An environ string outside latin-1 fails to encode: no WSGI
        # server sends one.)
        raise http_error(webob.exc.HTTPBadRequest,
                         'Invalid query string parameters: %s' % exc)
    for key, value in items:
        params.setdefault(key, []).append(value)
    return params


def validate_query(req, schema):
    """Validate the query string (last value of each key, as the
    reference service's schema sees it) against schema.

    Returns {name: [values]} for the handler to parse further.

    Query strings that passed are remembered per schema, beside its
    validator (up to _MAX_VALID_QUERIES of them): a scheduler sends the
    same few again and again, and jsonschema takes about 0.1 ms over a
    candidates query.
    """
    params = query_lists(req)
    flat = {key: values[-1] for key, values in params.items()}
    passed = _schema_entry(schema, _QUERY_FORMAT_CHECKER)[2]
    key = frozenset(flat.items())
    if key in passed:
        return params
    validate(flat, schema, prefix='Invalid query string parameters',
             format_checker=_QUERY_FORMAT_CHECKER)
    if len(passed) >= _MAX_VALID_QUERIES:
        passed.clear()
    passed.add(key)
    return params


def query_pairs(req):
    """The query string's (name, value) pairs in the order given; call
    after validate_query (which answers the 400 of a query string that
    is not UTF-8)."""
    return list(req.GET.items())


_MAX_VALID_QUERIES = 1024


# --- responses ------------------------------------------------------------

def utcnow():
    return datetime.datetime.now(datetime.timezone.utc)


def as_utc(value):
    """A stored (naive UTC) timestamp as an aware datetime."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value


def newest(timestamps):
    """The latest of some timestamps (None entries ignored), else now."""
    present = [as_utc(t) for t in timestamps if t is not None]
    return max(present) if present else utcnow()


# ``modified`` for an answer with no Last-Modified header even from 1.15
# (Cache-Control is still sent): where the reference service derives the
# time from the listed rows alone, as for an empty inventory.
NOT_MODIFIED = object()


def _cache_headers(mv, modified):
    """[(name, value)] of the cache headers from CACHE_HEADERS on, as
    webob's last_modified and cache_control setters write them."""
    if mv < microversion.CACHE_HEADERS:
        return []
    headers = []
    if modified is not NOT_MODIFIED:
        headers.append(('Last-Modified', webob.datetime_utils.serialize_date(
            as_utc(modified) or utcnow())))
    headers.append(('Cache-Control', 'no-cache'))
    return headers


def _set_cache_headers(resp, mv, modified):
    for name, value in _cache_headers(mv, modified):
        resp.headers[name] = value


class Deferred:
    """An item of a JSON answer rendered only when the encoder reaches it:
    ``render(item)`` gives its JSON value, which is encoded and dropped
    before the next item is rendered. A list of 10,000 providers then
    holds one provider's dicts at a time, not 70,000 dicts at once.
    """

    __slots__ = ('render', 'item')

    def __init__(self, render, item):
        self.render, self.item = render, item


# Lists up to this long are rendered at once: the encoder's call back
# for each Deferred item costs more than the few dicts held (flat
# GET /allocation_candidates, 250 candidates and 250 summaries: 0.63 ms
# of rendering against 0.50, tools/profile candidates).
EAGER_ITEMS = 1000


def deferred(render, items):
    """The JSON values of ``items`` by ``render``, each rendered only
    when the encoder reaches it (Deferred), unless there are at most
    EAGER_ITEMS of them: then rendered now."""
    if len(items) <= EAGER_ITEMS:
        return [render(item) for item in items]
    return [Deferred(render, item) for item in items]


def _render_deferred(value):
    if value.__class__ is Deferred:
        return value.render(value.item)
    raise TypeError('%r is not JSON serializable' % (value,))


def render_json(body):
    """The UTF-8 JSON bytes of ``body`` (plain values and Deferred
    items): the one encoder of every JSON answer."""
    return orjson.dumps(body, default=_render_deferred)


def json_response(req, mv, body, status=200, modified=None, location=None):
    """A JSON response; last-modified and cache-control from 1.15.

    The body is one bytes object, handed to the server in one piece (a
    body written in several pieces can wait for the client's delayed
    ACK on a kept-alive connection). ``modified`` is the entity's newest
    timestamp; None means now, NOT_MODIFIED no Last-Modified header.
    """
    payload = render_json(body)
    # The header list built here, not through webob's setters: a tenth of
    # a small read's CPU went to the setters. A relative Location is made
    # absolute by webob when the response is sent.
    headers = [('Content-Type', 'application/json'),
               ('Content-Length', str(len(payload)))]
    if location:
        headers.append(('Location', location))
    headers += _cache_headers(mv, modified)
    return webob.Response(app_iter=[payload], status=status,
                          headerlist=headers)


class ThenClose:
    """A response body that runs ``then()`` once when the server closes
    it, after the last byte was handed over (PEP 3333: every server calls
    close(), the client gone or not), and then closes the body it wraps
    (whose own close may run more). A failure of ``then`` is logged,
    never raised: the response is already sent.
    """

    def __init__(self, body, then):
        self.body, self.then = body, then

    def __iter__(self):
        return iter(self.body)

    def close(self):
        then, self.then = self.then, None
        try:
            if then is not None:
                then()
        except Exception:
            LOG.exception('Failed after the response was sent')
        finally:
            close = getattr(self.body, 'close', None)
            if close is not None:
                close()


def after_response(resp, then):
    """Have ``then()`` run once the body of ``resp`` (a response of
    json_response) has been sent; returns ``resp``.
    """
    length = resp.content_length
    resp.app_iter = ThenClose(resp.app_iter, then)
    resp.content_length = length
    return resp


def empty_response(req, mv, status=204, location=None, modified=None,
                   cache_headers=False):
    """A response with no body (204, or 201 before 1.20)."""
    resp = webob.Response(status=status)
    resp.content_type = None
    # webob leaves Content-Length out of a 204; upstream sends 0 always.
    resp.headers['Content-Length'] = '0'
    if location:
        resp.location = location
    if cache_headers:
        _set_cache_headers(resp, mv, modified)
    return resp


# --- decorators -----------------------------------------------------------

def check_accept(*types):
    """406 unless the Accept header allows one of ``types``."""
    offers = list(types)
    verdicts = {}  # Accept header -> acceptable; clients send a few values

    def decorate(handler):
        @functools.wraps(handler)
        def wrapper(req):
            accept = req.environ.get('HTTP_ACCEPT')
            if accept:
                acceptable = verdicts.get(accept)
                if acceptable is None:
                    acceptable = bool(req.accept.acceptable_offers(offers))
                    if len(verdicts) >= _MAX_ACCEPT_VALUES:
                        verdicts.clear()
                    verdicts[accept] = acceptable
                if not acceptable:
                    raise http_error(webob.exc.HTTPNotAcceptable,
                                     'Only %s is provided' % ', '.join(types))
            return handler(req)
        return wrapper
    return decorate


_MAX_ACCEPT_VALUES = 64


def require_content(content_type):
    """415 unless the request body's media type is ``content_type``.

    The media type is the Content-Type header up to its first ';',
    compared as given: case and spaces count, parameters do not (the
    reference service's rule, found by experiment: 'APPLICATION/JSON'
    and 'application/json ; charset=utf-8' are 415, 'application/json;x'
    is not). An empty media type is named "None", in both sentences.
    """
    def decorate(handler):
        @functools.wraps(handler)
        def wrapper(req):
            media, sep, params = (
                req.environ.get('CONTENT_TYPE') or '').partition(';')
            if media != content_type:
                media = media or 'None'
                exc = http_error(
                    webob.exc.HTTPUnsupportedMediaType,
                    'The media type %s is not supported, use %s' %
                    (media, content_type))
                exc.body_template_obj = string.Template(
                    exc.body_template_obj.template.replace(
                        '${CONTENT_TYPE}',
                        (media + sep + params).replace('$', '$$')))
                raise exc
            return handler(req)
        return wrapper
    return decorate


def context(req):
    """The request context the auth middleware built."""
    return req.environ[CONTEXT_KEY]


def version(req):
    """The negotiated microversion."""
    return req.environ[microversion.ENVIRON_KEY]
