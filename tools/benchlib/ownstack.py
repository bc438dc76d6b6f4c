"""Servers for the fleet measurements (``tools/nova_fleet``): a MariaDB
of our own, placement under uwsgi with keep-alive, and their CPU.

The shared MariaDB on 127.0.0.1:3306 also serves everyone's tests, and
one ``mariadbd`` process is every client's: its CPU is not ours to
count. ``mariadb_start`` runs a private ``mariadbd`` (datadir under
``$TMPDIR``, loopback port ``--mariadb-port``, the distribution's
defaults: a 128 MiB buffer pool, flush at each commit), whose only
clients are the servers under test, so its whole CPU is theirs. On
PostgreSQL the backends connected to a server's database are counted
(benchlib.procstat.postgresql_backends), on the shared server.

Each placement server runs as ``bench servers`` runs them (uwsgi, 2
processes x 10 threads, noauth2, a fresh database synced at start) but
with ``--http11-socket``: a Nova compute's keystoneauth session keeps
its connection alive, and ``--http-socket`` closes each connection
after one answer. Ours may be given ``[metrics] enabled`` (the /metrics
scrape of the fleet model); upstream has no /metrics (a 404).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from oslo_log import log as oslo_log
import sqlalchemy as sa

from tools.benchlib import procstat
from tools.benchlib import servers

MARIADBD = '/usr/sbin/mariadbd'
PG_ADMIN = 'postgresql+psycopg2://postgres@127.0.0.1/postgres'


def mariadb_dir():
    return os.path.join(tempfile.gettempdir(), 'nova-fleet-mariadb')


def mariadb_start(port):
    """Start the private mariadbd on ``port`` unless it runs; its pid."""
    home = mariadb_dir()
    pid = mariadb_pid()
    if pid:
        return pid
    data = os.path.join(home, 'data')
    if not os.path.isdir(os.path.join(data, 'mysql')):
        os.makedirs(data, exist_ok=True)
        subprocess.run(['mariadb-install-db', '--no-defaults',
                        '--datadir=' + data, '--auth-root-authentication-'
                        'method=normal', '--skip-test-db'],
                       check=True, capture_output=True)
    log = open(os.path.join(home, 'mariadbd.log'), 'a')
    proc = subprocess.Popen(
        [MARIADBD, '--no-defaults', '--datadir=' + data,
         '--socket=' + os.path.join(home, 'sock'), '--port=%d' % port,
         '--bind-address=127.0.0.1', '--skip-grant-tables',
         '--pid-file=' + os.path.join(home, 'pid'),
         '--max-connections=400', '--skip-log-bin', '--user=root'],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = mariadb_url(port, '')
    for _ in range(120):
        try:
            sa.create_engine(url, poolclass=sa.pool.NullPool).connect(
            ).close()
            return proc.pid
        except sa.exc.OperationalError:
            if proc.poll() is not None:
                sys.exit('mariadbd did not start; see %s' % log.name)
            time.sleep(0.5)
    sys.exit('mariadbd did not answer; see %s' % log.name)


def mariadb_pid():
    try:
        with open(os.path.join(mariadb_dir(), 'pid')) as f:
            pid = int(f.read())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def mariadb_stop():
    pid = mariadb_pid()
    if pid:
        os.kill(pid, 15)
        for _ in range(100):
            if mariadb_pid() is None:
                break
            time.sleep(0.2)


def mariadb_url(port, name):
    return 'mysql+pymysql://root@127.0.0.1:%d/%s' % (port, name)


def database(kind, name, port, pg_driver='psycopg2'):
    """Drop and create ``name`` (private MariaDB on ``port``, or the
    shared PostgreSQL); its URL naming ``pg_driver`` on PostgreSQL."""
    admin = mariadb_url(port, '') if kind == 'mysql' else PG_ADMIN
    engine = sa.create_engine(admin, isolation_level='AUTOCOMMIT',
                              poolclass=sa.pool.NullPool)
    with engine.connect() as conn:
        conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        conn.execute(sa.text('CREATE DATABASE %s' % name))
    if kind == 'mysql':
        return mariadb_url(port, name)
    return 'postgresql+%s://postgres@127.0.0.1/%s' % (pg_driver, name)


def serve(who, venv, port, db_url, metrics=False, app=None, tree=None,
          access_log=True, pool=None):
    """Start one uwsgi (2 x 10, --http11-socket, daemonized); its master's
    pid. ``app``: another module:callable (the bare WSGI floor);
    ``tree``: a checkout whose ``placement`` package is imported first
    (a build of a commit, with the virtualenv of another);
    ``access_log=False``: ``placement.requestlog`` at WARN, as the sizing
    guide tells a large fleet that does not need the access line;
    ``pool``: ``[placement_database] max_pool_size`` (oslo.db's default,
    5, when None)."""
    run = servers.run_dir('fleet')
    home = os.path.join(run, who)
    os.makedirs(home, exist_ok=True)
    open(os.path.join(home, 'placement.conf'), 'w').close()
    log, pidfile = (os.path.join(run, who + '.log'),
                    os.path.join(run, who + '.pid'))
    stop(who)
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=home,
               OS_PLACEMENT_DATABASE__CONNECTION=db_url,
               OS_PLACEMENT_DATABASE__SYNC_ON_STARTUP='True',
               OS_API__AUTH_STRATEGY='noauth2', BARE_DB_URL=db_url)
    if metrics:
        env.update(OS_METRICS__ENABLED='True',
                   OS_METRICS__ALLOW_ANONYMOUS='True')
    if pool is not None:
        env['OS_PLACEMENT_DATABASE__MAX_POOL_SIZE'] = str(pool)
    if not access_log:
        env['OS_DEFAULT__DEFAULT_LOG_LEVELS'] = ','.join(
            oslo_log.get_default_log_levels() + ['placement.requestlog=WARN'])
    env.pop('VIRTUAL_ENV', None)
    argv = [os.path.join(venv, 'bin', 'uwsgi'), '--master',
            '--http11-socket', '127.0.0.1:%d' % port, '--home', venv,
            '--processes', '2', '--threads', '10', '--chdir', home,
            '--need-app', '--die-on-term', '--logto', log, '--daemonize2',
            log, '--pidfile', pidfile]
    if tree:
        argv += ['--pythonpath', tree]
    if app:
        argv += ['--pythonpath', servers.HERE, '--module', app]
    else:
        argv += ['--module', 'placement.wsgi.api:application']
    subprocess.run(argv, env=env, check=True)
    return servers.wait_up(who, port, pidfile, log)


def stop(who):
    """SIGINT the uwsgi master ``who`` started by ``serve``; wait 5 s."""
    pidfile = os.path.join(servers.run_dir('fleet'), who + '.pid')
    try:
        with open(pidfile) as f:
            pid = int(f.read())
        os.kill(pid, 2)
        for _ in range(50):
            os.kill(pid, 0)
            time.sleep(0.1)
    except (OSError, ValueError):
        pass
    try:
        os.unlink(pidfile)
    except OSError:
        pass


class Cpu:
    """CPU seconds of one server (uwsgi master and workers) and of the
    database work it causes (the private mariadbd, or its PostgreSQL
    backends)."""

    def __init__(self, server_pid, db_url, mariadbd_pid=None):
        self.server_pid, self.db_url = server_pid, db_url
        self.mariadbd_pid = mariadbd_pid

    def db_pids(self):
        if self.db_url.startswith('postgresql'):
            return procstat.postgresql_backends(self.db_url)
        return [self.mariadbd_pid] if self.mariadbd_pid else []

    def sample(self):
        """(server seconds, {database pid: seconds}) so far."""
        if self.mariadbd_pid and not self.db_url.startswith('postgresql'):
            # One process, a thread per connection: a thread that ended
            # leaves the task list (and the sum of its schedstats) but
            # stays in the process's own utime + stime.
            return (procstat.cpu_seconds([self.server_pid]),
                    {self.mariadbd_pid: process_seconds(self.mariadbd_pid)})
        return (procstat.cpu_seconds([self.server_pid]),
                {pid: procstat.cpu_seconds([pid], family=False)
                 for pid in self.db_pids()})


def process_seconds(pid):
    """utime + stime of ``pid`` (every thread, ended ones included), in
    seconds, from /proc/PID/stat (clock ticks: 10 ms)."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def used(before, after):
    """(server, database) CPU seconds between two ``Cpu.sample``s. A
    database process that began in between counts whole; one that
    ended in between (a PostgreSQL backend of a connection the pool
    closed) is lost: the database figure is then a floor."""
    db = sum(seconds - before[1].get(pid, 0.0)
             for pid, seconds in after[1].items())
    return after[0] - before[0], db


def have(program):
    return shutil.which(program) is not None
