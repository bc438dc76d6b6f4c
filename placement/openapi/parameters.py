"""Path and query parameters and request bodies, from the schemas the
handlers validate with.

A query-string schema (``placement.schemas``) describes the query as
one object, ``{name: last value}``. Each named property becomes a query
parameter; each ``patternProperties`` key with an optional group suffix
(``^resources([1-9][0-9]*)?$``) becomes the unsuffixed parameter plus
one entry of the ``granular_groups`` object parameter, whose keys carry
the suffix. A parameter's window runs from the first to the last
version whose schema has it; its schema is an ``anyOf`` of windows
where it changes, e.g. where it may repeat (an array) from 1.24.
"""
import re

from placement import microversion
from placement.openapi import bodies
from placement.openapi import windows

_JSON = 'application/json'
GROUPS = 'granular_groups'
_SUFFIXED = re.compile(r'^\^([a-z_]+)(\(.*\))\?\$$')

PATH_SCHEMAS = {
    'uuid': bodies.UUID,
    'consumer_uuid': bodies.UUID,
    'resource_class': bodies.RESOURCE_CLASS,
    'name': bodies.RESOURCE_CLASS,
}
QUERY_DESCRIPTIONS = {
    'name': 'GET /resource_providers: a provider name. GET /traits: '
            '`in:NAME1,NAME2` or `startswith:PREFIX`.',
    'uuid': 'A provider uuid.',
    'member_of': 'An aggregate uuid, or `in:UUID1,UUID2` (any of); from '
                 '1.32 a leading `!` forbids. Repeatable (ANDed) from '
                 '1.24.',
    'resources': 'Amounts by class, e.g. `VCPU:4,MEMORY_MB:2048`.',
    'in_tree': 'A provider uuid: only providers of its tree.',
    'required': 'Trait names, comma-separated; from 1.22 a leading `!` '
                'forbids; from 1.39 `in:T1,T2` (any of), and repeatable '
                '(ANDed).',
    'limit': 'At most this many allocation requests.',
    'group_policy': 'How suffixed groups share providers: `none` or '
                    '`isolate` (required with two or more suffixed '
                    'groups).',
    'root_required': 'Traits (or `!`forbidden traits) the root provider '
                     'of each candidate tree must satisfy.',
    'same_subtree': 'Group suffixes, comma-separated, whose providers '
                    'share one subtree. Repeatable.',
    'associated': '`true` or `false`: only traits some provider has (or '
                  'none has).',
    'project_id': 'The project whose usages to sum.',
    'user_id': 'Only the usages of this user.',
    'consumer_type': 'Only the usages of this consumer type; `all` or '
                     '`unknown` (untyped consumers) also work.',
}
_PATH_DESCRIPTIONS = {
    'uuid': 'The uuid of a resource provider.',
    'consumer_uuid': 'The uuid of a consumer.',
    'resource_class': 'The name of a resource class.',
    'name': 'The name of the resource class or trait.',
}


def path_parameters(template, op, low, high):
    """The path parameters of ``template``, all required."""
    result = []
    for name in re.findall(r'\{(\w+)\}', template):
        schema = op.path.get(name, PATH_SCHEMAS[name])
        result.append({
            'name': name, 'in': 'path', 'required': True,
            'description': _PATH_DESCRIPTIONS[name],
            'schema': windows.alternatives(
                windows.split(schema, low, high))})
    return result


def request_body(op, low, high):
    """The requestBody object, tagged when some windows have no body;
    None when no version of the operation takes one."""
    pieces = [piece for piece in windows.split(op.body, low, high)
              if piece[2] is not None]
    if not pieces:
        return None
    body = {'required': True, 'content': {
        _JSON: {'schema': windows.alternatives(pieces)}}}
    if (pieces[0][0], pieces[-1][1]) != (low, high):
        body = windows.tagged(body, pieces[0][0], pieces[-1][1])
    return body


# --- query parameters -------------------------------------------------------

def query_parameters(op, low, high):
    """The query parameters of ``op`` in [low, high]."""
    if op.query is None:
        return []
    named, groups = _collect(windows.split(op.query, low, high))
    repeatable = {name: microversion.parse_version(since)
                  for name, since in op.repeatable}
    result = [_parameter(name, _repeating(pieces, repeatable.get(name)),
                         low, high)
              for name, pieces in named.items()]
    if groups:
        result.append(_groups_parameter(groups, repeatable, low, high))
    return result


def _plain(schema):
    """``schema`` with a one-type list (``['string']``) as that type:
    the same schema, so that equal windows merge."""
    if isinstance(schema.get('type'), list) and len(schema['type']) == 1:
        return dict(schema, type=schema['type'][0])
    return schema


def _collect(pieces):
    """({name: [(low, high, schema, required)]}, [(low, high, {key
    pattern: (base name, schema)})]) of the query schemas' windows."""
    named, groups = {}, []
    for low, high, schema in pieces:
        required = set(schema.get('required', ()))
        for name, prop in schema.get('properties', {}).items():
            named.setdefault(name, []).append(
                (low, high, _plain(prop), name in required))
        suffixed = {}
        for pattern, prop in schema.get('patternProperties', {}).items():
            prop = _plain(prop)
            match = _SUFFIXED.match(pattern)
            base, suffix = match.group(1), match.group(2)
            named.setdefault(base, []).append(
                (low, high, prop, base in required))
            suffixed['^%s%s$' % (base, suffix)] = (base, prop)
        if suffixed:
            groups.append((low, high, suffixed))
    return named, groups


def _repeating(pieces, since):
    """``pieces`` with the schema an array of itself from ``since``."""
    if since is None:
        return pieces
    result = []
    for low, high, schema, required in pieces:
        if high < since:
            result.append((low, high, schema, required))
            continue
        if low < since:
            result.append((low, windows.previous(since), schema, required))
            low = since
        result.append((low, high, _array(schema), required))
    return result


def _array(schema):
    return {'type': 'array', 'items': schema}


def _parameter(name, pieces, low, high):
    """One query parameter from its [(low, high, schema, required)]."""
    first, last = pieces[0][0], pieces[-1][1]
    schemas = _merged([(lo, hi, schema) for lo, hi, schema, _ in pieces])
    required = _merged([(lo, hi, is_required)
                        for lo, hi, _, is_required in pieces])
    parameter = {'name': name, 'in': 'query',
                 'description': QUERY_DESCRIPTIONS[name],
                 'required': all(value for _, _, value in required),
                 'schema': windows.alternatives(schemas)}
    if any(value for _, _, value in required) and not parameter['required']:
        lo, hi = next((lo, hi) for lo, hi, value in required if value)
        parameter[windows.REQUIRED_KEY] = windows.span(lo, hi)
    if schemas[-1][2].get('type') == 'array':
        parameter['explode'] = True
    if (first, last) != (low, high):
        parameter = windows.tagged(parameter, first, last)
    return parameter


def _merged(pieces):
    """Neighbouring (low, high, value) pieces with equal values joined."""
    result = []
    for low, high, value in pieces:
        if result and result[-1][2] == value and \
                result[-1][1] == windows.previous(low):
            result[-1] = (result[-1][0], high, value)
        else:
            result.append((low, high, value))
    return result


def _groups_parameter(groups, repeatable, low, high):
    """The suffixed request groups as one exploded object parameter."""
    pieces = []
    for lo, hi, suffixed in groups:
        for start, end in _cuts(lo, hi, repeatable.values()):
            pieces.append((start, end, bodies.keyed_any({
                key: (_array(schema) if base in repeatable
                      and start >= repeatable[base] else schema)
                for key, (base, schema) in suffixed.items()})))
    pieces = _merged(pieces)
    parameter = {
        'name': GROUPS, 'in': 'query', 'required': False,
        'style': 'form', 'explode': True,
        'description': 'The suffixed request groups: resourcesN, '
                       'requiredN, member_ofN and (from 1.31) in_treeN, '
                       'where N is a number (1.25 - 1.32) or 1 to 64 of '
                       '[a-zA-Z0-9_-] (1.33+); each key is a query '
                       'parameter of its own.',
        'schema': windows.alternatives(pieces)}
    first, last = pieces[0][0], pieces[-1][1]
    if (first, last) != (low, high):
        parameter = windows.tagged(parameter, first, last)
    return parameter


def _cuts(low, high, versions):
    """[low, high] cut before each of ``versions`` inside it."""
    inside = sorted(v for v in set(versions) if low < v <= high)
    starts = [low] + inside
    ends = [windows.previous(v) for v in inside] + [high]
    return list(zip(starts, ends))
