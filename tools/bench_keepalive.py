"""Latency on one kept-alive connection against a new connection per
request (a tool, not a test; issue 25).

An answer whose body a worker hands to the server in several pieces can
wait, on a kept-alive connection, for the client's delayed ACK (some 40
ms) before its last piece leaves. This starts each given placement
virtualenv (``--venv LABEL=PATH``, e.g. the tree before and after a
change) under one WSGI server, all on one database loaded with
benchlib's flat shape, and runs wrk at ONE connection against
each route, kept alive and then with ``Connection: close`` (a new
connection per request), the servers interleaved route by route and
round by round. It prints, per route, server and connection mode: the
requests per second and the latency min / median / p90 (wrk's, in ms,
the median round), and, on one kept-alive connection of its own, the
time from the first to the last byte of each answer and how many took
over 30 ms: a stall shows as some 40 ms there, where the pieces of an
answer otherwise arrive within a millisecond or so.

Servers (``--server``), each 2 processes x 10 threads, noauth2:
  uwsgi-http         uwsgi's --http router (a router process in front of
                     the workers) with --http-keepalive;
  uwsgi-http11-socket  the workers speak HTTP/1.1 themselves
                     (--http11-socket; --http-socket, as tools/bench-servers
                     and etc/placement/placement-uwsgi.ini run them, closes
                     every connection after one answer);
  gunicorn           gunicorn's gthread workers; gunicorn is imported from
                     --gunicorn-path (a pip --target directory), never
                     installed into the virtualenvs.

    .venv/bin/python tools/bench_keepalive.py --db mysql \\
        --venv before=/tmp/render/base/.venv --venv after=.venv \\
        --server uwsgi-http --port 19610 --rounds 3 --duration 5

Needs wrk (Debian's ``wrk``) on the PATH. The database (``<prefix>_ka``)
is dropped at the end; the servers are stopped.
"""
import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from tools.benchlib import data  # noqa: E402
from tools.benchlib import queries  # noqa: E402

HEADERS = ('x-auth-token: admin', 'accept: application/json',
           'openstack-api-version: placement 1.39')
# wrk prints these after the run (microseconds), one line.
REPORT = '''done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests,
    summary.duration, latency.min, latency:percentile(50),
    latency:percentile(90)))
end
'''


def routes(in_tree_uuid):
    """[(label, path)] of the routes measured."""
    return [
        ('GET /resource_providers?in_tree=',
         '/resource_providers?in_tree=%s' % in_tree_uuid),
        ('GET /resource_providers?member_of=',
         '/resource_providers?member_of=%s' % data.AGG),
        ('GET /allocation_candidates limit=10',
         '/allocation_candidates?%s&limit=10' % queries.FLAT_QUERY),
    ]


def database(kind, name):
    """Drop and create database ``name``; its URL."""
    if kind == 'mysql':
        subprocess.run(['mysql', '-uroot', '-h127.0.0.1', '-e',
                        'DROP DATABASE IF EXISTS %s; CREATE DATABASE %s'
                        % (name, name)], check=True)
        return 'mysql+pymysql://root@127.0.0.1/%s' % name
    for sql in ('DROP DATABASE IF EXISTS %s' % name,
                'CREATE DATABASE %s' % name):
        subprocess.run(['psql', '-q', '-h127.0.0.1', '-Upostgres', '-c',
                        sql], check=True)
    return 'postgresql+psycopg2://postgres@127.0.0.1/%s' % name


def drop(kind, name):
    if kind == 'mysql':
        subprocess.run(['mysql', '-uroot', '-h127.0.0.1', '-e',
                        'DROP DATABASE IF EXISTS %s' % name])
    else:
        subprocess.run(['psql', '-q', '-h127.0.0.1', '-Upostgres', '-c',
                        'DROP DATABASE IF EXISTS %s' % name])


def command(server, venv, port, run_dir, args):
    """The server's command line and extra environment."""
    if server == 'gunicorn':
        return ([os.path.join(venv, 'bin', 'python'), '-m', 'gunicorn',
                 '--workers', '2', '--threads', '10', '--worker-class',
                 'gthread', '--bind', '127.0.0.1:%d' % port,
                 '--chdir', run_dir] + args.option
                + ['placement.wsgi.api:application'],
                {'PYTHONPATH': args.gunicorn_path})
    http = (['--http', '127.0.0.1:%d' % port, '--http-keepalive']
            if server == 'uwsgi-http'
            else ['--http11-socket', '127.0.0.1:%d' % port])
    return ([os.path.join(venv, 'bin', 'uwsgi'), '--master'] + http
            + ['--home', venv, '--module', 'placement.wsgi.api:application',
               '--processes', '2', '--threads', '10', '--chdir', run_dir,
               '--need-app', '--die-on-term'] + args.option, {})


def start(args, venv, port, db_url, run_dir):
    """Start one server on ``port``; its Popen, once it answers."""
    os.makedirs(run_dir, exist_ok=True)
    open(os.path.join(run_dir, 'placement.conf'), 'w').close()
    argv, extra = command(args.server, venv, port, run_dir, args)
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=run_dir,
               OS_PLACEMENT_DATABASE__CONNECTION=db_url,
               OS_PLACEMENT_DATABASE__SYNC_ON_STARTUP='True',
               OS_API__AUTH_STRATEGY='noauth2', **extra)
    env.pop('VIRTUAL_ENV', None)
    log = open(os.path.join(run_dir, 'server.log'), 'w')
    proc = subprocess.Popen(argv, env=env, cwd=run_dir, stdout=log,
                            stderr=subprocess.STDOUT,
                            start_new_session=True)
    for _ in range(240):
        try:
            urllib.request.urlopen('http://127.0.0.1:%d/' % port, timeout=2)
            return proc
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    stop(proc)
    raise RuntimeError('%s from %s did not come up; see %s/server.log'
                       % (args.server, venv, run_dir))


def stop(proc):
    """Stop a server this tool started (its own process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wrk(url, duration, script, close):
    """(requests, seconds, min, median, p90 in microseconds) of one wrk
    run at one connection."""
    argv = ['wrk', '-t1', '-c1', '-d%ds' % duration, '-s', script]
    for header in HEADERS + (('connection: close',) if close else ()):
        argv += ['-H', header]
    out = subprocess.run(argv + [url], capture_output=True, text=True,
                         check=True).stdout
    found = re.search(r'^RESULT (\d+) (\d+) (\d+) (\d+) (\d+)$', out, re.M)
    if not found:
        raise RuntimeError('no result from wrk:\n' + out)
    requests, micros, low, median, p90 = map(int, found.groups())
    return requests, micros / 1e6, low, median, p90


def gaps(port, path, count):
    """Milliseconds between the first and the last byte of each of
    ``count`` answers on one kept-alive connection: a stall waiting for
    the client's delayed ACK shows as some 40 ms, where the pieces of an
    answer otherwise arrive within a millisecond or so (a measure that a
    loaded machine blurs far less than latency)."""
    request = ('GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n\r\n' % (
        path, '\r\n'.join(HEADERS))).encode('ascii')
    found = []
    with socket.create_connection(('127.0.0.1', port)) as sock:
        for _ in range(count):
            sock.sendall(request)
            data = _recv(sock)
            first = time.perf_counter()
            while b'\r\n\r\n' not in data:
                data += _recv(sock)
            head, _, body = data.partition(b'\r\n\r\n')
            length = int(re.search(rb'(?i)content-length: *(\d+)',
                                   head).group(1))
            while len(body) < length:
                body += _recv(sock)
            found.append((time.perf_counter() - first) * 1e3)
    return found


def _recv(sock):
    data = sock.recv(1 << 20)
    if not data:
        raise RuntimeError('the server closed the connection: it does not '
                           'keep connections alive')
    return data


def measure(args, ports, paths, script):
    """{(route, label, mode): [wrk results]}, interleaved."""
    results = {}
    for _ in range(args.rounds):
        for route, path in paths:
            for label, port in ports.items():
                results.setdefault((route, label, 'gaps'), []).extend(
                    gaps(port, path, args.gaps))
            for close in (False, True):
                for label, port in ports.items():
                    found = wrk('http://127.0.0.1:%d%s' % (port, path),
                                args.duration, script, close)
                    key = (route, label, 'new' if close else 'kept')
                    results.setdefault(key, []).append(found)
    return results


def report(results, labels, paths, server):
    print('\n%s, one connection, wrk; req/s and latency ms min / median '
          '/ p90 (median of the rounds)' % server)
    print('%-36s %-10s %-28s %-28s %s' % (
        'route', 'server', 'kept alive', 'new connection',
        'first-to-last byte, kept alive'))
    for route, _ in paths:
        for label in labels:
            cells = []
            for mode in ('kept', 'new'):
                runs = results[(route, label, mode)]
                rate = sorted(r[0] / r[1] for r in runs)[len(runs) // 2]
                pick = sorted(runs, key=lambda r: r[3])[len(runs) // 2]
                cells.append('%7.1f  %5.1f / %5.1f / %5.1f' % (
                    rate, pick[2] / 1e3, pick[3] / 1e3, pick[4] / 1e3))
            spans = results[(route, label, 'gaps')]
            cells.append('median %5.1f ms, %d of %d over 30 ms' % (
                statistics.median(spans), sum(g > 30 for g in spans),
                len(spans)))
            print('%-36s %-10s %-28s %-28s %s' % (route, label, *cells))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=('mysql', 'postgresql'),
                        default='mysql')
    parser.add_argument('--venv', action='append', required=True,
                        help='LABEL=PATH of a virtualenv with placement')
    parser.add_argument('--server', default='uwsgi-http',
                        choices=('uwsgi-http', 'uwsgi-http11-socket',
                                 'gunicorn'))
    parser.add_argument('--port', type=int, default=18810,
                        help='first port; one per virtualenv')
    parser.add_argument('--n', type=int, default=1000,
                        help='flat providers loaded')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--duration', type=int, default=5,
                        help='seconds per wrk run')
    parser.add_argument('--gaps', type=int, default=50,
                        help='answers per round timed first to last byte')
    parser.add_argument('--prefix', default='bench')
    parser.add_argument('--gunicorn-path', default='',
                        help='directory gunicorn is imported from')
    parser.add_argument('--option', action='append', default=[],
                        help='one more argument for the server, e.g. '
                             '--option=--tcp-nodelay (repeatable)')
    return parser.parse_args()


def main():
    args = parse_args()
    venvs = dict(item.split('=', 1) for item in args.venv)
    name = '%s_ka' % args.prefix
    db_url = database(args.db, name)
    procs = []
    work = tempfile.mkdtemp(prefix='bench-keepalive-')
    script = os.path.join(work, 'report.lua')
    with open(script, 'w') as handle:
        handle.write(REPORT)
    try:
        ports = {}
        for offset, (label, venv) in enumerate(venvs.items()):
            ports[label] = args.port + offset
            procs.append(start(args, os.path.abspath(venv), ports[label],
                               db_url, os.path.join(work, label)))
        data.load_sql(db_url, data.flat_nodes(args.n))
        engine = sa.create_engine(db_url)
        with engine.connect() as conn:
            in_tree = conn.execute(sa.text(
                'SELECT uuid FROM resource_providers ORDER BY id')).first()[0]
        engine.dispose()
        paths = routes(in_tree)
        report(measure(args, ports, paths, script), list(venvs), paths,
               ' '.join([args.server] + args.option))
    finally:
        for proc in procs:
            stop(proc)
        drop(args.db, name)


if __name__ == '__main__':
    main()
