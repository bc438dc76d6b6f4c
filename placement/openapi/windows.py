"""Microversion windows in the document: tagging and projection.

A window is a pair of ``microversion.Version`` (both ends included). In
the document it is written ``{"x-placement-microversions": {"min":
"1.2", "max": "1.39"}}`` on an operation, a parameter, a response, a
header or a schema branch. A schema whose shape changes with the
version is ``{"anyOf": [branch, ...]}`` with every branch tagged and no
two branches' windows overlapping, e.g.::

    {"anyOf": [
        {"x-placement-microversions": {"min": "1.1", "max": "1.18"},
         "type": "object", ...},
        {"x-placement-microversions": {"min": "1.19", "max": "1.39"},
         "type": "object", ...}]}

``at_version`` turns the whole document into the plain OpenAPI document
of one microversion. Pure functions on plain data; no I/O.
"""
import copy

from placement import microversion

KEY = 'x-placement-microversions'
# On a parameter required at some of its versions only: those versions.
REQUIRED_KEY = 'x-placement-required'
FULL = (microversion.MIN_VERSION, microversion.MAX_VERSION)


def span(low, high):
    """The extension's value for the window [low, high]."""
    return {'min': str(low), 'max': str(high)}


def tagged(node, low, high):
    """A copy of the dict ``node`` carrying the window [low, high] first."""
    new = {KEY: span(low, high)}
    new.update(copy.deepcopy(node))
    return new


def window_of(node):
    """The (low, high) Versions of a tagged dict; FULL when untagged."""
    value = node.get(KEY) if isinstance(node, dict) else None
    if value is None:
        return FULL
    return (microversion.parse_version(value['min']),
            microversion.parse_version(value['max']))


def covers(node, mv):
    low, high = window_of(node)
    return low <= mv <= high


_VERSIONS = [microversion.parse_version(v) for v in microversion.VERSIONS]


def previous(version):
    """The version just before ``version`` in microversion.VERSIONS
    (ValueError for the first)."""
    index = _VERSIONS.index(version)
    if index == 0:
        raise ValueError('no version before %s' % version)
    return _VERSIONS[index - 1]


def split(values, low, high):
    """[(low, high, value)] of the windows a value table gives in [low,
    high], merging neighbours with the same value.

    ``values`` is a ``microversion.Windows``, a list of (start, value)
    pairs, or one value for every version.
    """
    if isinstance(values, microversion.Windows):
        pairs = values.items()
    elif isinstance(values, list):
        pairs = [(microversion.parse_version(start), value)
                 for start, value in values]
    else:
        pairs = [(microversion.MIN_VERSION, values)]
    pieces = []
    for index, (start, value) in enumerate(pairs):
        end = (previous(pairs[index + 1][0]) if index + 1 < len(pairs)
               else microversion.MAX_VERSION)
        start, end = max(start, low), min(end, high)
        if start > end:
            continue
        if pieces and pieces[-1][2] == value:
            pieces[-1] = (pieces[-1][0], end, value)
        else:
            pieces.append((start, end, value))
    return pieces


def alternatives(pieces, render=lambda value: value):
    """One schema for [(low, high, value)]: the rendered value alone when
    there is one piece, else an anyOf of the tagged rendered values."""
    if len(pieces) == 1:
        return copy.deepcopy(render(pieces[0][2]))
    return {'anyOf': [tagged(render(value), low, high)
                      for low, high, value in pieces]}


# --- projection onto one microversion ---------------------------------------

def at_version(document, mv):
    """The plain OpenAPI document of microversion ``mv``: every tagged
    part outside ``mv`` removed, every version ``anyOf`` replaced by its
    one branch, the tags dropped, and the version header fixed."""
    mv = microversion.parse_version(mv)
    projected = project(document, mv)
    projected['info']['version'] = str(mv)
    projected['info']['description'] = (
        'The placement API at microversion %s only: send '
        '`OpenStack-API-Version: placement %s` with every request.'
        % (mv, mv))
    header = projected['components']['parameters']['OpenStackAPIVersion']
    header['required'] = True
    header['schema'] = {'type': 'string', 'const': 'placement %s' % mv}
    projected['paths'] = {path: item
                          for path, item in projected['paths'].items()
                          if any(key in _METHODS for key in item)}
    return projected


_METHODS = ('get', 'put', 'post', 'delete')


def _is_versioned(branches):
    return bool(branches) and isinstance(branches, list) and all(
        isinstance(b, dict) and KEY in b for b in branches)


def _present(node, mv):
    """Whether ``node`` exists at ``mv``: not tagged with another window,
    and not a version anyOf none of whose branches is ``mv``'s."""
    if not isinstance(node, dict):
        return True
    if not covers(node, mv):
        return False
    branches = node.get('anyOf')
    return not _is_versioned(branches) or any(
        covers(b, mv) for b in branches)


def project(node, mv):
    """Any part of the document (a schema, a response...) at ``mv``:
    what ``at_version`` does to the whole, without the header and the
    info."""
    if isinstance(node, list):
        return [project(item, mv) for item in node if _present(item, mv)]
    if not isinstance(node, dict):
        return node
    branches = node.get('anyOf')
    if _is_versioned(branches):
        chosen = [b for b in branches if covers(b, mv)]
        merged = {k: v for k, v in node.items() if k != 'anyOf'}
        merged.update(chosen[0])
        return project(merged, mv)
    projected = {key: project(value, mv) for key, value in node.items()
                 if key not in (KEY, REQUIRED_KEY) and _present(value, mv)}
    if REQUIRED_KEY in node:
        low, high = window_of({KEY: node[REQUIRED_KEY]})
        projected['required'] = low <= mv <= high
    return projected
