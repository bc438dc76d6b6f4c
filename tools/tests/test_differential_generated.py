"""The differential's generated mode carries hostile but valid values.

``tools/differential --generated`` draws from
``differential_lib.generated.requests``, which includes
``testing.hostile.valid_requests``: well-formed requests that write and
read back hostile names, ids and consumer types. Each must be valid by
the request schemas (placement/schemas) so that both services store it,
and the values must be as hostile as promised. Checked on drawn
examples, with no service.
"""
import json
import urllib.parse

import hypothesis
import jsonschema
import testtools

from placement.schemas import allocation
from placement.schemas import resource_class
from placement.schemas import resource_provider
from placement.schemas import usage
from placement.testing import hostile
from placement.testing import seed_data
from tools.differential_lib import generated

SCHEMAS = {
    ('POST', 'resource_providers'): resource_provider.POST_PROVIDER_V1_14,
    ('PUT', 'resource_providers'): resource_provider.PUT_PROVIDER_V1_14,
    ('PUT', 'allocations'): allocation.PUT_ALLOCATIONS_V1_38,
}
SETTINGS = hypothesis.settings(max_examples=150, database=None,
                               deadline=None, derandomize=True)


def _validate(schema, value):
    jsonschema.validate(value, schema,
                        format_checker=jsonschema.FormatChecker())


class TestValidRequests(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.known = seed_data.world(22)[0]

    def test_the_generated_mode_draws_them(self):
        self.assertIn('valid_requests', repr(generated.requests(self.known)))

    def test_each_is_valid_by_the_schemas(self):
        @SETTINGS
        @hypothesis.given(hostile.valid_requests(self.known))
        def check(request):
            segments = request.path.strip('/').split('/')
            if request.body:
                body = json.loads(request.body)
                _validate(SCHEMAS[(request.method, segments[0])], body)
            elif request.method == 'PUT':
                _validate(resource_class.CUSTOM_NAME, segments[1])
            if segments[0] == 'usages':
                _validate(usage.GET_USAGES_V1_38, dict(request.query))
            if segments == ['resource_providers'] and request.query:
                _validate(resource_provider.LIST_PROVIDERS_V1_18,
                          dict(request.query))
            # What goes on the wire decodes to the value drawn.
            query = urllib.parse.urlsplit(request.target()).query
            self.assertEqual(list(request.query), urllib.parse.parse_qsl(
                query, keep_blank_values=True))
        check()


class TestValues(testtools.TestCase):

    def _draw(self, strategy, count=150):
        found = []

        @hypothesis.settings(SETTINGS, max_examples=count)
        @hypothesis.given(strategy)
        def collect(value):
            found.append(value)
        collect()
        return found

    def test_names_are_valid_and_hostile(self):
        names = self._draw(hostile.provider_names())
        for name in names:
            _validate(resource_provider.POST_PROVIDER_V1_14['properties'][
                'name'], name)
            self.assertTrue(1 <= len(name) <= hostile.NAME_MAX)
            self.assertFalse(any(0xd800 <= ord(c) <= 0xdfff for c in name))
        text = ''.join(names)
        for needle in ('"', '\\', '[', '%s', '\x00', '\U0001f600',
                       '\u0301', ' '):
            self.assertIn(needle, text)
        self.assertIn(hostile.NAME_MAX, {len(name) for name in names})

    def test_without_backslashes_there_are_none(self):
        self.assertNotIn('\\', ''.join(self._draw(
            hostile.provider_names(backslashes=False))))

    def test_ids_types_and_custom_names_match_their_schemas(self):
        for value in self._draw(hostile.external_ids(), 100):
            _validate(allocation.PUT_ALLOCATIONS_V1_38['properties'][
                'project_id'], value)
        for value in self._draw(hostile.consumer_types(), 100):
            _validate(allocation.CONSUMER_TYPE, value)
        for value in self._draw(hostile.custom_names(), 100):
            _validate(resource_class.CUSTOM_NAME, value)

    def test_storable_text_is_storable(self):
        for backend in ('mysql', 'postgresql'):
            for value in self._draw(hostile.storable_text(
                    backend, hostile.provider_names()), 100):
                self.assertTrue(hostile.storable(backend, value), value)

    def test_forged_pairs_forge_a_row_of_seven(self):
        """Pasted between quotes into rows of seven columns (as db/packed
        did before issue 36), some drawn pairs parse as two rows of
        seven, the second one a provider that does not exist."""
        forged = 0
        for first, second in self._draw(hostile.forged_pairs(), 50):
            text = ('["u1","%s",0,null,null,"t",1],["u2","%s",0,null,null,'
                    '"t",2]' % (first, second))
            try:
                rows = json.loads('[%s]' % text)
            except ValueError:
                continue
            if [len(row) for row in rows] == [7, 7]:
                forged += 1
                self.assertNotEqual('u2', rows[1][0])
        self.assertGreater(forged, 10)
