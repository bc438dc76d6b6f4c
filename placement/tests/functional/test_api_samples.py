"""The api-ref samples, sent to the live app, so the reference cannot drift.

Each section of the API reference has a story,
``api-ref/source/samples/<section>/story.yaml``: an ordered list of
requests that runs on a fresh database. A step looks like::

    - title: Create a resource provider
      method: POST
      url: /resource_providers
      version: '1.20'
      request: create-resource-provider-request.json   # body sent (a sample)
      body: {...}               # or an inline body, for set-up steps
      status: 200
      response: create-resource-provider-response.json # shape compared
      partial: true             # the sample abbreviates long lists
      roles: service            # noauth2 roles, when admin is not enough

Every step's status must match. A step naming a ``response`` sample has
the real body compared with it by SHAPE: the same keys, the same JSON
types, recursively; lists match element by element in any order. Values
(uuids, timestamps, request ids) may differ. A story that meets a route
still answering 501 is skipped, with the route named.

Three more checks keep the reference whole: every JSON file under
``samples/`` is used by some step, and every route and method of
``handler.ROUTE_DECLARATIONS`` is exercised by some step, and the
microversion history page lists exactly ``microversion.VERSIONS``.

To (re)write the response samples from a running server::

    python -m placement.tests.functional.test_api_samples \\
        --write http://127.0.0.1:8778 [section ...]

(noauth2; each section wants a fresh database, so restart the server on
an empty database between sections.)
"""
import argparse
import collections
import json
import os
import re
import sys
import unittest
import urllib.error
import urllib.request

import webob

from placement import handler
from placement import microversion
from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import openapi_check
from placement.testing import samples

HISTORY_FILE = os.path.join(samples.ROOT, 'api-ref', 'source',
                            'microversions.rst')
NOT_IMPLEMENTED = 501

Response = collections.namedtuple('Response', 'status body')


def _decode(raw):
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode('utf-8', 'replace')


def send_in_process(app, section, step):
    """Send a step to a WSGI app; return a Response."""
    body = samples.request_body(section, step)
    headers = samples.step_headers(step, body is not None)
    req = webob.Request.blank(step['url'], method=step['method'],
                              headers=headers)
    if body is not None:
        req.body = json.dumps(body).encode('utf-8')
    resp = req.get_response(app)
    return Response(resp.status_int, _decode(resp.body))


def send_http(base_url, section, step):
    """Send a step to a server over HTTP; return a Response."""
    body = samples.request_body(section, step)
    data = None if body is None else json.dumps(body).encode('utf-8')
    headers = samples.step_headers(step, data is not None)
    req = urllib.request.Request(base_url.rstrip('/') + step['url'],
                                 data=data, method=step['method'],
                                 headers=headers)
    try:
        with urllib.request.urlopen(req) as resp:
            return Response(resp.status, _decode(resp.read()))
    except urllib.error.HTTPError as exc:
        return Response(exc.code, _decode(exc.read()))


# -- shape comparison ------------------------------------------------------

def _kind(value):
    """The JSON type of a value; bool is not a number here."""
    for kind, types in (('null', type(None)), ('boolean', bool),
                        ('integer', int), ('number', float),
                        ('string', str), ('array', list),
                        ('object', dict)):
        if isinstance(value, types):
            return kind
    return type(value).__name__


def shape_mismatches(sample, actual, path='$', partial=False):
    """Where ``actual`` differs in shape from ``sample``, as strings.

    Objects need the same keys; arrays the same length (or, with
    ``partial``, at least as many items) and every actual item must have
    the shape of some sample item.
    """
    if _kind(sample) != _kind(actual):
        return ['%s: sample has %s, response has %s'
                % (path, _kind(sample), _kind(actual))]
    if isinstance(sample, dict):
        return _object_mismatches(sample, actual, path, partial)
    if isinstance(sample, list):
        return _array_mismatches(sample, actual, path, partial)
    return []


def _object_mismatches(sample, actual, path, partial):
    problems = []
    for key in sorted(set(sample) - set(actual)):
        problems.append('%s: response lacks key %r' % (path, key))
    for key in sorted(set(actual) - set(sample)):
        problems.append('%s: response has extra key %r' % (path, key))
    for key in sample:
        if key in actual:
            problems.extend(shape_mismatches(
                sample[key], actual[key], '%s.%s' % (path, key), partial))
    return problems


def _array_mismatches(sample, actual, path, partial):
    if len(actual) < len(sample) or (
            not partial and len(actual) != len(sample)):
        return ['%s: sample has %d items, response has %d'
                % (path, len(sample), len(actual))]
    if not sample:
        return []
    problems = []
    for index, item in enumerate(actual):
        item_path = '%s[%d]' % (path, index)
        found = [shape_mismatches(candidate, item, item_path, partial)
                 for candidate in sample]
        if all(found):
            problems.extend(min(found, key=len))
    return problems


# -- coverage --------------------------------------------------------------

def _route_of(url):
    path = url.split('?', 1)[0]
    for route in handler.ROUTES:
        if route.regex.match(path):
            return route.template
    return None


def covered_routes():
    """{(template, method)} exercised by the stories."""
    seen = set()
    for section in samples.sections():
        for step in samples.load_story(section):
            seen.add((_route_of(step['url']), step['method']))
    return seen


def declared_routes():
    return {(template, method)
            for template, methods in handler.ROUTE_DECLARATIONS.items()
            for method in methods}


def referenced_samples():
    names = set()
    for section in samples.sections():
        for step in samples.load_story(section):
            for key in ('request', 'response'):
                if key in step:
                    names.add(os.path.join(section, step[key]))
    return names


def sample_files():
    names = set()
    for dirpath, _, filenames in os.walk(samples.SAMPLES_DIR):
        for filename in filenames:
            if filename.endswith('.json'):
                names.add(os.path.relpath(os.path.join(dirpath, filename),
                                          samples.SAMPLES_DIR))
    return names


# -- the tests -------------------------------------------------------------

def _describe(step):
    return '%s %s @%s (%s)' % (step['method'], step['url'], step['version'],
                               step['title'])


class SampleStory(unittest.TestCase):
    """One section's story on one backend (bound by ``load_tests``)."""

    backend = None
    section = None

    def test_story(self):
        placement = app_fixture.PlacementApp(self.backend)
        self.addCleanup(placement.cleanup)
        # Each answer is also checked against the OpenAPI document.
        app = openapi_check.checked(placement.app)
        for step in samples.load_story(self.section):
            resp = send_in_process(app, self.section, step)
            if resp.status == NOT_IMPLEMENTED:
                self.skipTest('%s answers 501 (not implemented yet)'
                              % _describe(step))
            self.assertEqual(step['status'], resp.status,
                             '%s: body %s' % (_describe(step), resp.body))
            if 'response' in step:
                sample = samples.load_sample(self.section, step['response'])
                problems = shape_mismatches(
                    sample, resp.body, partial=step.get('partial', False))
                self.assertEqual([], problems, '%s vs %s'
                                 % (_describe(step), step['response']))


class SampleCoverage(unittest.TestCase):

    def test_every_sample_is_used_by_a_story(self):
        self.assertEqual(set(), sample_files() - referenced_samples())

    def test_every_referenced_sample_exists(self):
        self.assertEqual(set(), referenced_samples() - sample_files())

    def test_every_route_and_method_is_in_a_story(self):
        self.assertEqual(set(), declared_routes() - covered_routes())

    def test_every_step_names_a_route(self):
        self.assertNotIn(None, {route for route, _ in covered_routes()})

    def test_microversion_history_lists_every_version(self):
        with open(HISTORY_FILE) as handle:
            listed = re.findall(r'^   \* - (\d+\.\d+)$', handle.read(),
                                re.MULTILINE)
        self.assertEqual(microversion.VERSIONS, listed)

    def test_shape_comparison_ignores_values_not_types(self):
        sample = {'a': [{'u': 'x', 'n': 1}], 'f': 1.0, 'z': None}
        self.assertEqual([], shape_mismatches(
            sample, {'a': [{'u': 'y', 'n': 2}], 'f': 2.5, 'z': None}))
        self.assertEqual(['$.f: sample has number, response has integer'],
                         shape_mismatches(sample, {'a': [{'u': 'y', 'n': 2}],
                                                   'f': 2, 'z': None}))
        self.assertEqual(["$: response has extra key 'q'"],
                         shape_mismatches({}, {'q': 1}))
        self.assertEqual(['$: sample has 1 items, response has 2'],
                         shape_mismatches(['a'], ['a', 'b']))
        self.assertEqual([], shape_mismatches(['a'], ['a', 'b'],
                                              partial=True))


def _story_class(backend, section):
    name = 'SampleStory_%s_%s' % (backend.name, section)
    return type(name, (SampleStory,),
                {'backend': backend, 'section': section})


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    suite.addTests(loader.loadTestsFromTestCase(SampleCoverage))
    for backend in backends.available():
        for section in samples.sections():
            suite.addTests(loader.loadTestsFromTestCase(
                _story_class(backend, section)))
    return suite


# -- writing samples from a server -----------------------------------------

_LONG_LIST = 4


def _trim(value):
    """Shorten long lists for a ``partial`` sample."""
    if isinstance(value, dict):
        return {key: _trim(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trim(item) for item in value[:_LONG_LIST]]
    return value


def _write_json(path, document):
    with open(path, 'w') as handle:
        json.dump(document, handle, indent=4, ensure_ascii=False)
        handle.write('\n')


def write_section(base_url, section):
    """Run a story against a server and store its response samples."""
    ok = True
    for step in samples.load_story(section):
        resp = send_http(base_url, section, step)
        if resp.status != step['status']:
            ok = False
            print('%s: %s: expected %s, got %s %s' % (
                section, _describe(step), step['status'], resp.status,
                resp.body), file=sys.stderr)
        if 'response' in step and isinstance(resp.body, (dict, list)):
            body = _trim(resp.body) if step.get('partial') else resp.body
            _write_json(samples.sample_path(section, step['response']), body)
    return ok


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--write', metavar='URL', required=True,
                        help='server to take the response samples from')
    parser.add_argument('sections', nargs='*')
    args = parser.parse_args(argv)
    results = [write_section(args.write, section)
               for section in (args.sections or samples.sections())]
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
