"""Parsing the query-string grammar shared by several routes.

``resources``, ``required`` (traits), ``member_of`` (aggregates) and
``in_tree`` values, with the error messages clients know. Semantic checks
(does the class or trait exist?) happen in the operation, which raises
NotFound-type exceptions that the handler turns into 400s.
"""
import webob.exc

from placement import microversion
from placement.solver import model
from placement import util

MAX_AMOUNT = 2147483647

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
        if amount > MAX_AMOUNT:
            raise bad_request('Requested resource %s requires amount <= %d. '
                              'Got: %d.' % (name, MAX_AMOUNT, amount))
        resources[name] = amount
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


def parse_member_of(values, mv):
    """The values of one ``member_of`` key -> AggregateFilter.

    Repeats (ANDed) from 1.24; ``!uuid`` and ``!in:`` from 1.32.
    """
    if len(values) > 1 and mv < microversion.MULTI_MEMBER_OF:
        raise bad_request('Multiple member_of parameters are not supported')
    required, forbidden = [], set()
    for original in values:
        value = original
        is_forbidden = value.startswith('!')
        if is_forbidden:
            if mv < microversion.FORBIDDEN_AGGREGATES:
                raise bad_request('Forbidden member_of parameters are not '
                                  'supported in the specified microversion')
            value = value[1:]
        uuids = _member_of_uuids(value, original)
        if is_forbidden:
            forbidden |= uuids
        else:
            required.append(uuids)
    return model.AggregateFilter(tuple(required), frozenset(forbidden))


def parse_in_tree(value):
    """A provider uuid (schema-checked already), normalised."""
    return util.normalize_uuid(value)
