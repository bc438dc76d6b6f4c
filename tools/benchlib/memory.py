"""Worker memory of ours and upstream through the benchmarks
(``bench memory``).

Runs, on one database kind, the sequence issue 16 is measured on and
prints each uwsgi worker's memory after each phase, ours and upstream
side by side, with the ratio ours / upstream (mean of the two workers):

  1. fresh servers (benchlib.servers, uwsgi 2 processes x 10 threads),
     idle after their first request;
  2. ``bench candidates``, flat 1,000, --concurrency 10;
  3. ``bench routes`` (reads, the c=10 listing, writes);
  4. fresh servers with randomization on, then ``bench candidates``
     again.

Figures per worker, MiB: RSS now (VmRSS), RSS peak (VmHWM), PSS (Pss of
smaps_rollup: pages shared with the master and the other worker counted
in part) and private (Private_Dirty). The servers are stopped at the
end; the databases stay (``<prefix>_ours`` and ``<prefix>_up``).
"""
import os
import subprocess
import sys
import urllib.request

from tools.benchlib import procstat
from tools.benchlib import servers

BENCH = os.path.join(servers.HERE, 'tools', 'bench')


def add_arguments(parser):
    add_server_arguments(parser)
    parser.add_argument('--skip-routes', action='store_true')
    parser.add_argument('--n', default='1000',
                        help='flat providers (default 1000)')


def add_server_arguments(parser):
    parser.add_argument('kind', choices=('mysql', 'postgresql'))
    parser.add_argument('--ours-port', type=int,
                        default=servers.DEFAULT_PORTS[0])
    parser.add_argument('--upstream-port', type=int,
                        default=servers.DEFAULT_PORTS[1])
    parser.add_argument('--prefix', default='bench')


def settings(args, randomize=None):
    return servers.Settings(args.kind, args.ours_port, args.upstream_port,
                            args.prefix, randomize)


def _start(args, randomize):
    pair = servers.start(settings(args, randomize))
    for url in (pair.url, pair.compare_url):
        urllib.request.urlopen(url + '/').read()
    return pair


def run_tool(name, pair, extra, keep=lambda line: True):
    """Run ``bench NAME`` on ``pair`` and print the lines ``keep``s."""
    command = [sys.executable, BENCH, name] + pair.argv() + extra
    out = subprocess.run(command, check=True, capture_output=True,
                         text=True).stdout
    print(''.join('#   ' + line + '\n' for line in out.splitlines()
                  if keep(line)), end='')


def report(phase, pair):
    cells = []
    for field, source, label in procstat.MEMORY_FIGURES:
        ours = procstat.worker_memory(pair.pid, field, source)
        other = procstat.worker_memory(pair.compare_pid, field, source)

        def mean(found):
            return sum(found.values()) / max(1, len(found))
        cells.append('%s %s / %s = %.2fx' % (
            label, '+'.join('%.0f' % v for v in sorted(ours.values())),
            '+'.join('%.0f' % v for v in sorted(other.values())),
            mean(ours) / max(mean(other), 1e-9)))
    print('%-22s %s' % (phase, ' | '.join(cells)), flush=True)


def _figures(line):
    return 'req/s' in line or line.startswith('flat')


def run(args):
    print('# %s: worker MiB, ours / upstream (ratio of the means)'
          % args.kind)
    candidates = ['--shape', 'flat', '--load', 'sql', '--concurrency', '10',
                  '--n', args.n]
    try:
        pair = _start(args, randomize=False)
        report('idle', pair)
        run_tool('candidates', pair, candidates, _figures)
        report('candidates', pair)
        if not args.skip_routes:
            run_tool('routes', pair, ['--n', args.n.split(',')[0]],
                     _figures)
            report('candidates+routes', pair)
        pair = _start(args, randomize=True)
        run_tool('candidates', pair, candidates, _figures)
        report('candidates randomized', pair)
    finally:
        servers.stop(args.prefix)
