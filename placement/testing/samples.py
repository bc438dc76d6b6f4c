"""The api-ref samples' stories, read from api-ref/source/samples.

Each section of the API reference has ``<section>/story.yaml``, an
ordered list of requests (see placement/tests/functional/
test_api_samples.py for the step format). The samples test sends them
to the app; tools/openapi_upstream.py sends them to upstream.
"""
import json
import os

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SAMPLES_DIR = os.path.join(ROOT, 'api-ref', 'source', 'samples')
STORY_FILE = 'story.yaml'


def sections():
    """The section names that have a story, sorted."""
    if not os.path.isdir(SAMPLES_DIR):
        return []
    return sorted(name for name in os.listdir(SAMPLES_DIR)
                  if os.path.isfile(os.path.join(SAMPLES_DIR, name,
                                                 STORY_FILE)))


def load_story(section):
    with open(os.path.join(SAMPLES_DIR, section, STORY_FILE)) as handle:
        return yaml.safe_load(handle)


def sample_path(section, name):
    return os.path.join(SAMPLES_DIR, section, name)


def load_sample(section, name):
    with open(sample_path(section, name)) as handle:
        return json.load(handle)


def request_body(section, step):
    """The JSON document a step sends, or None."""
    if 'request' in step:
        return load_sample(section, step['request'])
    return step.get('body')


def step_headers(step, has_body):
    headers = {
        'x-auth-token': step.get('token', 'admin'),
        'accept': 'application/json',
        'openstack-api-version': 'placement %s' % step['version'],
    }
    if 'roles' in step:
        headers['x-roles'] = step['roles']
    if has_body:
        headers['content-type'] = 'application/json'
    return headers
