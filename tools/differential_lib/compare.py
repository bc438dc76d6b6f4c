"""Normalise two answers to the same request and name their differences.

Server-generated uuids differ between the two services: ``UuidMap``
learns pairs from the answers that create something (the uuids in a
``Location`` header, a top-level ``uuid`` in a POST answer), rewrites our
uuids into upstream's in the requests it forwards and upstream's into ours
in the answers it compares. Request ids and timestamps are replaced by
placeholders; everything else is compared byte for byte.
"""
import json
import re

UUID_RE = re.compile(
    r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
    r'[0-9a-fA-F]{12}')
REQUEST_ID_RE = re.compile(r'req-[0-9a-fA-F-]{36}')
TIMESTAMP_RE = re.compile(
    r'\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?'
    # A timestamp among a database error's parameters (Python's repr).
    r'|datetime\.datetime\(\d+(?:, \d+){2,6}\)')
# Headers that differ by nature (Date, request ids) or are added by the
# WSGI server upstream runs under, not by the application.
IGNORED_HEADERS = frozenset((
    'date', 'x-openstack-request-id', 'openstack-request-id', 'connection',
    'server'))
TIMESTAMP_HEADERS = frozenset(('last-modified',))


class UuidMap:
    """Our server-generated uuids <-> upstream's, for one YAML file."""

    def __init__(self):
        self.ours_to_up = {}
        self.up_to_ours = {}

    def to_upstream(self, text):
        return self._replace(text, self.ours_to_up)

    def to_ours(self, text):
        return self._replace(text, self.up_to_ours)

    @staticmethod
    def _replace(text, mapping):
        if not mapping:
            return text
        return UUID_RE.sub(lambda m: mapping.get(m.group(0), m.group(0)),
                           text)

    def learn(self, request_text, method, ours, up):
        """Pair uuids that only the two answers (not the request) hold."""
        pairs = list(zip(_location_uuids(ours), _location_uuids(up)))
        if method == 'POST':
            pairs.append((_top_uuid(ours.body), _top_uuid(up.body)))
        if ours.status[:1] == '4' and ours.status == up.status:
            # A uuid each server made up for a create it then refused
            # (``Unable to create resource provider "", <uuid>: ...``).
            pairs.extend(zip(_new_uuids(ours.body, request_text,
                                        self.ours_to_up),
                             _new_uuids(up.body, request_text,
                                        self.up_to_ours)))
        for mine, theirs in pairs:
            if (mine and theirs and mine != theirs
                    and mine not in request_text
                    and mine not in self.ours_to_up):
                self.ours_to_up[mine] = theirs
                self.up_to_ours[theirs] = mine


def _new_uuids(body, request_text, known):
    return [found for found in UUID_RE.findall(body)
            if found not in request_text and found not in known]


def _location_uuids(answer):
    return UUID_RE.findall(answer.header('location') or '')


def _top_uuid(body):
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if isinstance(doc, dict) and isinstance(doc.get('uuid'), str):
        return doc['uuid']
    return None


class Answer:
    """status text, [(lower-case name, value)], body text."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = [(name.lower(), value) for name, value in headers]
        if isinstance(body, bytes):
            body = body.decode('utf-8', 'backslashreplace')
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def normalised(self, uuid_map=None):
        convert = uuid_map.to_ours if uuid_map else (lambda text: text)
        headers = {}
        for name, value in self.headers:
            if name in IGNORED_HEADERS:
                continue
            if name in TIMESTAMP_HEADERS:
                value = '<http-date>'
            headers.setdefault(name, []).append(_scrub(convert(value)))
        return Answer(self.status, [], _scrub(convert(self.body))), headers


def _scrub(text):
    text = REQUEST_ID_RE.sub('req-<id>', text)
    return TIMESTAMP_RE.sub('<timestamp>', text)


def _scrubbed_length(values, raw, normalised):
    """The Content-Length ``values`` (one) less the bytes normalising
    took from the body (or added to it)."""
    change = (len(raw.body.encode('utf-8', 'surrogateescape'))
              - len(normalised.body.encode('utf-8', 'surrogateescape')))
    try:
        return int(values[0]) - change
    except ValueError:
        return None


def differences(ours, up, uuid_map, body_judge=None):
    """[(kind, detail)] between our answer and upstream's.

    ``body_judge(ours, upstream)``, given the two normalised bodies when
    they differ, may accept ours as one upstream could give (the seed
    rule of ``candidates``).
    """
    mine, my_headers = ours.normalised()
    theirs, their_headers = up.normalised(uuid_map)
    found = []
    if mine.status != theirs.status:
        found.append(('status', 'ours %s, upstream %s'
                      % (mine.status, theirs.status)))
    my_order = [name for name in my_headers if name in their_headers]
    their_order = [name for name in their_headers if name in my_headers]
    if my_order != their_order:
        found.append(('header order', 'ours %s, upstream %s'
                      % (', '.join(my_order), ', '.join(their_order))))
    for name in sorted(set(my_headers) | set(their_headers)):
        a, b = my_headers.get(name), their_headers.get(name)
        if a == b:
            continue
        if (name == 'content-length' and a and b
                and mine.body != theirs.body):
            continue  # follows from the body difference reported below
        if (name == 'content-length' and a and b
                and _scrubbed_length(a, ours, mine)
                == _scrubbed_length(b, up, theirs)):
            # Only the width of what normalising replaced differs (the
            # repr of a datetime among a database error's parameters).
            continue
        if a is None:
            found.append(('header %s missing' % name, 'upstream: %s' % b))
        elif b is None:
            found.append(('header %s extra' % name, 'ours: %s' % a))
        else:
            found.append(('header %s value' % name,
                          'ours %s, upstream %s' % (a, b)))
    if mine.body != theirs.body and not (
            body_judge and body_judge(mine.body, theirs.body)):
        kind = body_kind(mine.body, theirs.body, ours.status)
        found.append((kind, 'ours:     %s\n      upstream: %s'
                      % (_clip(mine.body), _clip(theirs.body))))
    return found


def body_kind(mine, theirs, status):
    """Name what kind of body difference this is."""
    try:
        a, b = json.loads(mine), json.loads(theirs)
    except ValueError:
        return 'body text'
    if a == b:
        return 'body JSON spelling/key order'
    if _sorted_deep(a) == _sorted_deep(b):
        return 'body list order'
    if status[:1] in '45' and isinstance(a, dict) and 'errors' in a:
        return 'body error detail'
    return 'body content'


def _sorted_deep(value):
    if isinstance(value, dict):
        return {key: _sorted_deep(item) for key, item in value.items()}
    if isinstance(value, list):
        items = [_sorted_deep(item) for item in value]
        return sorted(items, key=lambda item: json.dumps(item,
                                                         sort_keys=True))
    return value


def _clip(text, limit=1500):
    text = text.replace('\n', '\\n')
    return text if len(text) <= limit else text[:limit] + '...'
