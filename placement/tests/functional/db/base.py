"""One TestCase class per database backend, each on fresh databases.

``per_backend(Mixin)`` returns ``{'Mixin_sqlite': cls, ...}`` for the
module's globals, so test ids name their backend. A class whose backend
is not reachable skips (``.ci/run`` makes that an error instead).
"""
import unittest

from placement.db import api as db_api
from placement.testing import app
from placement.testing import backends


class BackendTestCase(unittest.TestCase):
    """Subclasses get ``self.backend`` and ``self.new_database()``."""

    backend_name = None

    def setUp(self):
        super().setUp()
        by_name = {backend.name: backend for backend in backends.available()}
        if self.backend_name not in by_name:
            self.skipTest('backend %s not available' % self.backend_name)
        self.backend = by_name[self.backend_name]

    def new_url(self):
        """A fresh empty database, dropped at cleanup; its URL."""
        url = self.backend.create()
        self.addCleanup(self.backend.drop, url)
        return url

    def new_database(self, url=None, **overrides):
        """A db.api.Database on a fresh empty (or the given) database."""
        url = url or self.new_url()
        db = db_api.create_database(app.make_conf(url, **overrides))
        self.addCleanup(db.dispose)
        return db


def per_backend(mixin):
    """Concrete TestCase classes of ``mixin``, one per wanted backend."""
    classes = {}
    for name in backends.wanted():
        cls_name = '%s_%s' % (mixin.__name__.lstrip('_'), name)
        classes[cls_name] = type(cls_name, (mixin, BackendTestCase),
                                 {'backend_name': name,
                                  '__module__': mixin.__module__})
    return classes
