"""Where the gabbi files are, and which of them run on a backend.

The files live beside their loader (placement/tests/functional/gabbits);
the loader and tools/differential both pick them with ``runs_on``.
"""
import os
import re

from placement.testing import gabbits as fixtures

GABBI_DIR = os.path.normpath(os.path.join(
    os.path.dirname(__file__), '..', 'tests', 'functional', 'gabbits'))


def runs_on(name, backend_name):
    """Whether the gabbi file ``name`` (in GABBI_DIR) runs on the backend:
    it names no fixture meant for another backend only (ONLY_BACKEND)."""
    elsewhere = [fixture for fixture, value in vars(fixtures).items()
                 if getattr(value, 'ONLY_BACKEND', backend_name)
                 != backend_name]
    if not elsewhere:
        return True
    with open(os.path.join(GABBI_DIR, name), encoding='utf-8') as f:
        text = f.read()
    return not any(re.search(r'^\s*-\s*%s\s*$' % fixture, text, re.M)
                   for fixture in elsewhere)
