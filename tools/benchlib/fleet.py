"""How large a fleet one server sustains (``bench fleet``).

Simulates N compute nodes doing what Nova's resource tracker does every
``--period`` seconds (60 in Nova): GET /resource_providers?in_tree=<own
root>, then its inventories, traits and aggregates, and now and then
(``--put-share``) a PUT of its inventories. Meanwhile a scheduler boots
``--boots`` instances a second: GET /allocation_candidates with
limit=1000, a claim (PUT /allocations/{new consumer}) on one of the
candidates, and, once ``--live`` instances exist, the DELETE of the
oldest.

For each N in ``--n`` (rising), each server's database is loaded with
exactly N providers (SQL, the flat shape) and gets ``--duration`` seconds
of this load, the servers one after the other at every N. A server
sustains N when every request type's p95 is under 200 ms (candidates
under 1 s), nothing failed, and the generator kept to its schedule (the
p95 start delay under 100 ms). The answer is the largest N each server
sustained; the table shows every level, with the generator's own CPU
use (share of one core) to show it was not the limit. Loopback only;
bounded in time by ``--n`` x ``--duration``.
"""
import collections
import heapq
import os
import random
import threading
import time
import uuid

from tools.benchlib import candidates
from tools.benchlib import data
from tools.benchlib import routes
from tools.benchlib import stats

LIMITS = {'candidates': 1000.0}
DEFAULT_LIMIT = 200.0
LATE_LIMIT = 100.0
CANDIDATES = ('/allocation_candidates?resources=VCPU:1,MEMORY_MB:256,'
              'DISK_GB:10&limit=1000')


def add_arguments(parser):
    candidates.add_pair_arguments(parser)
    parser.add_argument('--n', default='100,200,400,800')
    parser.add_argument('--period', type=float, default=60.0)
    parser.add_argument('--duration', type=float, default=60.0)
    parser.add_argument('--boots', type=float, default=1.0)
    parser.add_argument('--live', type=int, default=50)
    parser.add_argument('--put-share', type=float, default=.05)
    parser.add_argument('--threads', type=int, default=16)


class Level:
    """The run of one server at one N: a schedule worked off by threads."""

    def __init__(self, server, args, seed):
        self.server, self.args = server, args
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.queue = []
        self.samples = collections.defaultdict(list)
        self.late = []
        self.errors = collections.Counter()
        self.live = collections.deque()
        self.sequence = 0
        self.conflicts = 0

    def schedule(self, at, kind, arg=None):
        with self.lock:
            self.sequence += 1
            heapq.heappush(self.queue, (at, self.sequence, kind, arg))

    def run(self):
        """Work the schedule off; this client's CPU share of one core."""
        start = time.monotonic()
        end = start + self.args.duration
        nodes = self.server.uuids
        for i, rp in enumerate(nodes):
            self.schedule(start + self.args.period * i / len(nodes), 'node',
                          rp)
        for b in range(int(self.args.duration * self.args.boots)):
            self.schedule(start + b / self.args.boots, 'boot')
        threads = [threading.Thread(target=self._worker, args=(end,))
                   for _ in range(self.args.threads)]
        cpu = time.process_time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return (time.process_time() - cpu) / (time.monotonic() - start)

    def _worker(self, end):
        while True:
            with self.lock:
                if not self.queue or self.queue[0][0] >= end:
                    return
                at, _, kind, arg = heapq.heappop(self.queue)
            delay = at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                self.late.append(-delay * 1000)
            try:
                if kind == 'node':
                    self._node(arg)
                    self.schedule(at + self.args.period, 'node', arg)
                else:
                    self._boot()
            except Exception as exc:  # counted, the load goes on
                self.errors[str(exc)[:120]] += 1

    def _timed(self, kind, method, path, body=None):
        start = time.perf_counter()
        try:
            return self.server.call(method, path, body)[1]
        finally:
            self.samples[kind].append((time.perf_counter() - start) * 1000)

    def _node(self, rp):
        base = '/resource_providers/%s' % rp
        self._timed('in_tree', 'GET', '/resource_providers?in_tree=' + rp)
        inventories = self._timed('inventories', 'GET', base + '/inventories')
        self._timed('traits', 'GET', base + '/traits')
        self._timed('aggregates', 'GET', base + '/aggregates')
        if self.rng.random() < self.args.put_share:
            self._put_inventories(base, inventories)

    def _put_inventories(self, base, inventories):
        body = {'resource_provider_generation':
                inventories['resource_provider_generation'],
                'inventories': inventories['inventories']}
        for inventory in body['inventories'].values():
            inventory['reserved'] = 1 - inventory.get('reserved', 0)
        try:
            self._timed('inventory PUT', 'PUT', base + '/inventories', body)
        except RuntimeError as exc:
            # A claim bumped the generation: Nova reads and retries.
            if ': 409 ' not in str(exc):
                raise
            self.conflicts += 1

    def _boot(self):
        found = self._timed('candidates', 'GET', CANDIDATES)
        requests = found['allocation_requests']
        if not requests:
            raise RuntimeError('no candidates')
        choice = requests[self.rng.randrange(min(len(requests), 10))]
        consumer = str(uuid.uuid4())
        self._timed('claim', 'PUT', '/allocations/' + consumer, {
            'allocations': choice['allocations'],
            'project_id': data.PROJECT, 'user_id': data.USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        with self.lock:
            self.live.append(consumer)
            old = (self.live.popleft()
                   if len(self.live) > self.args.live else None)
        if old:
            self._timed('delete', 'DELETE', '/allocations/' + old)

    def verdict(self):
        """(sustained?, {kind: p95 ms}, p95 lateness ms)."""
        p95 = {kind: stats.p95(v) for kind, v in self.samples.items()}
        late = stats.p95(self.late) if self.late else 0.0
        ok = not self.errors and late < LATE_LIMIT and all(
            value < LIMITS.get(kind, DEFAULT_LIMIT)
            for kind, value in p95.items())
        return ok, p95, late


def run(args):
    servers = [routes.Server('ours', args.url, args.db)]
    if args.compare_url:
        servers.append(routes.Server('other', args.compare_url,
                                     args.compare_db))
    best = {s.label: 0 for s in servers}
    failed = set()
    print('# fleet: period %.0fs, %.1f boots/s, %.0fs per level, load %s'
          % (args.period, args.boots, args.duration, os.getloadavg()))
    for n in [int(n) for n in args.n.split(',')]:
        for server in servers:
            if server.label in failed:
                continue
            # A fleet of N nodes has N providers: the scheduler's query
            # reads every one of them, not the first N of a larger set.
            server.load(n)
            if _level(server, args, n):
                best[server.label] = n
            else:
                failed.add(server.label)
    print('# largest N sustained: %s; load %s' % (
        ', '.join('%s %d' % kv for kv in best.items()), os.getloadavg()))
    if len(servers) > 1 and best['other']:
        print('# ratio ours/other: %.1fx' % (best['ours'] / best['other']))


def _level(server, args, n):
    level = Level(server, args, n)
    cpu = level.run()
    ok, p95, late = level.verdict()
    print('%-5s N=%-6d %-4s gen CPU %3.0f%% late p95 %5.0f ms | %s%s'
          % (server.label, n, 'ok' if ok else 'FAIL', cpu * 100, late,
             ' '.join('%s %.0f' % kv for kv in sorted(p95.items())),
             ' | errors %s' % dict(level.errors) if level.errors else ''),
          flush=True)
    return ok
