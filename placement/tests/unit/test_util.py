"""The shared HTTP helpers: body parsing, query checks, responses."""
import unittest

import webob
import webob.exc

from placement import errors
from placement import microversion
from placement import util

SCHEMA = {
    'type': 'object',
    'properties': {'name': {'type': 'string'},
                   'count': {'type': 'integer', 'minimum': 1,
                             'maximum': 2147483647},
                   'ratio': {'type': 'number'}},
    'additionalProperties': False,
}


class ExtractJsonTest(unittest.TestCase):

    def assertBadRequest(self, body, text):
        with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
            util.extract_json(body, SCHEMA)
        self.assertIn(text, str(caught.exception))
        return caught.exception

    def test_valid_body(self):
        self.assertEqual({'name': 'x', 'count': 2},
                         util.extract_json(b'{"name": "x", "count": 2}',
                                           SCHEMA))

    def test_malformed(self):
        self.assertBadRequest(b'{"name": ', 'Malformed JSON: Expecting')

    def test_jsonschema_message_verbatim(self):
        self.assertBadRequest(b'{"count": 0}', 'JSON does not validate: 0 '
                              'is less than the minimum of 1')
        self.assertBadRequest(
            b'{"foo": 1}', "JSON does not validate: Additional properties "
                           "are not allowed ('foo' was unexpected)")

    def test_nested_far_too_deep(self):
        for body in (b'[' * 100000 + b']' * 100000,
                     b'{"a": ' * 5000 + b'1' + b'}' * 5000,
                     # Deep enough for the schema's report to recurse.
                     b'{"a": ' * 500 + b'1' + b'}' * 500,
                     b'[' * 500 + b']' * 500):
            exc = self.assertBadRequest(body, 'nested too deeply')
            self.assertEqual(errors.BODY_TOO_DEEP, exc.placement_code)

    def test_bytes_that_are_not_utf8(self):
        # Decoded strictly, as the reference service does: a UTF-8-encoded
        # surrogate is refused with the codec's words. (Not a gabbit:
        # gabbi cannot send a data file that is not UTF-8.)
        self.assertBadRequest(
            b'{"name": "\xed\xa2\x8c"}',
            "Malformed JSON: 'utf-8' codec can't decode byte 0xed in "
            "position 10: invalid continuation byte")

    def test_depth_limit_counts_objects_and_arrays(self):
        limit = util.MAX_JSON_DEPTH
        self.assertBadRequest(b'[' * (limit + 1) + b']' * (limit + 1),
                              'nested too deeply')
        self.assertBadRequest(b'{"a": ' * limit + b'[]' + b'}' * limit,
                              'nested too deeply')
        # Some hundreds of levels deep, the schema judges it (as the
        # reference service's does)...
        self.assertBadRequest(b'[' * 300 + b']' * 300,
                              'JSON does not validate')
        self.assertBadRequest(b'{"a": ' * 299 + b'[]' + b'}' * 299,
                              'JSON does not validate')
        # ... and at the limit its report would recurse past Python's
        # limit: the same too_deep 400 (the reference service's 500).
        self.assertBadRequest(b'[' * limit + b']' * limit,
                              'nested too deeply')

    def test_brackets_in_strings_and_wide_bodies_pass(self):
        name = '[{' * 100
        self.assertEqual({'name': name}, util.extract_json(
            b'{"name": "%s"}' % name.encode(), SCHEMA))
        wide = {'type': 'array', 'items': {'type': 'array'}}
        self.assertEqual([[]] * 1000,
                         util.extract_json(b'[%s]' % b','.join([b'[]'] * 1000),
                                           wide))

    def test_lone_surrogates(self):
        for body in (b'{"name": "\\ud800"}', b'{"name": "a\\udc00b"}'):
            self.assertBadRequest(body, 'lone surrogates')

    def test_surrogate_pairs_are_fine(self):
        self.assertEqual({'name': '\U0001F680'},
                         util.extract_json(b'{"name": "\\ud83d\\ude80"}',
                                           SCHEMA))

    def test_nan_and_infinity(self):
        # They pass a "number" schema (as in the reference service, where
        # NaN is a float), then no database can store them.
        for constant in (b'NaN', b'Infinity', b'-Infinity', b'1e400'):
            self.assertBadRequest(b'{"ratio": %s}' % constant,
                                  'are not JSON numbers')

    def test_nan_where_a_string_belongs_fails_the_schema(self):
        self.assertBadRequest(b'{"name": NaN}',
                              "nan is not of type 'string'")

    def test_integers_beyond_64_bits_fail_the_schema(self):
        self.assertBadRequest(b'{"count": 18446744073709551617}',
                              'is greater than the maximum')


class QueryListsTest(unittest.TestCase):

    def _lists(self, query):
        return util.query_lists(webob.Request.blank('/x?' + query))

    def test_utf8_passes(self):
        self.assertEqual({'name': ['\u00e9'], 'x': ['1 2']},
                         self._lists('name=%C3%A9&x=1+2'))

    def test_bad_bytes_say_what_the_decoder_said(self):
        # As the reference service words it.
        for query, position in (('name=%ff', 0), ('%fe=1', 0),
                                ('a=b%c3%28', 1), ('a=%ed%a0%80', 0)):
            with self.assertRaisesRegex(
                    webob.exc.HTTPBadRequest,
                    "Invalid query string parameters: 'utf-8' codec can't "
                    "decode byte 0x.. in position %d" % position):
                self._lists(query)

    def test_environ_strings_outside_latin1(self):
        req = webob.Request.blank('/x')
        req.environ['QUERY_STRING'] = 'a=\u2603'
        with self.assertRaises(webob.exc.HTTPBadRequest):
            util.query_lists(req)


class DecoratorTest(unittest.TestCase):

    def _request(self, **headers):
        return webob.Request.blank('/', headers=headers)

    def test_accept(self):
        handler = util.check_accept('application/json')(lambda req: 'ok')
        for accept in (None, '*/*', 'application/json',
                       'text/html,application/xhtml+xml,*/*;q=0.8'):
            headers = {'Accept': accept} if accept else {}
            self.assertEqual('ok', handler(self._request(**headers)))
        with self.assertRaisesRegex(webob.exc.HTTPNotAcceptable,
                                    'Only application/json is provided'):
            handler(self._request(Accept='text/plain'))

    def test_content_type(self):
        handler = util.require_content('application/json')(
            lambda req: 'ok')
        self.assertEqual('ok', handler(self._request(
            **{'Content-Type': 'application/json; charset=UTF-8'})))
        with self.assertRaisesRegex(webob.exc.HTTPUnsupportedMediaType,
                                    'The media type text/plain is not '
                                    'supported, use application/json'):
            handler(self._request(**{'Content-Type': 'text/plain'}))
        with self.assertRaisesRegex(webob.exc.HTTPUnsupportedMediaType,
                                    'The media type None'):
            handler(self._request())


class ResponseTest(unittest.TestCase):

    def _json(self, mv):
        return util.json_response(webob.Request.blank('/'),
                                  microversion.parse_version(mv), {'a': 1})

    def test_no_cache_headers_before_1_15(self):
        resp = self._json('1.14')
        self.assertIsNone(resp.last_modified)
        self.assertIsNone(resp.cache_control.no_cache)
        self.assertEqual(b'{"a":1}', resp.body)
        self.assertEqual('application/json', resp.headers['Content-Type'])
        self.assertEqual('7', resp.headers['Content-Length'])

    def test_cache_headers_from_1_15(self):
        resp = self._json('1.15')
        self.assertIsNotNone(resp.last_modified)
        self.assertEqual('no-cache', resp.headers['cache-control'])

    def test_http_error_carries_the_code(self):
        exc = util.http_error(webob.exc.HTTPConflict, 'busy',
                              code='placement.concurrent_update')
        self.assertEqual('placement.concurrent_update', exc.placement_code)
        self.assertEqual(409, exc.code)

    def test_normalize_uuid(self):
        self.assertEqual('8d8a4ba6-0c9f-4b8f-a5c2-3b3f4e6f8a1d',
                         util.normalize_uuid(
                             '8D8A4BA60C9F4B8FA5C23B3F4E6F8A1D'))


class ExtractJsonOfFoundTest(unittest.TestCase):

    def _missing(self):
        raise LookupError('the target is missing')

    def test_missing_target_comes_before_a_bad_body(self):
        with self.assertRaises(LookupError):
            util.extract_json_of_found(b'{"color": "blue"}', SCHEMA,
                                       self._missing)

    def test_bad_body_of_a_found_target_is_400(self):
        with self.assertRaises(webob.exc.HTTPBadRequest):
            util.extract_json_of_found(b'{"color": "blue"}', SCHEMA,
                                       lambda: None)

    def test_good_body_does_not_look_for_the_target(self):
        self.assertEqual({'name': 'x'}, util.extract_json_of_found(
            b'{"name": "x"}', SCHEMA, self._missing))

    def test_generation_conflict_is_409_concurrent_update(self):
        exc = util.generation_conflict()
        self.assertEqual(409, exc.code)
        self.assertEqual('placement.concurrent_update', exc.placement_code)
        self.assertIn("generation already changed", exc.detail)

    def test_concurrent_update_keeps_the_message(self):
        exc = util.concurrent_update(ValueError('kept losing'))
        self.assertEqual(409, exc.code)
        self.assertEqual('placement.concurrent_update', exc.placement_code)
        self.assertEqual('kept losing', exc.detail)


class ValidateQueryTest(unittest.TestCase):
    """Query strings that passed a schema are remembered; those that did
    not are refused every time.
    """

    SCHEMA = {'type': 'object',
              'properties': {'limit': {'type': 'string',
                                       'pattern': '^[1-9][0-9]*$'}},
              'additionalProperties': False}

    def _validate(self, query):
        return util.validate_query(
            webob.Request.blank('/?' + query), self.SCHEMA)

    def _remembered(self):
        return util._schema_entry(self.SCHEMA, util._QUERY_FORMAT_CHECKER)[2]

    def test_a_valid_query_is_remembered(self):
        self.assertEqual({'limit': ['1', '5']},
                         self._validate('limit=1&limit=5'))
        self.assertIn(frozenset({('limit', '5')}), self._remembered())
        self.assertEqual({'limit': ['5']}, self._validate('limit=5'))

    def test_an_invalid_query_is_refused_each_time(self):
        for _ in range(2):
            with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
                self._validate('limit=0')
            self.assertIn('Invalid query string parameters',
                          str(caught.exception))
        with self.assertRaises(webob.exc.HTTPBadRequest):
            self._validate('other=1')
        self.assertNotIn(frozenset({('limit', '0')}), self._remembered())
