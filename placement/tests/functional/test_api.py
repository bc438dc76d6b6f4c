"""The gabbi loader: every YAML file under gabbits/, on every backend.

Test ids look like
``placement.tests.functional.test_api.<backend>.<file>_<test name>``;
``.stestr.conf`` groups by backend and file so that one
file (one fresh database) stays in one worker.
"""
import atexit
import fnmatch
import inspect
import os
import shutil
import tempfile
import types

from gabbi import driver
from gabbi import fixture as gabbi_fixture

from placement.testing import backends
from placement.testing import gabbi_files
from placement.testing import gabbits as fixtures

GABBI_DIR = gabbi_files.GABBI_DIR


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


def _gabbi_dir(backend):
    """GABBI_DIR, or a directory of links to the files ``backend`` runs:
    those matching the glob in ``PLACEMENT_GABBI_FILES`` (e.g.
    ``resource-provider*``), so that a developer can run a few files,

        PLACEMENT_GABBI_FILES='inventory*' PLACEMENT_TEST_BACKENDS=sqlite \\
            python -m unittest placement.tests.functional.test_api

    less those naming a fixture meant for another backend only (its
    ONLY_BACKEND).
    """
    pattern = os.environ.get('PLACEMENT_GABBI_FILES')
    names = sorted(os.listdir(GABBI_DIR))
    wanted = [name for name in names if not name.endswith('.yaml') or (
        (not pattern or fnmatch.fnmatch(name, pattern))
        and gabbi_files.runs_on(name, backend.name))]
    if wanted == names:
        return GABBI_DIR
    subset = tempfile.mkdtemp(prefix='gabbits-')
    atexit.register(shutil.rmtree, subset, True)
    for name in wanted:
        os.symlink(os.path.join(GABBI_DIR, name), os.path.join(subset, name))
    return subset


def load_tests(loader, tests, pattern):
    for backend in backends.available():
        tests.addTests(driver.build_tests(
            _gabbi_dir(backend), loader, host=None,
            intercept=fixtures.current_app,
            test_loader_name='%s.%s' % (__name__, backend.name),
            fixture_module=_bound_fixtures(backend)))
    return tests
