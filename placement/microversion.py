"""Microversions: the list, the named gates, version windows, negotiation.

A leaf module: it imports nothing from ``placement``. Handlers branch on
the named gates below (``mv >= microversion.CONSUMER_GENERATION``), never
on a bare tuple, so that grep finds every use of a version change.
"""
import re

import webob.exc

SERVICE_TYPE = 'placement'
HEADER = 'OpenStack-API-Version'
ENVIRON_KEY = 'placement.microversion'

# One entry per microversion, oldest first, with what it changed.
VERSIONS = [
    '1.0',   # initial: providers, inventories, usages, allocations
    '1.1',   # provider aggregates
    '1.2',   # custom resource classes
    '1.3',   # member_of on GET /resource_providers
    '1.4',   # resources filter on GET /resource_providers
    '1.5',   # DELETE all inventories of a provider
    '1.6',   # traits
    '1.7',   # PUT /resource_classes/{name} creates or verifies
    '1.8',   # project_id and user_id required on PUT /allocations
    '1.9',   # GET /usages
    '1.10',  # GET /allocation_candidates
    '1.11',  # allocations link on providers
    '1.12',  # dict-format allocations on PUT and in candidates
    '1.13',  # POST /allocations
    '1.14',  # nested providers, in_tree on GET /resource_providers
    '1.15',  # last-modified and cache-control headers
    '1.16',  # limit on allocation candidates
    '1.17',  # required traits on candidates, traits in summaries
    '1.18',  # required traits on GET /resource_providers
    '1.19',  # aggregates carry the provider generation
    '1.20',  # POST /resource_providers returns 200 and the provider
    '1.21',  # member_of on allocation candidates
    '1.22',  # forbidden traits
    '1.23',  # error codes in error bodies
    '1.24',  # repeated member_of
    '1.25',  # granular request groups and group_policy
    '1.26',  # reserved may equal total
    '1.27',  # all classes in provider summaries
    '1.28',  # consumer generations
    '1.29',  # nested-aware candidates, parent and root in summaries
    '1.30',  # POST /reshaper
    '1.31',  # in_tree on allocation candidates
    '1.32',  # forbidden aggregates
    '1.33',  # string suffixes for request groups
    '1.34',  # mappings in allocation requests
    '1.35',  # root_required
    '1.36',  # same_subtree and resourceless groups
    '1.37',  # re-parenting and un-parenting providers
    '1.38',  # consumer types
    '1.39',  # any-of traits with in: and repeated required
]


class Version:
    """A (major, minor) pair that compares with Versions and tuples and
    prints as 'X.Y'. Not a tuple, so that ``'%s' % mv`` is safe.

    Each comparison is written out on the (major, minor) key kept at
    construction: a request compares its version a dozen times (route
    windows, schema and renderer tables), which functools.total_ordering's
    derived methods made a twentieth of a provider create's CPU.
    """

    __slots__ = ('major', 'minor', '_pair')

    def __init__(self, major, minor):
        self.major = int(major)
        self.minor = int(minor)
        self._pair = (self.major, self.minor)

    def _key(self):
        return self._pair

    @staticmethod
    def _other(other):
        if isinstance(other, Version):
            return other._pair
        if isinstance(other, tuple):
            return other
        return NotImplemented

    def __eq__(self, other):
        key = self._other(other)
        return key if key is NotImplemented else self._pair == key

    def __lt__(self, other):
        key = self._other(other)
        return key if key is NotImplemented else self._pair < key

    def __le__(self, other):
        key = self._other(other)
        return key if key is NotImplemented else self._pair <= key

    def __gt__(self, other):
        key = self._other(other)
        return key if key is NotImplemented else self._pair > key

    def __ge__(self, other):
        key = self._other(other)
        return key if key is NotImplemented else self._pair >= key

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return '%d.%d' % (self.major, self.minor)

    def __repr__(self):
        return 'Version(%s)' % self

    def matches(self, min_version=None, max_version=None):
        """True when min_version <= self <= max_version (None: open)."""
        low = parse_version(min_version) if min_version else MIN_VERSION
        high = parse_version(max_version) if max_version else MAX_VERSION
        return low <= self <= high


_VERSION_RE = re.compile(r'^([1-9]\d*|0)\.([1-9]\d*|0)$')


def parse_version(text):
    """Turn '1.23' (or a tuple) into a Version; raise ValueError if bad."""
    if isinstance(text, Version):
        return text
    if isinstance(text, tuple):
        return Version(*text)
    match = _VERSION_RE.match(text.strip())
    if not match:
        raise ValueError('invalid version string: %s' % text)
    return Version(match.group(1), match.group(2))


MIN_VERSION = parse_version(VERSIONS[0])
MAX_VERSION = parse_version(VERSIONS[-1])

# Named gates: the version that introduced each behaviour.
AGGREGATES = Version(1, 1)
RESOURCE_CLASSES = Version(1, 2)
RP_MEMBER_OF = Version(1, 3)
RP_RESOURCES = Version(1, 4)
DELETE_INVENTORIES = Version(1, 5)
TRAITS = Version(1, 6)
RC_PUT_CREATES = Version(1, 7)
ALLOCATION_PROJECT_USER = Version(1, 8)
USAGES = Version(1, 9)
ALLOCATION_CANDIDATES = Version(1, 10)
ALLOCATIONS_LINK = Version(1, 11)
ALLOCATIONS_DICT = Version(1, 12)
POST_ALLOCATIONS = Version(1, 13)
NESTED_PROVIDERS = Version(1, 14)
CACHE_HEADERS = Version(1, 15)
CANDIDATES_LIMIT = Version(1, 16)
CANDIDATES_TRAITS = Version(1, 17)
RP_REQUIRED = Version(1, 18)
AGGREGATES_GENERATION = Version(1, 19)
RP_POST_RETURNS_BODY = Version(1, 20)
CANDIDATES_MEMBER_OF = Version(1, 21)
FORBIDDEN_TRAITS = Version(1, 22)
ERROR_CODES = Version(1, 23)
MULTI_MEMBER_OF = Version(1, 24)
GRANULAR_GROUPS = Version(1, 25)
RESERVED_EQUALS_TOTAL = Version(1, 26)
SUMMARIES_ALL_CLASSES = Version(1, 27)
CONSUMER_GENERATION = Version(1, 28)
NESTED_CANDIDATES = Version(1, 29)
RESHAPER = Version(1, 30)
CANDIDATES_IN_TREE = Version(1, 31)
FORBIDDEN_AGGREGATES = Version(1, 32)
STRING_SUFFIXES = Version(1, 33)
MAPPINGS = Version(1, 34)
ROOT_REQUIRED = Version(1, 35)
SAME_SUBTREE = Version(1, 36)
REPARENT = Version(1, 37)
CONSUMER_TYPES = Version(1, 38)
ANY_TRAITS = Version(1, 39)


class Windows:
    """Values that change at given versions, oldest first.

    ``Windows(('1.0', A), ('1.8', B)).at(Version(1, 9))`` is ``B``.
    """

    def __init__(self, *windows):
        self._windows = sorted(
            ((parse_version(start), value) for start, value in windows),
            key=lambda pair: pair[0])

    def items(self):
        """The (start Version, value) pairs, oldest first."""
        return list(self._windows)

    def at(self, mv):
        chosen = None
        for start, value in self._windows:
            if mv >= start:
                chosen = value
        if chosen is None:
            raise LookupError('no window covers %s' % (mv,))
        return chosen


def since(min_version, max_version=None, status=404):
    """Declare the version window of a handler.

    Outside the window dispatch answers ``status``: 404 for a route new at
    ``min_version``, 405 for a method added to an existing route.
    """
    low = parse_version(min_version)
    high = parse_version(max_version) if max_version else MAX_VERSION

    def decorate(func):
        func.version_window = (low, high)
        func.below_status = status
        return func
    return decorate


def window_of(handler):
    """The (min, max) window a handler serves; all versions by default."""
    return getattr(handler, 'version_window', (MIN_VERSION, MAX_VERSION))


def extract_version(headers):
    """Pick the requested version out of request headers.

    Returns a Version; raises ValueError for an unparsable value and
    LookupError for a version outside MIN_VERSION..MAX_VERSION.
    """
    return _version_of_header(headers.get(HEADER))


def _parse_header_version(text):
    """The header's version as the reference service reads it: 'latest'
    (that spelling only), else major and minor split at the first dot and
    read by int() (so ' 1.02' is 1.2 and '-1.2' is out of range rather
    than malformed); the ValueError says what int() said.
    """
    if text == 'latest':
        return MAX_VERSION
    try:
        numbers = [int(part) for part in text.split('.', 1)]
        if len(numbers) < 2:
            raise ValueError("Version.__new__() missing 1 required "
                             "positional argument: 'minor'")
        return Version(*numbers)
    except ValueError as exc:
        raise ValueError('invalid version string: %s; %s' % (text, exc))


def _version_of_header(value):
    """extract_version for the header's value (None when absent)."""
    text = None
    if value:
        for item in value.split(','):
            parts = item.strip().split(None, 1)
            if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
                text = parts[1].strip()
    if text is None:
        return MIN_VERSION
    version = _parse_header_version(text)
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise LookupError('Unacceptable version header: %s' % text)
    return version


# The header as a WSGI environ key (how webob's request.headers finds it).
# Set by dispatch for the answers that carry no Vary header in the
# reference service: a path no route matches, and the 404/403 that
# dispatch makes of NotFound and PolicyNotAuthorized.
NO_VARY_KEY = 'placement.microversion.no_vary'

_ENVIRON_HEADER = 'HTTP_' + HEADER.upper().replace('-', '_')
_HEADER_LOWER = HEADER.lower()


class MicroversionMiddleware:
    """Negotiate the version; stamp it on the environ and the response.

    The error formatter comes from the caller so that this module stays a
    leaf.
    """

    def __init__(self, application, error_formatter):
        self.application = application
        self.error_formatter = error_formatter

    def __call__(self, environ, start_response):
        try:
            mv = _version_of_header(environ.get(_ENVIRON_HEADER))
        except ValueError as exc:
            return self._error(webob.exc.HTTPBadRequest,
                               'Invalid microversion: %s' % exc, {},
                               environ, start_response)
        except LookupError as exc:
            extra = {'max_version': str(MAX_VERSION),
                     'min_version': str(MIN_VERSION)}
            return self._error(webob.exc.HTTPNotAcceptable,
                               'Invalid microversion: %s' % exc.args[0],
                               extra, environ, start_response)
        environ[ENVIRON_KEY] = mv
        header_value = '%s %s' % (SERVICE_TYPE, mv)

        def stamp(status, headers, exc_info=None):
            headers = [(k, v) for k, v in headers
                       if k.lower() != _HEADER_LOWER]
            # Spelled in lower case, as the reference service sends it.
            headers.append((_HEADER_LOWER, header_value))
            if not environ.get(NO_VARY_KEY) and not any(
                    k.lower() == 'vary' for k, _ in headers):
                headers.append(('vary', _HEADER_LOWER))
            return start_response(status, headers, exc_info)

        return self.application(environ, stamp)

    def _error(self, exc_class, detail, extra, environ, start_response):
        def formatter(body, status, title, environ):
            return self.error_formatter(body, status, title, environ,
                                        extra=extra)
        exc = exc_class(detail, json_formatter=formatter)
        return exc(environ, start_response)
