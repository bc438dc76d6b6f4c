"""Worker memory of ours and upstream after the benchmarks (a tool, not a
test).

Runs, on one database kind, the sequence issue 16 is measured on and
prints each uwsgi worker's memory after each phase, ours and upstream
side by side, with the ratio ours / upstream (mean of the two workers):

  1. fresh servers (tools/bench-servers, uwsgi 2 processes x 10 threads),
     idle after their first request;
  2. tools/bench_candidates.py, flat 1,000, --concurrency 10;
  3. tools/bench_routes.py (reads, the c=10 listing, writes);
  4. fresh servers with OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES=True,
     then tools/bench_candidates.py again.

Figures per worker, MiB: RSS now (VmRSS), RSS peak (VmHWM), PSS (Pss of
smaps_rollup: pages shared with the master and the other worker counted
in part) and private (Private_Dirty).

    OURS_VENV=$PWD/.venv .venv/bin/python tools/bench_memory.py mysql \\
        --ours-port 19202 --upstream-port 19201 --prefix mem

The servers are stopped at the end; the databases stay (``<prefix>_ours``
and ``<prefix>_up``).
"""
import argparse
import os
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def start(args, randomize):
    env = dict(os.environ)
    env.pop('OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES', None)
    if randomize:
        env['OS_PLACEMENT__RANDOMIZE_ALLOCATION_CANDIDATES'] = 'True'
    out = subprocess.run(
        [os.path.join(HERE, 'bench-servers'), 'start', args.kind,
         '--ours-port', str(args.ours_port),
         '--upstream-port', str(args.upstream_port),
         '--prefix', args.prefix],
        env=env, check=True, capture_output=True, text=True).stdout
    words = out.split()
    found = dict(zip(words[::2], words[1::2]))
    for url in (found['--url'], found['--compare-url']):
        urllib.request.urlopen(url + '/').read()
    return found


def stop(args):
    subprocess.run([os.path.join(HERE, 'bench-servers'), 'stop',
                    '--prefix', args.prefix], check=True)


def run_tool(name, found, extra):
    command = [sys.executable, os.path.join(HERE, name)]
    for key in ('--url', '--db', '--compare-url', '--compare-db'):
        command += [key, found[key]]
    if name == 'bench_candidates.py':
        command += ['--pid', found['--pid'],
                    '--compare-pid', found['--compare-pid']]
    out = subprocess.run(command + extra, check=True, capture_output=True,
                         text=True).stdout
    print(''.join('#   ' + line + '\n' for line in out.splitlines()
                  if 'req/s' in line or line.startswith('flat')), end='')


def report(phase, found):
    cells = []
    for field, source, label in bc.MEMORY_FIGURES:
        ours = bc.worker_rss(int(found['--pid']), field, source)
        other = bc.worker_rss(int(found['--compare-pid']), field, source)
        mean = (lambda d: sum(d.values()) / max(1, len(d)))
        cells.append('%s %s / %s = %.2fx' % (
            label, '+'.join('%.0f' % v for v in sorted(ours.values())),
            '+'.join('%.0f' % v for v in sorted(other.values())),
            mean(ours) / max(mean(other), 1e-9)))
    print('%-22s %s' % (phase, ' | '.join(cells)), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('kind', choices=('mysql', 'postgresql'))
    parser.add_argument('--ours-port', type=int, default=18802)
    parser.add_argument('--upstream-port', type=int, default=18801)
    parser.add_argument('--prefix', default='bench')
    parser.add_argument('--skip-routes', action='store_true')
    args = parser.parse_args()
    print('# %s: worker MiB, ours / upstream (ratio of the means)'
          % args.kind)
    try:
        found = start(args, randomize=False)
        report('idle', found)
        candidates = ['--shape', 'flat', '--load', 'sql',
                      '--concurrency', '10']
        run_tool('bench_candidates.py', found, candidates)
        report('candidates', found)
        if not args.skip_routes:
            run_tool('bench_routes.py', found, [])
            report('candidates+routes', found)
        found = start(args, randomize=True)
        run_tool('bench_candidates.py', found, candidates)
        report('candidates randomized', found)
    finally:
        stop(args)


if __name__ == '__main__':
    sys.exit(main())
