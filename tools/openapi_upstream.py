#!/usr/bin/env python3
"""Check the reference service's answers against our OpenAPI document.

Run by hand (it needs the upstream release), with the project's
virtualenv:

    .venv/bin/python tools/openapi_upstream.py [--port 8779] [section ...]

For each section of the API reference (``api-ref/source/samples/<section>/
story.yaml``) it starts the upstream release on a fresh SQLite database
(``/work/shared/tools/upstream-server``, TMPDIR kept as given), sends the
story's requests over HTTP, and checks every answer with
``placement.openapi.conformance``: the test suite holds our answers to
the document, this holds upstream's. It prints each departure and ends
with ``N answers, M departing``; exit status 1 when any departs.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from placement.openapi import builder  # noqa: E402
from placement.openapi import conformance  # noqa: E402
from placement.testing import samples  # noqa: E402

SERVER = os.environ.get('PLACEMENT_UPSTREAM_SERVER',
                        '/work/shared/tools/upstream-server')


def _restart(port):
    """The upstream release on a fresh SQLite database at ``port``."""
    subprocess.run([SERVER, '--stop'], capture_output=True, cwd='/tmp')
    for _ in range(10):
        time.sleep(1)  # the stopped server may still hold the port
        started = subprocess.run([SERVER, '--port', str(port), '--db',
                                  'sqlite'], capture_output=True,
                                 text=True, cwd='/tmp')
        if started.returncode == 0:
            return
    raise SystemExit('upstream did not start: %s%s'
                     % (started.stdout, started.stderr))


def _send(port, section, step):
    body = samples.request_body(section, step)
    request = urllib.request.Request(
        'http://127.0.0.1:%d%s' % (port, step['url']),
        data=None if body is None else json.dumps(body).encode('utf-8'),
        method=step['method'],
        headers=samples.step_headers(step, body is not None))
    try:
        response = urllib.request.urlopen(request)
    except urllib.error.HTTPError as exc:
        response = exc
    return conformance.Answer(
        step['method'], step['url'].split('?', 1)[0], response.status,
        tuple(response.headers.items()), response.read())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--port', type=int, default=8779)
    parser.add_argument('sections', nargs='*')
    args = parser.parse_args(argv)
    checker = conformance.Checker(builder.build())
    answers = departing = 0
    try:
        for section in args.sections or samples.sections():
            _restart(args.port)
            for step in samples.load_story(section):
                problems = checker.check(_send(args.port, section, step))
                answers += 1
                if problems:
                    departing += 1
                    print('%s, %s:\n  %s' % (section, step['title'],
                                             '\n  '.join(problems)))
    finally:
        subprocess.run([SERVER, '--stop'], capture_output=True, cwd='/tmp')
    print('%d answers, %d departing' % (answers, departing))
    return 1 if departing else 0


if __name__ == '__main__':
    sys.exit(main())
