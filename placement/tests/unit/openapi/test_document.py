"""The published OpenAPI document: current, valid, and the route table's.

The committed file must be what the builder makes now; it must be a
valid OpenAPI 3.1 document (and so must its projections); it must have
every route and method of ``handler.ROUTE_DECLARATIONS`` with the
handlers' windows, and nothing else; and its request schemas, query
parameters and path parameters must be, version by version, the ones
the handlers validate with (one source, two uses).
"""
import functools
import json
import re
import unittest

from openapi_spec_validator import OpenAPIV31SpecValidator

from placement import handler
from placement import microversion
from placement.openapi import builder
from placement.openapi import document
from placement.openapi import operations
from placement.openapi import windows

V = microversion.parse_version
ALL_VERSIONS = [V(v) for v in microversion.VERSIONS]
METHODS = ('get', 'put', 'post', 'delete')


@functools.lru_cache(maxsize=None)
def _document():
    return builder.build()


@functools.lru_cache(maxsize=None)
def _projection(mv):
    return windows.at_version(_document(), mv)


def _declared():
    """{(template, METHOD): (low, high)} of the route table."""
    result = {}
    for template, methods in handler.ROUTE_DECLARATIONS.items():
        for method, handlers in methods.items():
            declared = builder.handler_windows(handlers)
            result[(template, method)] = (declared[0][0], declared[-1][1])
    return result


def _documented():
    return {(template, method.upper()): windows.window_of(operation)
            for template, item in _document()['paths'].items()
            for method, operation in item.items()}


class TestPublished(unittest.TestCase):

    def test_the_published_file_is_what_the_builder_makes(self):
        self.assertEqual(
            document.dumps(builder.build()), document.published_text(),
            'api-ref/source/_extra/openapi.json is stale: run '
            '"python -m placement.openapi" and commit the result')

    def test_building_twice_gives_the_same_document(self):
        self.assertEqual(json.dumps(builder.build()),
                         json.dumps(builder.build()))

    def test_the_document_is_valid_openapi_3_1(self):
        errors = list(OpenAPIV31SpecValidator(_document()).iter_errors())
        self.assertEqual([], [error.message for error in errors])

    def test_the_oldest_and_newest_projections_are_valid_openapi_3_1(self):
        for mv in (microversion.MIN_VERSION, microversion.MAX_VERSION):
            with self.subTest(version=str(mv)):
                errors = list(OpenAPIV31SpecValidator(
                    _projection(mv)).iter_errors())
                self.assertEqual([], [error.message for error in errors])


class TestRoutes(unittest.TestCase):

    def test_every_route_and_method_is_documented_and_nothing_else(self):
        self.assertEqual(set(_declared()), set(_documented()))

    def test_each_operation_has_its_handlers_window(self):
        self.assertEqual(_declared(), _documented())

    def test_the_operations_table_has_exactly_the_routes(self):
        self.assertEqual(set(_declared()), set(operations.OPERATIONS))

    def test_a_projection_has_the_operations_of_its_version(self):
        for mv in ALL_VERSIONS:
            expected = {key for key, (low, high) in _declared().items()
                        if low <= mv <= high}
            found = {(template, method.upper())
                     for template, item in _projection(mv)['paths'].items()
                     for method in item if method in METHODS}
            self.assertEqual(expected, found, str(mv))

    def test_operation_ids_are_unique(self):
        ids = [operation['operationId']
               for item in _document()['paths'].values()
               for operation in item.values()]
        self.assertEqual(len(ids), len(set(ids)))


def _operations(mv):
    for template, item in _projection(mv)['paths'].items():
        for method, operation in item.items():
            yield template, method.upper(), operation


class TestOneSource(unittest.TestCase):
    """What the document says of requests is what the handlers check."""

    def test_request_bodies_are_the_handlers_schemas(self):
        for mv in ALL_VERSIONS:
            for template, method, operation in _operations(mv):
                expected = operations.OPERATIONS[(template, method)].body
                pieces = windows.split(expected, mv, mv)
                expected = pieces[0][2] if pieces else None
                found = operation.get('requestBody', {}).get(
                    'content', {}).get('application/json', {}).get('schema')
                self.assertEqual(expected, found,
                                 '%s %s at %s' % (method, template, mv))

    def test_query_parameters_are_the_query_schemas_keys(self):
        for mv in ALL_VERSIONS:
            for template, method, operation in _operations(mv):
                query = operations.OPERATIONS[(template, method)].query
                names = {p['name'] for p in operation['parameters']
                         if p.get('in') == 'query'}
                expected = set()
                if query is not None:
                    schema = windows.split(query, mv, mv)[0][2]
                    expected = set(schema.get('properties', ()))
                    expected |= {pattern[1:].split('(')[0] for pattern
                                 in schema.get('patternProperties', ())}
                    if schema.get('patternProperties'):
                        expected.add('granular_groups')
                self.assertEqual(expected, names,
                                 '%s %s at %s' % (method, template, mv))

    def test_required_query_parameters_are_the_schemas(self):
        required = {p['name'] for p in _projection(V('1.24'))['paths'][
            '/allocation_candidates']['get']['parameters']
            if p.get('required')}
        self.assertEqual({'resources'}, required)
        required = {p['name'] for p in _projection(V('1.25'))['paths'][
            '/allocation_candidates']['get']['parameters']
            if p.get('required')}
        self.assertEqual(set(), required)

    def test_path_parameters_are_the_templates_variables(self):
        for template, method, operation in _operations(
                microversion.MAX_VERSION):
            names = [p['name'] for p in operation['parameters']
                     if p.get('in') == 'path']
            self.assertEqual(re.findall(r'\{(\w+)\}', template), names)


class TestVersionedSchemas(unittest.TestCase):

    def _versioned_anyofs(self, node, path=''):
        if isinstance(node, list):
            for index, item in enumerate(node):
                yield from self._versioned_anyofs(item, '%s/%d' % (path,
                                                                   index))
        elif isinstance(node, dict):
            branches = node.get('anyOf')
            if branches and any(windows.KEY in b for b in branches):
                yield path, branches
            for key, value in node.items():
                yield from self._versioned_anyofs(value, path + '/' + key)

    def test_version_branches_are_all_tagged_ordered_and_disjoint(self):
        found = list(self._versioned_anyofs(_document()))
        self.assertGreaterEqual(len(found), 20)
        for path, branches in found:
            self.assertTrue(all(windows.KEY in b for b in branches), path)
            spans = [windows.window_of(b) for b in branches]
            for (_, high), (low, _) in zip(spans, spans[1:]):
                self.assertLess(high, low, path)

    def test_every_version_of_the_list_changes_something(self):
        # A version anyOf never has two neighbours that are the same.
        for path, branches in self._versioned_anyofs(_document()):
            plain = [{k: v for k, v in b.items() if k != windows.KEY}
                     for b in branches]
            for left, right in zip(plain, plain[1:]):
                self.assertNotEqual(left, right, path)

    def test_a_projection_has_no_version_tags_left(self):
        for mv in ALL_VERSIONS:
            text = json.dumps(_projection(mv))
            self.assertNotIn('x-placement-', text, str(mv))
            self.assertEqual(str(mv), _projection(mv)['info']['version'])
