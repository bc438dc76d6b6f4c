"""The published document: where it lives, how it is written, and
reading it back (for tests and tools)."""
import functools
import json
import os

from placement.openapi import windows

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
# Served at <api-ref>/openapi.json (html_extra_path of api-ref/source).
PUBLISHED = os.path.join(ROOT, 'api-ref', 'source', '_extra', 'openapi.json')

at_version = windows.at_version


def dumps(doc):
    """The document's text as published: two-space JSON, keys in the
    builder's order, ASCII, one newline at the end."""
    return json.dumps(doc, indent=2) + '\n'


@functools.lru_cache(maxsize=None)
def published_text():
    with open(PUBLISHED, encoding='utf-8') as f:
        return f.read()
