"""Request shapes of ``[capacity] shape``: parsed as GET
/allocation_candidates parses its query string.

A shape is ``NAME = QUERY``. The query goes through the same schema
(at the latest microversion) and the same parser (querystring) as the
API's, so a bad shape fails with the API's own 400 message, named by
the shape. Used at start by /metrics and by ``placement-manage
capacity``; no request is served here.
"""
import typing

import webob
import webob.exc

from placement import exception
from placement.handlers import querystring
from placement import microversion
from placement.schemas import allocation_candidate as schema
from placement.solver import model
from placement import util


class ShapeError(ValueError):
    """A shape the API would refuse, or a badly written option."""


class Shape(typing.NamedTuple):
    """A named request shape: its query string and its parsed query."""

    name: str
    query_string: str
    query: model.CandidateQuery


def api_detail(exc) -> str:
    """The message of an HTTP error as the API's JSON error body spells
    it (the formatter strips tags and line breaks)."""
    return ' '.join(webob.exc.strip_tags(exc.detail).split())


def parse_query(name, query_string) -> Shape:
    """The Shape of ``query_string`` (a query of GET
    /allocation_candidates at the latest microversion); ShapeError
    with the API's message otherwise. A ``limit`` is ignored: every
    claim is counted."""
    mv = microversion.MAX_VERSION
    req = webob.Request.blank('/allocation_candidates?' + query_string)
    try:
        params = util.validate_query(req, schema.GET_SCHEMA.at(mv))
        query = querystring.parse_candidate_query(
            params, mv, util.query_pairs(req))
    except webob.exc.HTTPException as exc:
        raise ShapeError('shape %s: %s' % (name, api_detail(exc)))
    return Shape(name, query_string, query)


def parse_option(value) -> Shape:
    """'NAME = QUERY' (one ``[capacity] shape`` value) -> Shape."""
    name, equals, query_string = value.partition('=')
    name, query_string = name.strip(), query_string.strip()
    if not equals or not name or not query_string:
        raise ShapeError(
            '[capacity] shape must be NAME = QUERY (a query string of GET '
            '/allocation_candidates), got: %s' % value)
    return parse_query(name, query_string)


def parse_options(values) -> typing.Tuple[Shape, ...]:
    """Every ``[capacity] shape`` value, in order; a name given twice is
    a ShapeError."""
    shapes = tuple(parse_option(value) for value in values)
    seen = set()
    for shape in shapes:
        if shape.name in seen:
            raise ShapeError('[capacity] shape %s is given twice'
                             % shape.name)
        seen.add(shape.name)
    return shapes


def configured(conf) -> typing.Tuple[Shape, ...]:
    """The shapes of ``conf``'s ``[capacity] shape``; a bad one is an
    exception.ConfigError naming it, in the API's words (at start)."""
    try:
        return parse_options(conf.capacity.shape)
    except ShapeError as exc:
        raise exception.ConfigError(reason=str(exc))
