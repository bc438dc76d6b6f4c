"""Sphinx configuration of the release notes (reno)."""
project = 'placement release notes'
copyright = 'placement contributors'
author = 'placement contributors'

extensions = ['reno.sphinxext']
root_doc = 'index'
exclude_patterns = ['build']
html_theme = 'alabaster'
html_static_path = []
pygments_style = 'sphinx'
