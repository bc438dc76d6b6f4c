"""The base of the generated-request test cases: one live service each.

``GeneratedCase`` starts a ``probe.Probe`` on a fresh database of its
class's ``backend_name`` (skipped when that backend is not tested here),
makes the seed world (``seed_data``) through it, and prints the test's
request count at the end. ``for_each_backend`` makes one subclass per
backend, so that stestr can run the backends in different workers.
"""
import unittest

from placement.testing import backends
from placement.testing import generated_settings
from placement.testing import openapi_check
from placement.testing import probe as probe_module
from placement.testing import seed_data


class GeneratedCase:
    """Mixed with unittest.TestCase by ``for_each_backend``."""

    backend_name = None

    def setUp(self):
        super().setUp()
        backend = backends.BACKENDS[self.backend_name]
        if backend not in backends.available():
            self.skipTest('%s is not available' % self.backend_name)
        self.probe = probe_module.Probe(
            backend, checker=openapi_check.checker())
        self.addCleanup(self.probe.close)
        self.addCleanup(lambda: probe_module.report(self.id(), self.probe))
        self.known, setup = seed_data.world(generated_settings.SEED)
        for request in setup:
            self.send_and_check(request, expect_success=True)

    def send_and_check(self, request, expect_success=False):
        """Send ``request``; fail with a gabbi test of it on a problem."""
        answer, found = self.probe.send(request)
        if expect_success and not 200 <= answer.status < 300:
            found = found + ['expected a 2xx']
        if found:
            self.fail(self.probe.failure(request, answer, found))
        return answer


def for_each_backend(base, namespace):
    """Add to ``namespace`` one TestCase per backend from the mixin
    ``base``, named ``<base name without the underscore><Backend>``."""
    for name in backends.ALL:
        title = {'sqlite': 'SQLite', 'mysql': 'MySQL',
                 'postgresql': 'PostgreSQL'}[name]
        class_name = base.__name__.lstrip('_') + title
        namespace[class_name] = type(class_name, (base, unittest.TestCase), {
            'backend_name': name, '__module__': namespace['__name__']})
