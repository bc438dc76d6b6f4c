"""Sphinx configuration of the placement API reference.

Plain reStructuredText: one page per resource, parameter tables, and the
JSON samples included from ``samples/``. Every sample is sent to (or
compared with) the live application by
``placement/tests/functional/test_api_samples.py``.
"""
project = 'placement API reference'
copyright = 'placement contributors'
author = 'placement contributors'

extensions = []
root_doc = 'index'
exclude_patterns = ['build', 'samples', '_extra']
html_theme = 'alabaster'
html_static_path = []
# Copied as they are to the root of the built site: openapi.json, the
# OpenAPI document (python -m placement.openapi writes it).
html_extra_path = ['_extra']
html_theme_options = {
    'description': 'REST API, microversions 1.0 to 1.39',
    'fixed_sidebar': True,
}
pygments_style = 'sphinx'
