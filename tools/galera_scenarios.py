#!/usr/bin/env python3
"""Run the Galera scenarios by hand and print their figures.

    .venv/bin/python tools/galera_scenarios.py [--base-port 18200]
        [--service ours|upstream] [--option GROUP.NAME=VALUE ...]
        [SCENARIO ...]

Starts a three-node Galera cluster (placement/testing/galera.py) on
--base-port .. +18, then runs each named scenario (all by default; see
galera_scenarios.SCENARIOS) on a fresh database and prints its figures
and the broken promises, if any.

--service upstream runs the same load against the upstream release
(/work/shared/tools/upstream-server, one per API host, its TMPDIR and
working directory /tmp/galera-cluster-up-PORT: run from the project's
checkout it would import this project's ``placement``) instead of
placement under uwsgi; its --workers is --upstream-workers (default 2).

--option sets a placement.conf option of every API server on top of the
scenario's own, e.g. ``--option placement_database.retry_budget=5`` to
see how much budget a scenario needs (ours only).
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from placement.db import api as db_api  # noqa: E402
from placement.testing import app as app_fixture  # noqa: E402
from placement.testing import galera  # noqa: E402
from placement.testing import galera_load  # noqa: E402
from placement.testing import galera_scenarios  # noqa: E402

UPSTREAM = '/work/shared/tools/upstream-server'


class Upstream:
    """The upstream service as a black box on ``port``."""

    def __init__(self, name, port, url, workers):
        self.name = name
        self.port = port
        self.url = url
        self.workers = workers
        self.tmp = '/tmp/galera-cluster-up-%d' % port

    def start(self):
        os.makedirs(self.tmp, exist_ok=True)
        env = dict(os.environ, TMPDIR=self.tmp)
        subprocess.run([UPSTREAM, '--port', str(self.port), '--db',
                        self.url.replace('?charset=utf8', ''),
                        '--workers', str(self.workers)],
                       env=env, check=True, stdin=subprocess.DEVNULL,
                       cwd=self.tmp)

    def wait(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, _, _ = galera_load.http_request(self.port, 'GET', '/',
                                                    timeout=5)
            if status == 200:
                return
            time.sleep(0.2)
        raise RuntimeError('upstream on %d did not start' % self.port)

    def stop(self):
        env = dict(os.environ, TMPDIR=self.tmp)
        subprocess.run([UPSTREAM, '--stop'], env=env,
                       stdin=subprocess.DEVNULL, cwd=self.tmp)


def _database(cluster, service):
    name = galera_scenarios.database_name()
    cluster.create_database(name)
    if service == 'ours':
        conf = app_fixture.make_conf(cluster.url(0, name))
        db = db_api.create_database(conf)
        app_fixture.create_schema(db)
        db.dispose()
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--base-port', type=int, default=18200)
    parser.add_argument('--service', choices=('ours', 'upstream'),
                        default='ours')
    parser.add_argument('--upstream-workers', type=int, default=2)
    parser.add_argument('--keep-db', action='store_true')
    parser.add_argument('--option', action='append', default=[],
                        metavar='GROUP.NAME=VALUE')
    parser.add_argument('scenarios', nargs='*',
                        default=list(galera_scenarios.SCENARIOS))
    args = parser.parse_args()
    options = dict(option.split('=', 1) for option in args.option)
    ports = [args.base_port + galera.PORTS + index for index in range(4)]
    factory = galera_scenarios.uwsgi_factory
    if args.service == 'upstream':
        def factory(name, port, url, options):  # noqa: F811
            return Upstream(name, port, url, args.upstream_workers)
    cluster = galera.Cluster(args.base_port)
    started = time.monotonic()
    cluster.start()
    health = galera.HealthCheck(cluster)
    health.start()
    print('cluster up in %.1f s' % (time.monotonic() - started), flush=True)
    try:
        for name in args.scenarios:
            scenario = galera_scenarios.SCENARIOS[name]
            database = _database(cluster, args.service)
            began = time.monotonic()
            report = galera_scenarios.run(cluster, scenario, ports, database,
                                          factory=factory, options=options)
            print('\n'.join(report.lines()))
            took = time.monotonic() - began
            print('  (%s, %.0f s)' % (args.service, took), flush=True)
            if not args.keep_db:
                cluster.drop_database(database)
    finally:
        health.stop()
        cluster.stop()


if __name__ == '__main__':
    main()
