"""Every headline figure in one run, ours beside the upstream release, on
MariaDB and PostgreSQL (``bench all``; the successor of tools/bench-all).

Per database, each step on fresh servers (benchlib.servers: uwsgi 2 x 10,
noauth2, a fresh database each; ``OURS_VENV`` picks ours):

  1. randomization as the environment says (off unless
     OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES is set):
     ``bench candidates`` flat (1,000; plain, limit=10, throughput at
     concurrency 10, worker memory) and nested (250 trees);
     ``bench routes`` (reads, rate, writes); ``bench claims``, both
     servers, three runs each, alternating, with server CPU per request;
  2. randomization on: ``bench candidates`` flat at 1,000 / 5,000 /
     20,000 (worker memory after);
  3. randomization on: ``bench fleet`` over ``--fleet-n``,
     ``--fleet-s`` seconds per level.

The candidates and routes steps time the two servers taking turns
(benchlib.pacing; ``--batch``, ``--no-wake``). Each step's output goes
to OUT/<database>-<step>.txt and to stdout,
after a line "## <command> (<UTC time>)". About 25 minutes per database
on 2 cores at the default sizes; ``--quick`` runs every step at small
sizes (a check that the whole chain works, not figures).
"""
import datetime
import os
import subprocess
import sys
import tempfile

from tools.benchlib import memory
from tools.benchlib import pacing
from tools.benchlib import servers

FULL = {'flat_n': '1000', 'nested_n': '1750', 'random_n': '1000,5000,20000',
        'routes_n': '1000', 'flat_repeat': '40', 'nested_repeat': '20',
        'random_repeat': '20', 'routes_args': [], 'claims_runs': 3,
        'claims_args': [],
        'fleet_n': '250,500,1000,2000,3000,4000,8000,16000,32000',
        'fleet_s': '30'}
QUICK = dict(FULL, flat_n='100', nested_n='70', random_n='100,200',
             routes_n='100', flat_repeat='5', nested_repeat='3',
             random_repeat='3', routes_args=['--repeat', '3', '--rounds',
                                             '1'],
             claims_runs=1, claims_args=['--providers', '4', '--vcpu', '4'],
             fleet_n='50,100', fleet_s='5')


def add_arguments(parser):
    parser.add_argument('kinds', nargs='*', metavar='mysql|postgresql',
                        help='the databases (default: both)')
    parser.add_argument('--out', default=os.path.join(
        tempfile.gettempdir(), 'bench-all'))
    parser.add_argument('--skip-fleet', action='store_true')
    parser.add_argument('--fleet-n', help='levels (default %s)'
                        % FULL['fleet_n'])
    parser.add_argument('--fleet-s', help='seconds per level (default %s)'
                        % FULL['fleet_s'])
    parser.add_argument('--quick', action='store_true',
                        help='small sizes and few repeats: checks the '
                             'chain, gives no usable figures')
    parser.add_argument('--ours-port', type=int,
                        default=servers.DEFAULT_PORTS[0])
    parser.add_argument('--upstream-port', type=int,
                        default=servers.DEFAULT_PORTS[1])
    parser.add_argument('--prefix', default='bench')
    pacing.add_arguments(parser)


def step(out, name, tool, argv):
    """Run ``bench TOOL ARGV``, its output to stdout and OUT/NAME; the
    exit status."""
    command = [sys.executable, memory.BENCH, tool] + argv
    with open(os.path.join(out, name), 'w') as log:
        header = '## %s (%s)\n' % (' '.join(command), datetime.datetime.now(
            datetime.timezone.utc).strftime('%H:%M:%S'))
        for stream in (sys.stdout, log):
            stream.write(header)
        with subprocess.Popen(command, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as proc:
            for line in proc.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                log.write(line)
    return proc.returncode


def _settings(args, kind, randomize=None):
    return servers.Settings(kind, args.ours_port, args.upstream_port,
                            args.prefix, randomize)


def run_database(args, kind, sizes):
    out, pace = args.out, pacing.of(args).argv()
    pair = servers.start(_settings(args, kind))
    step(out, kind + '-candidates-flat.txt', 'candidates', [
        '--shape', 'flat', '--load', 'sql', '--repeat', sizes['flat_repeat'],
        '--concurrency', '10', '--n', sizes['flat_n']] + pace + pair.argv())
    step(out, kind + '-candidates-nested.txt', 'candidates', [
        '--shape', 'nested', '--load', 'sql', '--repeat',
        sizes['nested_repeat'], '--n', sizes['nested_n']] + pace
        + pair.argv())
    step(out, kind + '-routes.txt', 'routes', [
        '--n', sizes['routes_n']] + sizes['routes_args'] + pace
        + pair.argv())
    for run in range(1, sizes['claims_runs'] + 1):
        for who, url, pid in (('ours', pair.url, pair.pid), (
                'upstream', pair.compare_url, pair.compare_pid)):
            step(out, '%s-claims-%s-%d.txt' % (kind, who, run), 'claims', [
                '--url', url, '--pid', str(pid), '--seed', str(run)]
                + sizes['claims_args'])
    pair = servers.start(_settings(args, kind, randomize=True))
    step(out, kind + '-candidates-random.txt', 'candidates', [
        '--shape', 'flat', '--load', 'sql', '--repeat',
        sizes['random_repeat'], '--n', sizes['random_n']] + pace
        + pair.argv())
    if not args.skip_fleet:
        pair = servers.start(_settings(args, kind, randomize=True))
        step(out, kind + '-fleet.txt', 'fleet', [
            '--n', args.fleet_n or sizes['fleet_n'], '--duration',
            args.fleet_s or sizes['fleet_s'], '--url', pair.url, '--db',
            pair.db, '--compare-url', pair.compare_url, '--compare-db',
            pair.compare_db])
    servers.stop(args.prefix)


def run(args):
    sizes = QUICK if args.quick else FULL
    kinds = args.kinds or ['mysql', 'postgresql']
    unknown = set(kinds) - set(servers.SERVER_URLS)
    if unknown:
        raise SystemExit('unknown database %s' % ', '.join(sorted(unknown)))
    os.makedirs(args.out, exist_ok=True)
    for kind in kinds:
        try:
            run_database(args, kind, sizes)
        finally:
            servers.stop(args.prefix)
