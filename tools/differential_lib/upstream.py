"""The upstream release as a black box: start, ask over HTTP, stop.

It is started with /work/shared/tools/upstream-server (or the script named
by ``$PLACEMENT_UPSTREAM_SERVER``) under our own ``TMPDIR`` so that other
people's upstream servers are left alone. Options are passed as
``OS_<GROUP>__<OPTION>`` environment variables, which oslo.config reads.
"""
import contextlib
import http.client
import os
import subprocess
import time

SCRIPT = os.environ.get('PLACEMENT_UPSTREAM_SERVER',
                        '/work/shared/tools/upstream-server')


def option_env(overrides):
    """{'group.option': value} -> {'OS_GROUP__OPTION': text}."""
    env = {}
    for key, value in overrides.items():
        group, _, name = key.rpartition('.')
        if isinstance(value, (list, tuple)):
            value = ','.join(str(item) for item in value)
        env['OS_%s__%s' % ((group or 'DEFAULT').upper(),
                           name.upper())] = str(value)
    return env


def upstream_url(db_url):
    """``db_url`` with the driver the upstream release's virtualenv has:
    psycopg2 where ours names psycopg 3 (``postgresql+psycopg://``)."""
    prefix = 'postgresql+psycopg://'
    if db_url.startswith(prefix):
        return 'postgresql+psycopg2://' + db_url[len(prefix):]
    return db_url


class Upstream:
    """One upstream server at a time on ``port``."""

    def __init__(self, port, tmpdir):
        self.port = port
        self.tmpdir = tmpdir
        os.makedirs(tmpdir, exist_ok=True)
        self.pid_file = os.path.join(tmpdir, 'placement-upstream', 'pid')
        self.db_url = None
        self.options = {}

    def _run(self, *args, extra_env=None):
        env = dict(os.environ, TMPDIR=self.tmpdir)
        env.pop('PYTHONPATH', None)
        env.update(extra_env or {})
        # Started from our tree, uwsgi would import our ``placement``
        # package (it puts its working directory on sys.path).
        return subprocess.run((SCRIPT,) + args, env=env, text=True,
                              cwd=self.tmpdir, capture_output=True)

    def start(self, db_url, options=None):
        self.db_url, self.options = db_url, dict(options or {})
        extra = option_env(self.options)
        for _ in range(3):
            done = self._run('--port', str(self.port), '--db',
                             upstream_url(db_url), extra_env=extra)
            if done.returncode == 0:
                return
            self.stop()
            time.sleep(1)
        raise RuntimeError('upstream did not start: %s%s'
                           % (done.stdout, done.stderr))

    @contextlib.contextmanager
    def without(self, option):
        """The same server restarted on the same database without
        ``option`` (a 'group.option' key) for the time of the block, then
        restarted as it was."""
        db_url, options = self.db_url, self.options
        self.stop()
        self.start(db_url, {key: value for key, value in options.items()
                            if key != option})
        try:
            yield self
        finally:
            self.stop()
            self.start(db_url, options)

    def stop(self):
        pid = None
        if os.path.exists(self.pid_file):
            with open(self.pid_file) as handle:
                text = handle.read().strip()
            pid = int(text) if text.isdigit() else None
        self._run('--stop')
        deadline = time.time() + 30
        while pid and time.time() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                return
            time.sleep(0.1)

    def request(self, method, uri, headers, body):
        """(status line text, [(name, value)], body bytes)."""
        conn = http.client.HTTPConnection('127.0.0.1', self.port,
                                          timeout=120)
        try:
            conn.putrequest(method, uri, skip_host=True,
                            skip_accept_encoding=True)
            for name, value in headers:
                conn.putheader(name, value)
            conn.endheaders(body or None)
            response = conn.getresponse()
            status = '%d %s' % (response.status, response.reason)
            return status, response.getheaders(), response.read()
        finally:
            conn.close()
