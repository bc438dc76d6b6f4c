"""placement-api as a newcomer runs it, and the admin commands beside it
on the same embedded database: real processes, their exit status and
what they print (one line for an error, never a traceback)."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

from placement.db import migration

TIMEOUT = 120
# The installed script beside this Python (the package's bin/placement-api).
SCRIPT = os.path.join(os.path.dirname(sys.executable), 'placement-api')
if not os.path.exists(SCRIPT):
    SCRIPT = os.path.join(os.path.dirname(__file__), *['..'] * 4, 'bin',
                          'placement-api')


def _environ(here, env=None):
    """This environment less placement's options, with an empty
    configuration directory ``here``."""
    open(os.path.join(here, 'placement.conf'), 'w').close()
    environ = {name: value for name, value in os.environ.items()
               if not name.startswith(('OS_API__', 'OS_PLACEMENT'))}
    environ.update(OS_PLACEMENT_CONFIG_DIR=here, **(env or {}))
    return environ


def _command(name):
    """The argv start of the installed ``name`` (placement-manage,
    placement-status) beside this Python, else its module's main."""
    script = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(script):
        return [sys.executable, script]
    module = name.split('-')[1]
    return [sys.executable, '-c', 'import sys; from placement.cmd.%s '
            'import main; sys.exit(main())' % module]


def _admin(here, name, *args):
    """(exit status, stdout, stderr) of an admin command run in ``here``
    with the configuration of ``_environ`` (no database configured)."""
    done = subprocess.run(
        _command(name) + list(args), cwd=here, env=_environ(here),
        capture_output=True, text=True, timeout=TIMEOUT,
        stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr


def _run(args, env=None):
    """(exit status, stdout, stderr) of ``placement-api ARGS``, in an
    empty directory and with an empty configuration directory, so that
    embedded mode's SQLite file lands in a temporary place."""
    with tempfile.TemporaryDirectory(prefix='placement-api-') as here:
        environ = _environ(here, env)
        done = subprocess.run(
            [sys.executable, SCRIPT] + args, cwd=here,
            env=environ, capture_output=True, text=True, timeout=TIMEOUT,
            stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr


class PlacementApiCommandTest(unittest.TestCase):

    def test_help_shows_the_defaults(self):
        code, out, _err = _run(['--help'])
        self.assertEqual(0, code)
        self.assertIn('(default: 127.0.0.1)', out)
        self.assertIn('(default: 8778)', out)
        self.assertIn('--config-file', out)

    def test_a_busy_port_is_one_line_naming_it(self):
        with socket.socket() as busy:
            busy.bind(('127.0.0.1', 0))
            busy.listen()
            port = busy.getsockname()[1]
            code, _out, err = _run(['--port', str(port)])
        self.assertEqual(1, code, err)
        self.assertEqual(
            ['placement-api: error: cannot listen on 127.0.0.1:%d: Address '
             'already in use' % port], err.splitlines())

    def test_keystone_without_its_options_stops_at_start(self):
        code, _out, err = _run(['--port', '0'],
                               env={'OS_API__AUTH_STRATEGY': 'keystone'})
        self.assertEqual(1, code, err)
        self.assertNotIn('Traceback', err)
        last = err.splitlines()[-1]
        self.assertTrue(last.startswith('placement-api: error: '), last)
        for name in ('[keystone_authtoken]', 'auth_type', 'auth_url',
                     'www_authenticate_uri', 'noauth2'):
            self.assertIn(name, last)

    def test_keystone_plugin_missing_an_option_names_it(self):
        code, _out, err = _run(['--port', '0'], env={
            'OS_API__AUTH_STRATEGY': 'keystone',
            'OS_KEYSTONE_AUTHTOKEN__AUTH_TYPE': 'password'})
        self.assertEqual(1, code, err)
        self.assertNotIn('Traceback', err)
        self.assertIn('[keystone_authtoken] lacks auth_url, which auth_type '
                      'password requires', err.splitlines()[-1])


def _interruptible():
    # Ctrl-C as in a terminal even when the suite itself runs with SIGINT
    # ignored (a background job of a script, nohup): Python turns SIGINT
    # into KeyboardInterrupt only when it starts with the default action.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_stop(here):
    """(stdout lines, stderr lines) of placement-api in embedded mode in
    ``here``, from its start until it says it serves, then interrupted
    (Ctrl-C). Killed if it has not said so within TIMEOUT."""
    proc = subprocess.Popen(
        [sys.executable, SCRIPT, '--port', '0'], cwd=here,
        env=_environ(here), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_interruptible)
    timer = threading.Timer(TIMEOUT, proc.kill)
    timer.start()
    try:
        err = []
        for line in proc.stderr:
            err.append(line.rstrip('\n'))
            if 'serving on' in line:
                proc.send_signal(signal.SIGINT)
                break
        out, rest = proc.communicate()
    finally:
        timer.cancel()
    return out.splitlines(), err + rest.splitlines()


class PlacementApiStartTest(unittest.TestCase):
    """What the development server prints as it starts: what an operator
    needs (where the database is, the revisions a sync applies, where it
    serves), not the plugins alembic loads nor its per-run chatter."""

    def test_first_start_names_the_database_revisions_and_address(self):
        with tempfile.TemporaryDirectory(prefix='placement-api-') as here:
            out, err = _start_and_stop(here)
            database = os.path.join(here, 'placement.sqlite')
        self.assertEqual([
            'No [placement_database] connection configured: embedded mode, '
            'SQLite at %s, auth_strategy noauth2' % database,
            'placement-api serving on http://127.0.0.1:0/'], err)
        messages = [re.sub(r'^.* INFO (\S+) \[-\] ', r'\1: ', line)
                    for line in out]
        self.assertTrue(messages, 'no revision applied')
        for message in messages:
            self.assertTrue(message.startswith(
                'alembic.runtime.migration: Running upgrade '), message)

    def test_a_start_at_head_prints_two_lines(self):
        with tempfile.TemporaryDirectory(prefix='placement-api-') as here:
            _start_and_stop(here)
            out, err = _start_and_stop(here)
        self.assertEqual([], out)
        self.assertEqual(2, len(err), err)


class EmbeddedAdminCommandsTest(unittest.TestCase):
    """With no database configured, placement-manage and
    placement-status use the ./placement.sqlite that placement-api
    serves (one default for all three)."""

    def setUp(self):
        super().setUp()
        self.here = tempfile.mkdtemp(prefix='placement-admin-')
        self.addCleanup(shutil.rmtree, self.here, ignore_errors=True)
        self.database = os.path.join(self.here, 'placement.sqlite')

    def _says_embedded(self, prog, err):
        self.assertIn('%s: no [placement_database] connection configured: '
                      'using the embedded database %s' % (prog, self.database),
                      err.splitlines())

    def test_admin_commands_read_the_database_placement_api_made(self):
        _start_and_stop(self.here)
        code, out, err = _admin(self.here, 'placement-status', 'upgrade',
                                'check')
        self.assertEqual(0, code, (out, err))
        self.assertIn('Upgrade Check Results', out)
        self._says_embedded('placement-status', err)
        code, out, err = _admin(self.here, 'placement-manage', 'db',
                                'version')
        self.assertEqual((0, migration.head_revision() + '\n'),
                         (code, out), err)
        self._says_embedded('placement-manage', err)
        code, out, err = _admin(self.here, 'placement-manage', 'audit')
        self.assertEqual(0, code, (out, err))

    def test_db_sync_creates_it_for_placement_api(self):
        code, out, err = _admin(self.here, 'placement-manage', 'db', 'sync')
        self.assertEqual(0, code, (out, err))
        self._says_embedded('placement-manage', err)
        self.assertTrue(os.path.exists(self.database))
        out, err = _start_and_stop(self.here)
        self.assertEqual([], out)
        self.assertEqual(2, len(err), err)

    def test_without_it_each_says_where_it_looked_in_one_line(self):
        conf = os.path.join(self.here, 'placement.conf')
        for name, args, status in (
                ('placement-manage', ('db', 'version'), 1),
                ('placement-manage', ('audit',), 1),
                ('placement-status', ('upgrade', 'check'), 255)):
            code, out, err = _admin(self.here, name, '--config-file', conf,
                                    *args)
            self.assertEqual((status, ''), (code, out), (name, err))
            self.assertEqual(1, len(err.splitlines()), err)
            for hint in ('%s: error: no database configured' % name,
                         '[placement_database] connection is not set',
                         'no embedded database %s here' % self.database,
                         '--config-file PATH (files read: %s)' % conf,
                         'OS_PLACEMENT_DATABASE__CONNECTION'):
                self.assertIn(hint, err)
        self.assertFalse(os.path.exists(self.database))


if __name__ == '__main__':
    unittest.main()
