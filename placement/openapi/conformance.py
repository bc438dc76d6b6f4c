"""Check one HTTP answer against the document.

``Checker(document).check(answer)`` returns the list of ways an answer
departs from the document, each a sentence naming the route, version,
status and the JSON pointer of the mismatch; empty when it conforms:

* the path and method are documented (or the answer is an error body);
* the status is documented for the operation at the version the answer
  says it served (its ``OpenStack-API-Version`` header);
* every header the document requires at that version is there, and the
  documented headers present match their schemas;
* the body matches the response schema of that version, or is empty
  when the document gives none.

The test suite runs it over every gabbi answer; generated-request tests
can run it over theirs. Validators are compiled once per (route, method,
status, version) and kept. Pure: the caller owns the I/O.
"""
import dataclasses
import json
import re

import jsonschema

from placement import microversion
from placement.openapi import windows

_VERSION_RE = re.compile(r'^placement (\d+\.\d+)$')
_VALIDATOR = jsonschema.Draft202012Validator


@dataclasses.dataclass(frozen=True)
class Answer:
    """One request and the answer it got, as the checker needs them."""
    method: str
    path: str
    status: int
    headers: tuple  # ((name, value), ...)
    body: bytes

    def header(self, name):
        name = name.lower()
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return None


def _route_regex(template):
    pattern = re.sub(r'\\\{(\w+)\\\}', r'(?P<\1>[^/]+)', re.escape(template))
    return re.compile('^%s$' % pattern)


def inline_refs(node, root):
    """``node`` with every local ``$ref`` replaced by what it points at
    (the document has no cycles)."""
    if isinstance(node, list):
        return [inline_refs(item, root) for item in node]
    if not isinstance(node, dict):
        return node
    if '$ref' in node:
        target = root
        for part in node['$ref'].lstrip('#/').split('/'):
            target = target[part]
        return inline_refs(target, root)
    return {key: inline_refs(value, root) for key, value in node.items()}


def _pointer(path):
    return '/' + '/'.join(str(part) for part in path)


class Checker:
    """Checks answers against one document (the builder's, usually)."""

    def __init__(self, document):
        self.document = document
        self._routes = [(template, _route_regex(template))
                        for template in document['paths']]
        self._responses = {}

    def _template(self, path):
        for template, regex in self._routes:
            if regex.match(path):
                return template
        return None

    def check(self, answer):
        """The problems of ``answer`` (a list of sentences)."""
        template = self._template(answer.path)
        mv = self._version(answer)
        where = '%s %s' % (answer.method, template or answer.path)
        if mv is not None:
            where += ' at %s' % mv
        where += ' answered %d' % answer.status
        operation = (self.document['paths'][template].get(
            answer.method.lower()) if template else None)
        if operation is not None and mv is not None and windows.covers(
                operation, mv):
            problems = self._check_operation(answer, template, mv)
        else:
            # No operation served it: an error made before one was
            # chosen (bad version, no token, no such route or method, a
            # route or method the version lacks).
            problems = self._check_outside(answer)
            if operation is not None and str(answer.status) not in \
                    operation['responses']:
                problems.insert(0, 'status %d is not documented for this '
                                'operation' % answer.status)
        return [where + ': ' + problem for problem in problems]

    @staticmethod
    def _version(answer):
        match = _VERSION_RE.match(answer.header('openstack-api-version')
                                  or '')
        return microversion.parse_version(match.group(1)) if match else None

    def _error_response(self, status):
        """The components/responses entry of an error ``status`` (the
        one every operation refers to), or None."""
        for item in self.document['paths'].values():
            for operation in item.values():
                found = operation['responses'].get(str(status), {})
                if '$ref' in found:
                    return inline_refs(found, self.document)
        return None

    def _check_outside(self, answer):
        """An answer no operation made must be a documented error."""
        if answer.status < 400:
            return ['a success where no operation of the document '
                    'exists at this version']
        key = ('outside', answer.status)
        if key not in self._responses:
            response = self._error_response(answer.status)
            self._responses[key] = response and self._compile_parts(
                response, self.document)
        if self._responses[key] is None:
            return ['status %d is documented for no operation'
                    % answer.status]
        bodies, headers = self._responses[key]
        return (self._check_headers(answer, headers)
                + self._check_body(answer, bodies))

    def _check_operation(self, answer, template, mv):
        key = (template, answer.method.lower(), answer.status, mv)
        if key not in self._responses:
            self._responses[key] = self._compile_response(key)
        compiled = self._responses[key]
        if compiled is None:
            return ['status %d is not documented for this operation at '
                    'this version' % answer.status]
        bodies, headers = compiled
        problems = self._check_headers(answer, headers)
        return problems + self._check_body(answer, bodies)

    def _compile_response(self, key):
        template, method, status, mv = key
        response = self.document['paths'][template][method][
            'responses'].get(str(status))
        if response is None or not windows.covers(response, mv):
            return None
        return self._compile_parts(
            windows.project(inline_refs(response, self.document), mv),
            self.document)

    def _compile_parts(self, response, root):
        """({media type: body validator}, ((header, required, value
        validator), ...)) of a response object."""
        bodies = {media: self._compile(content['schema'], root)
                  for media, content in response.get('content', {}).items()}
        headers = tuple(
            (name, header.get('required', False),
             self._compile(header['schema'], root))
            for name, header in response.get('headers', {}).items())
        return bodies, headers

    @staticmethod
    def _compile(schema, root):
        return _VALIDATOR(inline_refs(schema, root),
                          format_checker=_VALIDATOR.FORMAT_CHECKER)

    @staticmethod
    def _check_headers(answer, headers):
        problems = []
        for name, required, validator in headers:
            value = answer.header(name)
            if value is None:
                if required:
                    problems.append('header %s is missing' % name)
                continue
            for error in validator.iter_errors(value):
                problems.append('header %s: %s' % (name, error.message))
        return problems

    @staticmethod
    def _check_body(answer, bodies):
        """Check the body against ``bodies`` ({media type: validator}
        of the documented contents; empty when there is no body)."""
        if not bodies:
            if answer.body:
                return ['a body where the document gives none: %r'
                        % answer.body[:200]]
            return []
        media = (answer.header('content-type') or '').split(';')[0].strip()
        validator = bodies.get(media)
        if validator is None:
            return ['content type %r is not documented (%s)'
                    % (media, ', '.join(bodies))]
        if media == 'application/json':
            try:
                body = json.loads(answer.body)
            except ValueError as exc:
                return ['the body is not JSON (%s): %r'
                        % (exc, answer.body[:200])]
        else:
            body = answer.body.decode('utf-8', 'replace')
        return ['body at %s: %s' % (_pointer(error.absolute_path),
                                    error.message[:300])
                for error in validator.iter_errors(body)]
