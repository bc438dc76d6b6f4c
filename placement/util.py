"""HTTP helpers shared by dispatch and every handler.

Parsing and validating bodies and query strings, the one way to raise an
HTTP error with a code, and the one way to build a JSON response (where the
version-dependent headers are decided). No SQL here.
"""
import datetime
import decimal
import fractions
import functools
import json
import math
import re
import urllib.parse
import uuid

import jsonschema
import orjson
from oslo_utils import uuidutils
import webob
import webob.exc

from placement import errors
from placement import microversion

CONTEXT_KEY = 'placement.context'
_FORMAT_CHECKER = jsonschema.FormatChecker()


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
    """Refuse strings that no database can store (lone surrogates)."""
    try:
        json.dumps(data, ensure_ascii=False).encode('utf-8')
    except RecursionError:
        raise http_error(webob.exc.HTTPBadRequest,
                         'Malformed JSON: the document is nested too deeply')
    except UnicodeEncodeError:
        raise http_error(
            webob.exc.HTTPBadRequest,
            'Malformed JSON: the body contains characters that are not '
            'valid Unicode (lone surrogates).')


# --- a fast "certainly valid" check --------------------------------------
#
# jsonschema takes ~80 us for a three-key query string. _compile turns a
# schema that uses only the keywords below into a predicate that answers
# True only when jsonschema would find no error (same rules: re.search,
# len, types, the format checker); anything else, or any doubt (a float
# where an integer is wanted, a non-string enum...), answers False and
# jsonschema then decides and words the error as before.

def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_FAST_TYPES = {
    'object': lambda value: isinstance(value, dict),
    'array': lambda value: isinstance(value, list),
    'string': lambda value: isinstance(value, str),
    'integer': _is_int,  # an integral float too for jsonschema: unsure
    'number': _is_number,
    'boolean': lambda value: isinstance(value, bool),
    'null': lambda value: value is None,
}
_FAST_IGNORED = frozenset(('description', 'title', '$comment'))
_OBJECT_KEYWORDS = frozenset(('properties', 'patternProperties',
                              'additionalProperties'))


def _numbers_only(check):
    """A bound applies to numbers; bools and non-numbers pass; other
    number types (not from JSON) are a doubt."""
    def bounded(value):
        if isinstance(value, bool) or not isinstance(
                value, (int, float, complex, decimal.Decimal,
                        fractions.Fraction)):
            return True
        return _is_number(value) and check(value)
    return bounded


def _compile_keyword(key, arg):
    """The predicate of one keyword, or None when not supported."""
    if key == 'type':
        names = [arg] if isinstance(arg, str) else arg
        if not isinstance(names, list) or \
                any(name not in _FAST_TYPES for name in names):
            return None
        tests = [_FAST_TYPES[name] for name in names]
        return lambda value: any(test(value) for test in tests)
    if key == 'pattern':
        regex = re.compile(arg)
        return lambda value: (not isinstance(value, str)
                              or regex.search(value) is not None)
    if key == 'minLength':
        return lambda value: not isinstance(value, str) or len(value) >= arg
    if key == 'maxLength':
        return lambda value: not isinstance(value, str) or len(value) <= arg
    if key == 'minimum' and _is_number(arg):
        return _numbers_only(lambda value: value >= arg)
    if key == 'maximum' and _is_number(arg):
        return _numbers_only(lambda value: value <= arg)
    if key == 'required' and isinstance(arg, list):
        return lambda value: (not isinstance(value, dict)
                              or all(name in value for name in arg))
    if key == 'minProperties':
        return lambda value: not isinstance(value, dict) or len(value) >= arg
    if key == 'maxProperties':
        return lambda value: not isinstance(value, dict) or len(value) <= arg
    if key == 'minItems':
        return lambda value: not isinstance(value, list) or len(value) >= arg
    if key == 'maxItems':
        return lambda value: not isinstance(value, list) or len(value) <= arg
    if key == 'uniqueItems':
        if not arg:
            return lambda value: True
        return lambda value: (not isinstance(value, list) or (
            all(isinstance(item, str) for item in value)
            and len(set(value)) == len(value)))
    if key == 'enum':
        if not isinstance(arg, list) or \
                not all(isinstance(each, str) for each in arg):
            return None
        allowed = frozenset(arg)
        return lambda value: isinstance(value, str) and value in allowed
    if key == 'format':
        return lambda value: _FORMAT_CHECKER.conforms(value, arg)
    if key == 'items':
        if not isinstance(arg, (dict, bool)):
            return None
        check = _compile(arg)
        if check is None:
            return None
        return lambda value: (not isinstance(value, list)
                              or all(check(item) for item in value))
    if key == 'anyOf' and isinstance(arg, list) and arg:
        checks = [_compile(sub) for sub in arg]
        if any(check is None for check in checks):
            return None
        return lambda value: any(check(value) for check in checks)
    return None


def _compile_object(schema):
    """properties, patternProperties and additionalProperties together."""
    properties = schema.get('properties', {})
    patterns = schema.get('patternProperties', {})
    additional = schema.get('additionalProperties', True)
    if not isinstance(properties, dict) or not isinstance(patterns, dict):
        return None
    named = {name: _compile(sub) for name, sub in properties.items()}
    matched = [(re.compile(pattern), _compile(sub))
               for pattern, sub in patterns.items()]
    extra = _compile(additional)
    if None in named.values() or extra is None or \
            any(check is None for _regex, check in matched):
        return None

    def check_object(value):
        if not isinstance(value, dict):
            return True
        for key, item in value.items():
            known = key in named
            if known and not named[key](item):
                return False
            for regex, check in matched:
                if regex.search(key):
                    known = True
                    if not check(item):
                        return False
            if not known and not extra(item):
                return False
        return True
    return check_object


def _compile(schema):
    """A predicate that is True only for data ``schema`` accepts; None
    when the schema uses a keyword the fast check does not know."""
    if schema is True:
        return lambda value: True
    if schema is False:
        return lambda value: False
    if not isinstance(schema, dict):
        return None
    checks = []
    for key, arg in schema.items():
        if key in _FAST_IGNORED or key in _OBJECT_KEYWORDS:
            continue
        check = _compile_keyword(key, arg)
        if check is None:
            return None
        checks.append(check)
    if _OBJECT_KEYWORDS.intersection(schema):
        check = _compile_object(schema)
        if check is None:
            return None
        checks.append(check)
    return lambda value: all(check(value) for check in checks)


def _validator(schema):
    """(schema, its validator, its fast check or None), built once per
    schema object.

    Schemas are module-level constants (one per microversion window), so
    the cache holds a few dozen entries. It keeps the schema too, so that
    its id cannot be reused by another dict while cached.
    """
    entry = _VALIDATORS.get(id(schema))
    if entry is None or entry[0] is not schema:
        if len(_VALIDATORS) >= _MAX_VALIDATORS:
            _VALIDATORS.clear()  # only a caller building schemas gets here
        validator = jsonschema.validators.validator_for(schema)(
            schema, format_checker=_FORMAT_CHECKER)
        fast = None
        if '$schema' not in schema:  # the latest draft's rules
            try:
                fast = _compile(schema)
            except (re.error, TypeError):
                fast = None
        entry = _VALIDATORS[id(schema)] = (schema, validator, fast)
    return entry


_VALIDATORS = {}
_MAX_VALIDATORS = 256


def validate(data, schema, prefix='JSON does not validate'):
    """Validate ``data`` against ``schema``; 400 with jsonschema's message.

    Same as ``jsonschema.validate`` (the best-matching error) without
    checking our own schema against its metaschema on every request,
    which cost more than the rest of a write request.
    """
    _schema, validator, fast = _validator(schema)
    try:
        if fast is not None and fast(data):
            return
        error = jsonschema.exceptions.best_match(
            validator.iter_errors(data))
        if error is not None:
            raise error
    except jsonschema.ValidationError as exc:
        raise http_error(webob.exc.HTTPBadRequest,
                         '%s: %s' % (prefix, exc.message))
    except RecursionError:
        raise http_error(webob.exc.HTTPBadRequest,
                         '%s: the document is nested too deeply' % prefix)


def _refuse_constant(name):
    raise ValueError('%s is not a JSON number' % name)


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError('the number %s is out of range' % text)
    return value


def extract_json(body, schema):
    """Parse a JSON request body and validate it against ``schema``.

    400 for malformed JSON, for NaN/Infinity and numbers that overflow to
    infinity, for nesting deep enough to exhaust the recursion limit and
    for strings with lone surrogates.
    """
    try:
        data = json.loads(body, parse_constant=_refuse_constant,
                          parse_float=_finite_float)
    except RecursionError:
        raise http_error(webob.exc.HTTPBadRequest,
                         'Malformed JSON: the document is nested too deeply')
    except ValueError as exc:
        raise http_error(webob.exc.HTTPBadRequest,
                         'Malformed JSON: %s' % exc)
    _check_storable(data)
    validate(data, schema)
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


def concurrent_update(exc):
    """409 placement.concurrent_update with ``exc``'s message: the write
    lost a race or a generation check; the client re-reads and retries."""
    return http_error(webob.exc.HTTPConflict, str(exc),
                      code=errors.CONCURRENT_UPDATE)


def generation_conflict():
    """409 placement.concurrent_update: the resource provider generation
    the client sent is not the current one."""
    return http_error(
        webob.exc.HTTPConflict,
        "Resource provider's generation already changed. Please update "
        "the generation and try again.", code=errors.CONCURRENT_UPDATE)


# --- query strings --------------------------------------------------------

def _wsgi_bytes(value):
    """A PEP 3333 environ string back to its bytes (None if it is not one:
    a str outside latin-1 cannot have come from the wire)."""
    if isinstance(value, bytes):
        return value
    try:
        return value.encode('latin-1')
    except UnicodeEncodeError:
        return None


def check_query_encoding(environ):
    """400 unless the query string and path decode as UTF-8."""
    for key, what in (('QUERY_STRING', 'query string'), ('PATH_INFO', 'path')):
        raw = _wsgi_bytes(environ.get(key, ''))
        if raw is not None and key == 'QUERY_STRING':
            raw = urllib.parse.unquote_to_bytes(raw.replace(b'+', b' '))
        try:
            if raw is None:
                raise UnicodeError(key)
            # The strict decoder also refuses encoded lone surrogates.
            raw.decode('utf-8')
        except UnicodeError:
            raise http_error(webob.exc.HTTPBadRequest,
                             'The %s is not valid UTF-8.' % what)


def query_lists(req):
    """The query string as {name: [value, ...]} in the order given."""
    params = {}
    for key, value in req.GET.items():
        params.setdefault(key, []).append(value)
    return params


def validate_query(req, schema):
    """Validate the query string (last value of each key) against schema.

    Returns {name: [values]} for the handler to parse further.
    """
    params = query_lists(req)
    flat = {key: values[-1] for key, values in params.items()}
    validate(flat, schema, prefix='Invalid query string parameters')
    return params


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


def _set_cache_headers(resp, mv, modified):
    if mv >= microversion.CACHE_HEADERS:
        resp.last_modified = as_utc(modified) or utcnow()
        resp.cache_control = 'no-cache'


def json_response(req, mv, body, status=200, modified=None, location=None):
    """A JSON response; last-modified and cache-control from 1.15.

    ``modified`` is the entity's newest timestamp; None means now.
    """
    # orjson: the same JSON as json.dumps (keys in the same order), without
    # the optional whitespace and with UTF-8 rather than \\u escapes, some
    # thirty times faster: 0.4 ms instead of 11 ms for a 700 KB body of
    # allocation candidates.
    return encoded_json_response(req, mv, orjson.dumps(body), status=status,
                                 modified=modified, location=location)


def encoded_json_response(req, mv, payload, status=200, modified=None,
                          location=None):
    """As json_response, for a body already encoded: UTF-8 JSON bytes, or
    a list of byte strings sent one after the other (never joined).
    """
    if isinstance(payload, bytes):
        payload = [payload]
    resp = webob.Response(app_iter=payload, status=status,
                          content_type='application/json', charset='utf-8')
    resp.content_length = sum(len(part) for part in payload)
    if location:
        resp.location = location
    _set_cache_headers(resp, mv, modified)
    return resp


def empty_response(req, mv, status=204, location=None, modified=None,
                   cache_headers=False):
    """A response with no body (204, or 201 before 1.20)."""
    resp = webob.Response(status=status)
    resp.content_type = None
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


_MEDIA_RE = re.compile(r'^\s*([^;\s]+)')


def require_content(content_type):
    """415 unless the request body's media type is ``content_type``."""
    def decorate(handler):
        @functools.wraps(handler)
        def wrapper(req):
            header = req.headers.get('Content-Type')
            media = None
            if header:
                match = _MEDIA_RE.match(header)
                media = match.group(1).lower() if match else header
            if media != content_type:
                raise http_error(
                    webob.exc.HTTPUnsupportedMediaType,
                    'The media type %s is not supported, use %s' %
                    (media, content_type))
            return handler(req)
        return wrapper
    return decorate


def context(req):
    """The request context the auth middleware built."""
    return req.environ[CONTEXT_KEY]


def version(req):
    """The negotiated microversion."""
    return req.environ[microversion.ENVIRON_KEY]

