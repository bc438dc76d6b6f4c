"""Run the gabbi suite through the tee, file by file, and report."""
import argparse
import collections
import fnmatch
import inspect
import os
import shutil
import sys
import tempfile
import types
import unittest

from gabbi import driver
from gabbi import fixture as gabbi_fixture

from placement.db import api as db_api
from placement.testing import app as app_fixture
from placement.testing import backends
from placement.testing import candidate_trees
from placement.testing import gabbi_files
from placement.testing import gabbits as fixtures
from tools.differential_lib import allowlist
from tools.differential_lib import rows
from tools.differential_lib import tee as tee_module
from tools.differential_lib import upstream as upstream_module

Difference = collections.namedtuple(
    'Difference', 'file test where kind detail allowed')


class Recorder:
    """Counts exchanges and table comparisons; keeps the differences."""

    def __init__(self, entries, out):
        self.entries = entries
        self.out = out
        self.file = self.test = None
        self.same = self.different = self.allowed = 0
        # Candidate answers under a limit or cap that upstream may give
        # under some hash seed (counted as same; see ``candidates``).
        self.seed_order = 0
        self.differences = []
        self.skipped = {}
        self.gabbi_failures = []

    def exchange(self, method, uri, ours, up, found):
        self._count('%s %s' % (method, uri), found, up.status)

    def table_rows(self, found):
        self._count('rows after the file', found)

    def _count(self, where, found, upstream_status=''):
        if not found:
            self.same += 1
            return
        kept = []
        for kind, detail in found:
            entry = allowlist.match(self.entries, self.file,
                                    self.test or '', kind, detail, where,
                                    upstream_status)
            kept.append(Difference(self.file, self.test, where, kind,
                                   detail, entry))
        self.differences.extend(kept)
        if all(diff.allowed for diff in kept):
            self.allowed += 1
        else:
            self.different += 1
        for diff in kept:
            mark = 'ALLOWED ' if diff.allowed else ''
            self.out.write('%sDIFF %s :: %s :: %s [%s]\n      %s\n'
                           % (mark, diff.file, diff.test, diff.where,
                              diff.kind, diff.detail))
        self.out.flush()


class _Result(unittest.TestResult):
    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def startTest(self, test):
        super().startTest(test)
        data = getattr(test, 'test_data', None)
        self.recorder.test = data['name'] if data else str(test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.recorder.gabbi_failures.append((self.recorder.file, str(test)))
        if os.environ.get("DIFFERENTIAL_DEBUG"):
            print(self._exc_info_to_string(err, test))

    addError = addFailure


class _Dual:
    """Mixed into each gabbi fixture: upstream gets the same start."""

    run = None  # the Run, set per bound namespace

    def start_fixture(self):
        run = self.run
        recorded = _Uuids()
        self.up_url = None
        candidate_trees.uuid = recorded
        try:
            super().start_fixture()  # starts upstream in populate()
            if isinstance(self, fixtures.CandidateTreeFixture):
                self._seed_upstream(recorded)
        except BaseException:
            if self.up_url:
                run.upstream.stop()
                self.backend.drop(self.up_url)
                if getattr(self, 'placement', None):
                    super().stop_fixture()
            raise
        finally:
            candidate_trees.uuid = _real_uuid
        run.tee.ours_app = fixtures.current_app()
        run.tee.uuid_map = tee_module.compare.UuidMap()

    def populate(self, placement):
        """Start upstream on its own database, give ours upstream's ids
        of the standard traits (upstream numbers them in an order that
        changes from one start to the next; a shared database would have
        one numbering), then populate as the fixture does."""
        from placement import deploy
        self.up_url = self.backend.create()
        options = dict(self.overrides)
        options.update(getattr(self, 'late_overrides', {}))
        self.run.upstream.start(self.up_url, options)
        rows.copy_trait_ids(self.up_url, placement.db)
        placement.app = deploy.loadapp(placement.conf, db=placement.db)
        fixtures.serve(placement.app)
        super().populate(placement)

    def _seed_upstream(self, recorded):
        conf = app_fixture.make_conf(self.up_url)
        db = db_api.create_database(conf)
        candidate_trees.uuid = _Uuids(replay=recorded.made)
        try:
            candidate_trees.build(db, self.tree)
        finally:
            candidate_trees.uuid = _real_uuid
            db.dispose()

    def stop_fixture(self):
        run = self.run
        try:
            run.recorder.test = ROWS_TEST
            ours = rows.dump(self.placement.url)
            up = rows.dump(self.up_url, run.tee.uuid_map.to_ours)
            run.recorder.table_rows(
                [('rows %s' % table, detail)
                 for table, detail in rows.compare(ours, up)])
        finally:
            run.upstream.stop()
            self.backend.drop(self.up_url)
            super().stop_fixture()


_real_uuid = candidate_trees.uuid
# The "test name" under which the rows compared after a file are reported.
ROWS_TEST = '(rows after the file)'


class _Uuids:
    """Stands in for the uuid module: records uuid4()s, or replays them."""

    def __init__(self, replay=None):
        self.made = []
        self.replay = list(replay or ())

    def uuid4(self):
        value = self.replay.pop(0) if self.replay else _real_uuid.uuid4()
        self.made.append(value)
        return value


class Run:
    def __init__(self, backend, upstream, recorder):
        self.backend = backend
        self.upstream = upstream
        self.recorder = recorder
        self.tee = tee_module.Tee(None, upstream, recorder)

    def fixture_namespace(self):
        namespace = types.SimpleNamespace()
        for name, value in vars(fixtures).items():
            if (inspect.isclass(value)
                    and issubclass(value, gabbi_fixture.GabbiFixture)
                    and value is not gabbi_fixture.GabbiFixture):
                setattr(namespace, name, type(name, (_Dual, value), {
                    'backend': self.backend, 'run': self}))
        return namespace

    def run_file(self, path):
        self.recorder.file = os.path.basename(path)
        self.recorder.test = None
        directory = tempfile.mkdtemp(prefix='differential-')
        # The YAML file, and the data files and directories beside it
        # (``<@bad-input/deep-list.json``).
        for name in os.listdir(os.path.dirname(path)):
            if name == os.path.basename(path) or not name.endswith('.yaml'):
                os.symlink(os.path.join(os.path.dirname(path), name),
                           os.path.join(directory, name))
        suite = driver.build_tests(
            directory, unittest.TestLoader(), host=None,
            intercept=lambda: self.tee, test_loader_name='differential',
            fixture_module=self.fixture_namespace())
        result = _Result(self.recorder)
        suite.run(result)
        if result.skipped and not result.testsRun:
            # A fixture that skips (MySQLUtf8Fixture) skips the file.
            self.recorder.skipped[self.recorder.file] = result.skipped[0][1]
        shutil.rmtree(directory)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog='tools/differential',
        description='Replay the gabbi suite against our service and '
                    'upstream; print every difference.')
    parser.add_argument('--db', choices=('mysql', 'postgresql', 'sqlite'),
                        default='mysql')
    parser.add_argument('--files', default='*.yaml',
                        help='glob of gabbi files to replay')
    parser.add_argument('--port', type=int, default=18501,
                        help='port for the upstream server')
    parser.add_argument('--tmpdir', default='/tmp/differential-up',
                        help="TMPDIR for upstream-server (its venv)")
    parser.add_argument('--write-doc', action='store_true',
                        help='write the doc page from the allowlist, exit')
    parser.add_argument('--generated', type=int, default=0, metavar='N',
                        help='send N generated requests instead of the '
                             'gabbi suite (differential_lib/generated.py)')
    parser.add_argument('--seed', type=int, default=22,
                        help='the seed of --generated')
    parser.add_argument('--minutes', type=float, default=0,
                        help='stop --generated after this many minutes')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    entries = allowlist.load()
    if args.write_doc:
        with open(allowlist.DOC_PATH, 'w') as handle:
            handle.write(allowlist.render(entries))
        print('wrote %s' % allowlist.DOC_PATH)
        return 0
    backend = backends.BACKENDS[args.db]
    recorder = Recorder(entries, sys.stdout)
    if args.generated:
        from tools.differential_lib import generated
        generated.main(args, recorder, sys.stdout)
        report(recorder, args.db)
        return 1 if recorder.different else 0
    upstream = upstream_module.Upstream(args.port, args.tmpdir)
    upstream.stop()
    run = Run(backend, upstream, recorder)
    names = sorted(name for name in os.listdir(gabbi_files.GABBI_DIR)
                   if fnmatch.fnmatch(name, args.files)
                   and name.endswith('.yaml')
                   and gabbi_files.runs_on(name, args.db))
    for name in names:
        print('== %s' % name, flush=True)
        run.run_file(os.path.join(gabbi_files.GABBI_DIR, name))
    report(recorder, args.db)
    return 1 if recorder.different else 0


def report(recorder, db):
    print('\n== summary (%s)' % db)
    kinds = collections.Counter()
    for diff in recorder.differences:
        if not diff.allowed:
            kinds[diff.kind] += 1
    for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
        print('%5d  %s' % (count, kind))
    for name, reason in sorted(recorder.skipped.items()):
        print('skipped %s: %s' % (name, reason))
    if recorder.gabbi_failures:
        print('%d gabbi tests failed against our service (answers still '
              'compared):' % len(recorder.gabbi_failures))
        for name, test in recorder.gabbi_failures:
            print('    %s :: %s' % (name, test))
    print('%d differences allowed by tools/differential-allowlist.yaml'
          % recorder.allowed)
    print('%d candidate answers judged by the limit/cap rule (counted as '
          'same)' % recorder.seed_order)
    print('%d same, %d different' % (recorder.same, recorder.different))
