"""Sphinx configuration of the placement documentation.

The configuration and policy references are generated from the code
(oslo_config.sphinxext, oslo_policy.sphinxext) so they cannot drift; so
are the sample files offered for download (sphinxconfiggen,
sphinxpolicygen). ``tox -e docs`` builds with warnings as errors.
"""
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

project = 'placement'
copyright = 'placement contributors'
author = 'placement contributors'

extensions = [
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
    'oslo_policy.sphinxext',
    'oslo_policy.sphinxpolicygen',
]

# Samples generated into _static at build time, from the same generator
# configuration files that tox -e genconfig / genpolicy use.
config_generator_config_file = os.path.join(
    ROOT, 'etc', 'placement', 'config-generator.conf')
sample_config_basename = '_static/placement'
policy_generator_config_file = os.path.join(
    ROOT, 'etc', 'placement', 'policy-generator.conf')
sample_policy_basename = '_static/placement'

root_doc = 'index'
exclude_patterns = ['build']
templates_path = []
html_theme = 'alabaster'
html_static_path = ['_static']
html_theme_options = {
    'description': 'A drop-in OpenStack Placement service',
    'fixed_sidebar': True,
}
pygments_style = 'sphinx'

# The man pages: sphinx-build -b man doc/source doc/build/man
man_pages = [
    ('cli/placement-manage', 'placement-manage',
     'database management for the placement service', [author], 1),
    ('cli/placement-status', 'placement-status',
     'upgrade readiness checks for the placement service', [author], 1),
]
