"""Parsing the query-string grammar shared by several routes.

``resources``, ``required`` (traits), ``member_of`` (aggregates) and
``in_tree`` values, with the error messages clients know. Semantic checks
(does the class or trait exist?) happen in the operation, which raises
NotFound-type exceptions that the handler turns into 400s.
"""
import re

import os_resource_classes as orc

import webob.exc

from placement import errors
from placement import microversion
from placement.solver import model
from placement import util

# No inventory's max_unit exceeds this (the inventory schema's maximum),
# so no provider can give more: upstream answers a larger amount (any
# size) with an empty list, as for any amount nothing fits, and so do
# we, asking for one more than this (which still fits a BIGINT).
MAX_AMOUNT = 2147483647
MAX_LIMIT = 2 ** 31 - 1

_RESOURCES_FORM = ('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.')
_QUERY_PREFIX = 'Invalid query string parameters: '


def bad_request(detail, code=None):
    return util.http_error(webob.exc.HTTPBadRequest, detail, code=code)


def parse_resources(value):
    """'VCPU:2,MEMORY_MB:1024' -> {'VCPU': 2, 'MEMORY_MB': 1024}."""
    if not value:
        raise bad_request(_RESOURCES_FORM % 'empty string')
    resources = {}
    for item in value.split(','):
        try:
            name, amount = item.split(':')
        except ValueError:
            raise bad_request(_RESOURCES_FORM % item)
        try:
            amount = int(amount)
        except ValueError:
            raise bad_request('Requested resource %s expected positive '
                              'integer amount. Got: %s.' % (name, amount))
        if amount < 1:
            raise bad_request('Requested resource %s requires amount >= 1. '
                              'Got: %d.' % (name, amount))
        resources[name] = min(amount, MAX_AMOUNT + 1)
    return resources


def _split_names(value):
    return [item.strip() for item in value.split(',')]


def _parse_any_of(value, mv, param):
    if mv < microversion.ANY_TRAITS:
        raise bad_request(
            _QUERY_PREFIX + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
            "only supported since microversion 1.39. Got: %s" % value)
    names = _split_names(value[len('in:'):])
    if not all(names):
        raise bad_request(
            _QUERY_PREFIX + "Expected '%s' parameter value of the form: "
            "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: %s"
            % (param, value))
    if any(name.startswith('!') for name in names):
        raise bad_request(
            _QUERY_PREFIX + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
            "does not support forbidden traits. Got: %s" % value)
    return frozenset(names)


def _parse_all_of(value, mv, param):
    """'A,!B' -> ({'A'}, {'B'}); several leading '!' count as one."""
    allow_forbidden = mv >= microversion.FORBIDDEN_TRAITS
    required, forbidden = set(), set()
    for item in _split_names(value):
        if item.startswith('!') and not allow_forbidden:
            raise bad_request(
                _QUERY_PREFIX + "Expected '%s' parameter value of the form: "
                "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s" % (param, value))
        name = item.lstrip('!')
        if not name:
            form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                    else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
            raise bad_request(
                _QUERY_PREFIX + "Expected '%s' parameter value of the form: "
                "%s. Got an empty trait in: %s" % (param, form, value))
        (forbidden if item.startswith('!') else required).add(name)
    return required, forbidden


def parse_required(values, mv, param='required'):
    """The values of one ``required`` key (in order) -> TraitFilter.

    Before 1.39 only the last value counts; from 1.39 repeats are ANDed
    and a value may be ``in:A,B`` (any of).
    """
    if mv < microversion.ANY_TRAITS:
        values = values[-1:]
    required, forbidden, any_of = set(), set(), []
    for value in values:
        if value.startswith('in:'):
            any_of.append(_parse_any_of(value, mv, param))
            continue
        more_required, more_forbidden = _parse_all_of(value, mv, param)
        required |= more_required
        forbidden |= more_forbidden
    return model.TraitFilter(frozenset(required), frozenset(forbidden),
                             tuple(any_of))


def _member_of_uuids(value, original):
    if value.startswith('in:'):
        uuids = value[len('in:'):].split(',')
    elif ',' in value:
        raise bad_request(
            "Multiple values for 'member_of' must be prefixed with the "
            "'in:' or '!in:' keyword using the valid microversion. Got: %s"
            % original)
    else:
        uuids = [value]
    for candidate in uuids:
        if not util.is_uuid_like(candidate):
            raise bad_request(
                _QUERY_PREFIX + "Expected 'member_of' parameter to contain "
                "valid UUID(s). Got: %s" % candidate)
    return frozenset(uuids)


def parse_member_of(values, mv, suffix=''):
    """The values of one ``member_of`` key -> AggregateFilter.

    Repeats (ANDed) from 1.24; ``!uuid`` and ``!in:`` from 1.32. Only the
    forbidden-aggregates 400 names the group's key with its suffix, as
    the reference service's does.
    """
    if len(values) > 1 and mv < microversion.MULTI_MEMBER_OF:
        raise bad_request('Multiple member_of parameters are not supported')
    required, forbidden = [], set()
    for original in values:
        is_forbidden = original.startswith('!')
        value = original[1:] if is_forbidden else original
        # The uuids are judged before the microversion allows the '!'.
        uuids = _member_of_uuids(value, original)
        if is_forbidden and mv < microversion.FORBIDDEN_AGGREGATES:
            raise bad_request('Forbidden member_of%s parameters are not '
                              'supported in the specified microversion'
                              % suffix)
        if is_forbidden:
            forbidden |= uuids
        else:
            required.append(uuids)
    return model.AggregateFilter(tuple(required), frozenset(forbidden))


def parse_in_tree(value):
    """A provider uuid (schema-checked already), as given: the lookup
    decides whether 'ABC...' names 'abc...' (the database's collation
    does, as for the reference service)."""
    return value


# --- GET /allocation_candidates: request groups and request-wide keys ----

_GROUP_KEYS = ('resources', 'required', 'member_of', 'in_tree')
_GROUP_KEY_RE = re.compile(r'^(resources|required|member_of|in_tree)(.*)$')


def split_group_keys(params):
    """{suffix: {key: [values]}} of the group keys, in first-seen order
    of suffixes ('' is the unsuffixed group). Keys were schema-checked.
    """
    groups = {}
    for key, values in params.items():
        match = _GROUP_KEY_RE.match(key)
        if match:
            name, suffix = match.groups()
            groups.setdefault(suffix, {})[name] = values
    return groups


def parse_in_tree_value(value):
    """An in_tree value -> a normalised uuid, or the documented 400."""
    if not util.is_uuid_like(value):
        raise bad_request(
            _QUERY_PREFIX + "Expected 'in_tree' parameter to be a format of "
            "uuid. Got: %s" % value)
    return parse_in_tree(value)


# How each group key reads (one value, every value of the key, version,
# the group's suffix):
# ``resources`` and ``in_tree`` read each value given (the last one
# wins); ``required`` and ``member_of`` all the key's values at once.
_GROUP_PARSERS = {
    'resources': lambda value, values, mv, sfx: parse_resources(value),
    'in_tree': lambda value, values, mv, sfx: parse_in_tree_value(value),
    'required': lambda value, values, mv, sfx: parse_required(values, mv),
    'member_of': lambda value, values, mv, sfx: parse_member_of(
        values, mv, sfx),
}


def parse_groups(pairs, mv):
    """The query's (key, value) pairs, in order -> (RequestGroup, ...),
    the unsuffixed group first, then by suffix.

    Every value is parsed in the order the query gives it, as the
    reference service does, so the first bad one there is the 400: in
    ``resources=VCPU:1&in_tree=x&resources=VCPU:y``, the in_tree.
    """
    values, parsed = {}, {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    for key, value in pairs:
        match = _GROUP_KEY_RE.match(key)
        if match is None:
            continue
        name, suffix = match.groups()
        keys = parsed.setdefault(suffix, {})
        if name in _ALL_VALUES and name in keys:
            continue  # parsed at its first appearance
        keys[name] = _GROUP_PARSERS[name](value, values[key], mv, suffix)
    return tuple(_request_group(suffix, keys)
                 for suffix, keys in sorted(parsed.items()))


_ALL_VALUES = ('required', 'member_of')


def _request_group(suffix, keys):
    return model.RequestGroup(
        suffix, tuple(keys.get('resources', {}).items()),
        keys.get('required', model.TraitFilter()),
        keys.get('member_of', model.AggregateFilter()),
        keys.get('in_tree'))


def parse_limit(values):
    """The values of ``limit`` -> the limit, None for none: the first
    value counts, as the reference service reads it (Python's int()); the
    schema checked the last. A first value of 0 (0, 00, -0) is no limit
    there, every candidate: here too. More candidates than MAX_LIMIT
    never exist.

    A first value that is no integer, or below 0, is a 400 (the reference
    service fails on the first, 500, and reads the others as a slice
    bound: all but the last n candidates of its order).
    """
    try:
        limit = int(values[0])
    except ValueError:
        limit = -1
    if limit == 0:
        return None
    if limit < 1:
        raise bad_request(
            _QUERY_PREFIX + "Expected the first 'limit' to be a positive "
            "integer. Got: %s" % values[0])
    return min(limit, MAX_LIMIT)


def parse_root_required(values, mv):
    """root_required (once; no in:) -> TraitFilter; 400 on conflicts."""
    if len(values) > 1:
        raise bad_request("Query parameter 'root_required' may be "
                          "specified only once.",
                          code=errors.ILLEGAL_DUPLICATE_QUERYPARAM)
    value = values[0]
    if value.startswith('in:'):
        raise bad_request(
            _QUERY_PREFIX + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
            "only supported since microversion 1.39. Got: %s" % value)
    required, forbidden = _parse_all_of(value, mv, 'required')
    conflicts = required & forbidden
    if conflicts:
        raise bad_request(
            'Conflicting required and forbidden traits found in '
            'root_required: %s' % ', '.join(sorted(conflicts)),
            code=errors.QUERYPARAM_BAD_VALUE)
    return model.TraitFilter(frozenset(required), frozenset(forbidden))


def parse_same_subtree(values):
    """Each same_subtree value -> a tuple of suffixes (none empty)."""
    same_subtrees = []
    for value in values:
        suffixes = tuple(item.strip() for item in value.split(','))
        if not all(suffixes):
            raise bad_request(
                'Empty string (unsuffixed group) can not be specified in '
                '`same_subtree` ', code=errors.QUERYPARAM_BAD_VALUE)
        same_subtrees.append(suffixes)
    return tuple(same_subtrees)


def check_resourceless(groups, same_subtrees):
    """From 1.36: groups without resources must be in same_subtree, and
    every suffix in same_subtree must name a group.
    """
    if not any(group.resources for group in groups):
        raise bad_request('There must be at least one resources or '
                          'resources[$S] parameter.',
                          code=errors.QUERYPARAM_MISSING_VALUE)
    listed = {sfx for suffixes in same_subtrees for sfx in suffixes}
    orphans = [g.suffix for g in groups
               if not g.resources and g.suffix not in listed]
    if orphans:
        raise bad_request(
            'Resourceless suffixed group request should be specified in '
            '`same_subtree` query param: bad group(s) - %s.' % orphans,
            code=errors.QUERYPARAM_BAD_VALUE)
    known = sorted(g.suffix for g in groups)
    # Each once, as the reference service names them (a set there).
    unknown = list(dict.fromkeys(
        sfx for suffixes in same_subtrees for sfx in suffixes
        if sfx not in known))
    if unknown:
        raise bad_request(
            'Real suffixes should be specified in `same_subtree`: '
            '%s not found in %s.' % (unknown, known),
            code=errors.QUERYPARAM_BAD_VALUE)


def check_all_have_resources(group_keys, groups):
    """Before 1.36: every group key set must include resources.

    A ``required`` key of forbidden traits only is no orphan of traits,
    as in the reference service (its group is still one without
    resources); any ``member_of`` key is.
    """
    if not group_keys:
        raise bad_request('At least one request group (`resources` or '
                          '`resources{$S}`) is required.')
    required = {group.suffix for group in groups if group.traits.required}
    for name, label in (('required', 'traits'), ('member_of', 'member_of')):
        orphans = [name + sfx for sfx, keys in group_keys.items()
                   if name in keys and 'resources' not in keys
                   and (name != 'required' or sfx in required)]
        if orphans:
            raise bad_request(
                'All %s parameters must be associated with resources.%s'
                'Found the following orphaned %s keys: %s'
                % (label, '  ' if label == 'traits' else ' ', label,
                   ', '.join(orphans)))
    if any('resources' not in keys for keys in group_keys.values()):
        raise bad_request('All request groups must specify resources.')


def check_trait_conflicts(groups):
    """A trait both required and forbidden (or an any-of set entirely
    forbidden) in one group -> 400.
    """
    found = []
    for group in groups:
        traits = group.traits
        bad = set(traits.required & traits.forbidden)
        for any_of in traits.any_of:
            if any_of <= traits.forbidden:
                bad |= any_of
        if bad:
            found.append('required%s: (%s)'
                         % (group.suffix, ', '.join(sorted(bad))))
    if found:
        raise bad_request('Conflicting required and forbidden traits found '
                          'in the following traits keys: %s'
                          % ', '.join(found))


def check_group_policy(groups, group_policy):
    if group_policy is None and sum(1 for g in groups if g.suffix) > 1:
        raise bad_request(
            'The "group_policy" parameter is required when specifying '
            'more than one "resources{N}" parameter.')


def listing_order(params):
    """({suffix: rank}, {class: rank}): the order upstream lists a
    candidate's groups and each provider's classes in.

    Groups come in the order the query string first names them. Classes
    come group by group; within a numbered group in the order its
    ``resources`` lists them, within the unsuffixed group in standard
    class order (custom classes after). Call after parse_candidate_query.
    """
    groups = split_group_keys(params)
    class_rank = {}
    for rank, (suffix, keys) in enumerate(groups.items()):
        names = [item.split(':')[0]
                 for item in keys.get('resources', [''])[-1].split(',')]
        if not suffix:
            names.sort(key=_standard_rank)
        for position, name in enumerate(names):
            class_rank.setdefault(name, (rank, position))
    return {suffix: rank for rank, suffix in enumerate(groups)}, class_rank


def _standard_rank(name):
    try:
        return (0, orc.STANDARDS.index(name))
    except ValueError:
        return (1, name)


def parse_candidate_query(params, mv, pairs=None):
    """Schema-checked {key: [values]} of GET /allocation_candidates ->
    model.CandidateQuery. Raises every grammar 400, in the reference
    service's order: limit, root_required, same_subtree, then the groups'
    keys in the order of ``pairs`` (the query's (key, value) pairs; by
    default ``params`` key by key), then the rules across groups. Class
    and trait existence are checked later.
    """
    limit = None
    if 'limit' in params:
        limit = parse_limit(params['limit'])
    root_traits = model.TraitFilter()
    if 'root_required' in params:
        root_traits = parse_root_required(params['root_required'], mv)
    same_subtrees = parse_same_subtree(params.get('same_subtree', ()))
    if pairs is None:
        pairs = [(key, value) for key, values in params.items()
                 for value in values]
    groups = parse_groups(pairs, mv)
    group_keys = split_group_keys(params)
    if mv >= microversion.SAME_SUBTREE:
        check_resourceless(groups, same_subtrees)
    else:
        check_all_have_resources(group_keys, groups)
    if mv >= microversion.FORBIDDEN_TRAITS:
        check_trait_conflicts(groups)
    group_policy = params.get('group_policy', [None])[0]
    check_group_policy(groups, group_policy)
    return model.CandidateQuery(
        groups=groups, group_policy=group_policy,
        same_subtrees=same_subtrees, root_traits=root_traits, limit=limit,
        nested_aware=mv >= microversion.NESTED_CANDIDATES,
        name_checks=name_checks(params, pairs, groups, mv))


def name_checks(params, pairs, groups, mv):
    """The model.NameCheck steps of a candidates query (see there): the
    order in which the reference service finds a name unknown, or a
    group that can match nothing, and stops. The groups come in the
    order the query's (key, value) ``pairs`` first name each; traits in
    the order of their key's values in ``params``."""
    checks = [model.NameCheck(None, model.TRAIT, name)
              for name in _trait_order(params.get('root_required', ()), mv)]
    by_suffix = {group.suffix: group for group in groups}
    matches = filter(None, (_GROUP_KEY_RE.match(key) for key, _ in pairs))
    for suffix in dict.fromkeys(match.group(2) for match in matches):
        group = by_suffix[suffix]
        checks += [model.NameCheck(suffix, model.CLASS, rc)
                   for rc, _ in group.resources]
        checks += [model.NameCheck(suffix, model.AGGREGATES, uuids)
                   for uuids in group.aggregates.required]
        checks += [model.NameCheck(suffix, model.TRAIT, name) for name in
                   _trait_order(params.get('required' + suffix, ()), mv)]
    return tuple(checks)


def _trait_order(values, mv):
    """The trait names of one key's values (as parse_required reads
    them): required ones in the order written, then forbidden ones."""
    if mv < microversion.ANY_TRAITS:
        values = values[-1:]
    required, forbidden = [], []
    for value in values:
        if value.startswith('in:'):
            required += _split_names(value[len('in:'):])
            continue
        for item in _split_names(value):
            (forbidden if item.startswith('!') else required).append(
                item.lstrip('!'))
    return required + forbidden
