"""The per-request cost of the request metrics (a tool, not a test).

Two servers of ours on the same database, one with ``[metrics]
enabled`` and one without, get the same small GET in turn: ``--rounds``
rounds of ``--count`` sequential requests each, the two servers
alternating (A/B interleaved, same conditions). Per server: the median
over rounds of the milliseconds per request seen by the client and of
the server's CPU per request (uwsgi master and workers, every thread).

Example (both uwsgi 2 x 10 on one MariaDB database):

    .venv/bin/python tools/bench_request_metrics.py \\
        --on http://127.0.0.1:19703 --on-pid 123 \\
        --off http://127.0.0.1:19704 --off-pid 456
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from tools.benchlib import http  # noqa: E402
from tools.benchlib import procstat  # noqa: E402


def one_round(url, pid, path, count):
    """(client ms per request, server CPU ms per request)."""
    cpu = procstat.cpu_seconds([pid])
    start = time.perf_counter()
    for _ in range(count):
        status, _ = http.exchange(url, 'GET', path)
        if status != 200:
            raise RuntimeError('%s answered %d' % (path, status))
    wall = (time.perf_counter() - start) * 1000 / count
    return wall, (procstat.cpu_seconds([pid]) - cpu) * 1000 / count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--on', required=True)
    parser.add_argument('--on-pid', type=int, required=True)
    parser.add_argument('--off', required=True)
    parser.add_argument('--off-pid', type=int, required=True)
    parser.add_argument('--path', default='/resource_classes/VCPU')
    parser.add_argument('--rounds', type=int, default=10)
    parser.add_argument('--count', type=int, default=300)
    args = parser.parse_args()
    servers = {'on': (args.on, args.on_pid), 'off': (args.off, args.off_pid)}
    found = {label: [] for label in servers}
    for index in range(args.rounds):
        order = ('on', 'off') if index % 2 == 0 else ('off', 'on')
        for label in order:
            found[label].append(one_round(*servers[label], args.path,
                                          args.count))
    for label, rounds in found.items():
        print('metrics %-3s: client %.3f ms/request, server CPU %.3f '
              'ms/request (medians of %d rounds of %d)' % (
                  label, statistics.median(r[0] for r in rounds),
                  statistics.median(r[1] for r in rounds), args.rounds,
                  args.count))
    pairs = [(on[1] - off[1]) * 1000
             for on, off in zip(found['on'], found['off'])]
    print('server CPU on - off, per round (us/request): %s; median %.0f'
          % (', '.join('%.0f' % p for p in pairs), statistics.median(pairs)))


if __name__ == '__main__':
    main()
