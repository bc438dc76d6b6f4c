"""Ours and the upstream release side by side, for the HTTP benchmarks.

Each server runs under uwsgi, 2 processes x 10 threads, noauth2, on a
fresh database of its own (``<prefix>_ours``, ``<prefix>_up``) on MariaDB
or PostgreSQL, synced at start. ``OURS_VENV`` selects the virtualenv of
the build called "ours" (default: this checkout's ``.venv``);
``UPSTREAM_VENV`` the upstream release's (default
``$TMPDIR/placement-upstream/venv``, as /work/shared/tools/upstream-server
makes it). OS_PLACEMENT_* variables in the environment reach both servers
(for example OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES=True).
"""
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

import sqlalchemy as sa

HERE = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SERVER_URLS = {'mysql': 'mysql+pymysql://root@127.0.0.1/',
               'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1/'}
RANDOMIZE = 'OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES'
DEFAULT_PORTS = (18802, 18801)  # ours, upstream


@dataclasses.dataclass(frozen=True)
class Pair:
    """Both servers: what the HTTP benchmarks take as arguments."""
    url: str
    db: str
    pid: int
    compare_url: str
    compare_db: str
    compare_pid: int

    def argv(self):
        return ['--url', self.url, '--db', self.db, '--pid', str(self.pid),
                '--compare-url', self.compare_url, '--compare-db',
                self.compare_db, '--compare-pid', str(self.compare_pid)]


@dataclasses.dataclass(frozen=True)
class Settings:
    kind: str = 'mysql'
    ours_port: int = DEFAULT_PORTS[0]
    upstream_port: int = DEFAULT_PORTS[1]
    prefix: str = 'bench'
    # True or False sets or clears RANDOMIZE for both; None keeps the
    # environment's.
    randomize: object = None


def ours_venv():
    return os.environ.get('OURS_VENV') or os.path.join(HERE, '.venv')


def upstream_venv():
    return os.environ.get('UPSTREAM_VENV') or os.path.join(
        tempfile.gettempdir(), 'placement-upstream', 'venv')


def run_dir(prefix):
    return os.path.join(tempfile.gettempdir(), 'bench-servers-%s' % prefix)


def start(settings):
    """Stop the servers of the prefix, then start both afresh; a Pair."""
    up_venv = upstream_venv()
    if not os.access(os.path.join(up_venv, 'bin', 'uwsgi'), os.X_OK):
        sys.exit('no upstream venv at %s (run /work/shared/tools/'
                 'upstream-server once)' % up_venv)
    stop(settings.prefix)
    run = run_dir(settings.prefix)
    os.makedirs(run, exist_ok=True)
    _drivers_in(up_venv)
    ours_db = database(settings.kind, '%s_ours' % settings.prefix,
                       os.environ.get('OURS_PG_DRIVER', 'psycopg'))
    up_db = database(settings.kind, '%s_up' % settings.prefix)
    env = _environment(settings.randomize)
    pids = [serve(run, who, venv, port, url, env) for who, venv, port, url in (
        ('ours', ours_venv(), settings.ours_port, ours_db),
        ('upstream', up_venv, settings.upstream_port, up_db))]
    return Pair('http://127.0.0.1:%d' % settings.ours_port, ours_db, pids[0],
                'http://127.0.0.1:%d' % settings.upstream_port, up_db,
                pids[1])


def _environment(randomize):
    env = dict(os.environ)
    if randomize is not None:
        env.pop(RANDOMIZE, None)
        if randomize:
            env[RANDOMIZE] = 'True'
    return env


def _drivers_in(venv):
    python = os.path.join(venv, 'bin', 'python')
    if subprocess.run([python, '-c', 'import pymysql, psycopg2'],
                      capture_output=True).returncode:
        subprocess.run([os.path.join(venv, 'bin', 'pip'), '-q', 'install',
                        'psycopg2-binary', 'PyMySQL'], check=True)


def database(kind, name, pg_driver='psycopg2'):
    """Drop and create database ``name``; its URL, naming ``pg_driver``
    on PostgreSQL (ours runs psycopg 3 unless OURS_PG_DRIVER says
    otherwise, e.g. psycopg2 for an older commit; upstream psycopg2)."""
    engine = sa.create_engine(SERVER_URLS[kind] + (
        'postgres' if kind == 'postgresql' else ''),
        isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        conn.execute(sa.text('CREATE DATABASE %s' % name))
    engine.dispose()
    url = SERVER_URLS[kind] + name
    if kind == 'postgresql':
        url = url.replace('+psycopg2:', '+%s:' % pg_driver)
    return url


def serve(run, who, venv, port, db_url, env, conf_text=''):
    """Start one server under uwsgi (daemonized), ``conf_text`` its
    placement.conf; its master's pid."""
    home = os.path.join(run, who)
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, 'placement.conf'), 'w') as handle:
        handle.write(conf_text)
    log, pidfile = os.path.join(run, who + '.log'), os.path.join(
        run, who + '.pid')
    env = dict(env, OS_PLACEMENT_CONFIG_DIR=home,
               OS_PLACEMENT_DATABASE__CONNECTION=db_url,
               OS_PLACEMENT_DATABASE__SYNC_ON_STARTUP='True',
               OS_API__AUTH_STRATEGY='noauth2')
    subprocess.run([
        os.path.join(venv, 'bin', 'uwsgi'), '--master', '--http-socket',
        '127.0.0.1:%d' % port, '--home', venv, '--module',
        'placement.wsgi.api:application', '--processes', '2', '--threads',
        '10', '--chdir', home, '--need-app', '--die-on-term', '--logto',
        log, '--daemonize2', log, '--pidfile', pidfile], env=env, check=True)
    return wait_up(who, port, pidfile, log)


def wait_up(who, port, pidfile, log):
    """The pid in ``pidfile`` once the server on ``port`` answers (two
    minutes at most, else exit naming ``log``)."""
    for _ in range(240):
        try:
            urllib.request.urlopen('http://127.0.0.1:%d/' % port).read()
            with open(pidfile) as f:
                return int(f.read())
        except OSError:
            time.sleep(0.5)
    sys.exit('%s did not come up; see %s' % (who, log))


def stop(prefix):
    """SIGINT both servers of ``prefix`` and wait (5 s at most) for each."""
    run = run_dir(prefix)
    for who in ('ours', 'upstream'):
        pidfile = os.path.join(run, who + '.pid')
        try:
            with open(pidfile) as f:
                pid = int(f.read())
        except (OSError, ValueError):
            continue
        try:
            os.kill(pid, 2)
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)
        except ProcessLookupError:
            pass
        os.unlink(pidfile)
