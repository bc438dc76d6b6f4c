"""The gabbi loader: every YAML file under gabbits/, on every backend.

Test ids look like
``placement.tests.functional.test_api.<backend>.<file>_<test name>``; ``.stestr.conf`` groups by backend and file so that one
file (one fresh database) stays in one worker.
"""
import fnmatch
import inspect
import os
import tempfile
import types

from gabbi import driver
from gabbi import fixture as gabbi_fixture

from placement.tests.functional.fixtures import backends
from placement.tests.functional.fixtures import gabbits as fixtures

GABBI_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def _bound_fixtures(backend):
    """A namespace of the fixture classes, each bound to ``backend``."""
    namespace = types.SimpleNamespace()
    for name, value in vars(fixtures).items():
        if (inspect.isclass(value)
                and issubclass(value, gabbi_fixture.GabbiFixture)
                and value is not gabbi_fixture.GabbiFixture):
            setattr(namespace, name,
                    type(name, (value,), {'backend': backend}))
    return namespace


def _gabbi_dir():
    """GABBI_DIR, or a directory of links to the files matching the glob
    in ``PLACEMENT_GABBI_FILES`` (e.g. ``resource-provider*``), so that a
    developer can run a few files:

        PLACEMENT_GABBI_FILES='inventory*' PLACEMENT_TEST_BACKENDS=sqlite \\
            python -m unittest placement.tests.functional.test_api
    """
    pattern = os.environ.get('PLACEMENT_GABBI_FILES')
    if not pattern:
        return GABBI_DIR
    subset = tempfile.mkdtemp(prefix='gabbits-')
    for name in os.listdir(GABBI_DIR):
        path = os.path.join(GABBI_DIR, name)
        if fnmatch.fnmatch(name, pattern) or not name.endswith('.yaml'):
            os.symlink(path, os.path.join(subset, name))
    return subset


def load_tests(loader, tests, pattern):
    path = _gabbi_dir()
    for backend in backends.available():
        tests.addTests(driver.build_tests(
            path, loader, host=None, intercept=fixtures.current_app,
            test_loader_name='%s.%s' % (__name__, backend.name),
            fixture_module=_bound_fixtures(backend)))
    return tests
