"""placement-api as a newcomer runs it: a real process, its exit status
and what it prints (one line for an error, never a traceback)."""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

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


if __name__ == '__main__':
    unittest.main()
