"""Normalise two answers to the same request and name their differences,
by the contract of issue 23:

- the same status;
- the same set of headers with the same values, in any order (but those
  that differ by nature: Date, request ids, and those of the WSGI server
  upstream runs under); Last-Modified compared as present or not;
  Content-Length as present or not and true to its own body (whitespace
  in JSON is not part of the contract, so the lengths may differ);
- the body equal as a JSON value: member order and whitespace are not
  part of it, number types are (1 is not 1.0); a list in order, but the
  lists ``lists.LISTS`` declares as multisets; a body that is not JSON,
  as text;
- (the stored rows: see ``rows``.)

Server-generated uuids differ between the two services: ``UuidMap``
learns pairs from the answers that create something (the uuids in a
``Location`` header, a top-level ``uuid`` in a POST answer), rewrites our
uuids into upstream's in the requests it forwards and upstream's into ours
in the answers it compares. Request ids and timestamps are replaced by
placeholders.
"""
import ast
import json
import re

from tools.differential_lib import lists

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
    """status text, [(lower-case name, value)], body text; ``length``:
    the body's size in bytes as sent."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = [(name.lower(), value) for name, value in headers]
        if isinstance(body, bytes):
            self.length = len(body)
            body = body.decode('utf-8', 'backslashreplace')
        else:
            self.length = len(body.encode('utf-8', 'surrogateescape'))
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def normalised(self, uuid_map=None):
        """(Answer with the body normalised, {header: sorted values})."""
        convert = uuid_map.to_ours if uuid_map else (lambda text: text)
        headers = {}
        for name, value in self.headers:
            if name in IGNORED_HEADERS:
                continue
            if name in TIMESTAMP_HEADERS:
                value = '<http-date>'
            elif name == 'content-length':
                value = ('<length of the body>' if value == str(self.length)
                         else 'not the length of the body (%s of %d bytes)'
                         % (value, self.length))
            headers.setdefault(name, []).append(_scrub(convert(value)))
        return (Answer(self.status, [], _scrub(convert(self.body))),
                {name: sorted(values) for name, values in headers.items()})


# Upstream names the suffixes of a bad same_subtree in the order of a
# Python set of strings, which PYTHONHASHSEED shuffles from one start of
# the server to the next: no order is upstream's, so both lists are
# compared sorted.
SAME_SUBTREE_RE = re.compile(
    r"(`same_subtree`: )(\[[^\]]*\])( not found in )(\[[^\]]*\])")


def _sorted_suffixes(match):
    def ordered(text):
        return repr(sorted(ast.literal_eval(text)))
    return (match.group(1) + ordered(match.group(2)) + match.group(3)
            + ordered(match.group(4)))


def _scrub(text):
    text = REQUEST_ID_RE.sub('req-<id>', text)
    text = SAME_SUBTREE_RE.sub(_sorted_suffixes, text)
    return TIMESTAMP_RE.sub('<timestamp>', text)


def load(text):
    """The JSON value of ``text``, or None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def canonical(value, rules, at=()):
    """``value`` with the multiset lists of ``rules`` (lists.rules_for)
    sorted, as text: equal texts are equal JSON values by the contract
    (json.dumps with sorted keys tells 1 from 1.0 and from true)."""
    return json.dumps(_canonical(value, rules, at), sort_keys=True)


def _canonical(value, rules, at):
    if isinstance(value, dict):
        return {key: _canonical(item, rules, at + (key,))
                for key, item in value.items()}
    if isinstance(value, list):
        items = [_canonical(item, rules, at + ('[]',)) for item in value]
        if lists.order_of(rules, at) == lists.MULTISET:
            items.sort(key=lambda item: json.dumps(item, sort_keys=True))
        return items
    return value


def _every_list_a_multiset(value):
    if isinstance(value, dict):
        return {key: _every_list_a_multiset(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return sorted((_every_list_a_multiset(item) for item in value),
                      key=lambda item: json.dumps(item, sort_keys=True))
    return value


def request_rules(method, uri):
    """The list rules of a request (``lists.rules_for`` of its path)."""
    return lists.rules_for(method, uri.split('?', 1)[0])


def same_body(mine, theirs, rules):
    """Whether two normalised bodies are equal by the contract."""
    if mine == theirs:
        return True
    a, b = load(mine), load(theirs)
    if a is None or b is None:
        return False
    return canonical(a, rules) == canonical(b, rules)


def differences(ours, up, uuid_map, body_judge=None, method='GET',
                uri='/'):
    """[(kind, detail)] between our answer and upstream's to ``method
    uri``.

    ``body_judge(ours, upstream)``, given the two normalised bodies when
    they differ by the contract, may accept ours as one upstream could
    give (the limit and cap rules of ``candidates``).
    """
    mine, my_headers = ours.normalised()
    theirs, their_headers = up.normalised(uuid_map)
    found = []
    if mine.status != theirs.status:
        found.append(('status', 'ours %s, upstream %s'
                      % (mine.status, theirs.status)))
    for name in sorted(set(my_headers) | set(their_headers)):
        a, b = my_headers.get(name), their_headers.get(name)
        if a == b:
            continue
        if a is None:
            found.append(('header %s missing' % name, 'upstream: %s' % b))
        elif b is None:
            found.append(('header %s extra' % name, 'ours: %s' % a))
        else:
            found.append(('header %s value' % name,
                          'ours %s, upstream %s' % (a, b)))
    rules = request_rules(method, uri)
    if not same_body(mine.body, theirs.body, rules) and not (
            body_judge and body_judge(mine.body, theirs.body)):
        kind = body_kind(mine.body, theirs.body, ours.status)
        found.append((kind, 'ours:     %s\n      upstream: %s'
                      % (_clip(mine.body), _clip(theirs.body))))
    return found


def body_kind(mine, theirs, status):
    """Name what kind of body difference this is."""
    a, b = load(mine), load(theirs)
    if a is None or b is None:
        return 'body text'
    if (json.dumps(_every_list_a_multiset(a), sort_keys=True)
            == json.dumps(_every_list_a_multiset(b), sort_keys=True)):
        return 'body list order'
    if status[:1] in '45' and isinstance(a, dict) and 'errors' in a:
        return 'body error detail'
    return 'body content'


def _clip(text, limit=1500):
    text = text.replace('\n', '\\n')
    return text if len(text) <= limit else text[:limit] + '...'
