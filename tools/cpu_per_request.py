"""Server CPU per request of the write routes, ours and another (a tool).

For each bench_routes step named with ``--only`` (substring), sends
``--repeat`` requests to each server, interleaved request by request,
and reports per request: the CPU the server's uwsgi processes spent
(bench_candidates.cpu_seconds: the master and its workers, ``--pid`` and
``--compare-pid`` as tools/bench-servers prints them) and the median
latency. CPU is the robust figure on a shared machine; latency is noisy.

    .venv/bin/python tools/cpu_per_request.py --n 1000 --repeat 300 \\
        $(tools/bench-servers start mysql) --only 'POST /resource_providers'
"""
import argparse
import statistics
import sys
import time
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402
import bench_routes as br  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    br.add_server_args(parser)  # --pid (needed here) among them
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=300)
    parser.add_argument('--only', action='append', required=True)
    args = parser.parse_args()
    if args.pid is None:
        parser.error('--pid is required')
    servers = [(br.Server('ours', args.url, args.db), args.pid)]
    if args.compare_url:
        servers.append((br.Server('other', args.compare_url,
                                  args.compare_db), args.compare_pid))
    for server, _ in servers:
        server.load(args.n)
    steps = [(name, step) for name, step in br.steps()
             if any(only in name for only in args.only)]
    counter = 10_000
    for name, step in steps:
        for server, _ in servers:
            for _ in range(5):
                counter += 1
                step(server, counter)
        cpu = {server.label: 0.0 for server, _ in servers}
        latency = {server.label: [] for server, _ in servers}
        for _ in range(args.repeat):
            counter += 1
            for server, pid in servers:
                before = bc.cpu_seconds([pid])
                start = time.perf_counter()
                step(server, counter)
                latency[server.label].append(
                    (time.perf_counter() - start) * 1000)
                cpu[server.label] += bc.cpu_seconds([pid]) - before
        cells = ['%s cpu %.2f ms, latency %.2f ms' % (
            label, cpu[label] * 1000 / args.repeat,
            statistics.median(latency[label])) for label in cpu]
        if len(cpu) > 1:
            cells.append('cpu ratio %.2fx, latency ratio %.2fx' % (
                cpu['other'] / cpu['ours'],
                statistics.median(latency['other'])
                / statistics.median(latency['ours'])))
        print('%-30s %s' % (name, ' | '.join(cells)), flush=True)


if __name__ == '__main__':
    main()
