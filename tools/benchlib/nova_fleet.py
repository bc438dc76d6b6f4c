"""The Nova-modelled fleet, run against live servers (``tools/nova_fleet``).

``cost``: at one N, each server in turn gets the model's requests
(benchlib.nova_model) for ``--duration`` seconds, at a load well under
saturation; the CPU of its uwsgi workers and of its database
(benchlib.ownstack.Cpu) over the run, per simulated node-minute, split
by part of the model (the nodes' own requests; the scheduler's boots and
migrations; the scrapes), each part run on its own.

``live``: rising N, each server in turn, the whole model in real time
(``--speed 1``): the largest N at which every kind of request kept its
p95 under 200 ms (candidates 1 s; the scrapes 10 s, Prometheus' default
scrape timeout), nothing failed, and the generator
started its requests on time (p95 lateness under 100 ms). The
generator's own CPU is printed for every level.

The generator is one process, one thread (asyncio, benchlib.aioload),
seeded, loopback only, bounded by the levels and ``--duration``.
"""
import asyncio
import collections
import datetime
import os
import random
import time
import uuid

import sqlalchemy as sa

from tools.benchlib import aioload
from tools.benchlib import data
from tools.benchlib import nova_model
from tools.benchlib import stats

# p95 limits, ms: 200 for what Nova waits on, 1 s for candidates; a
# scrape has Prometheus' default scrape_timeout, 10 s.
LIMITS = {'candidates': 1000.0, 'metrics': 10000.0, 'capacity': 10000.0}
DEFAULT_LIMIT = 200.0
LATE_LIMIT = 100.0
RESOURCES = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}


def load(db_url, n, server_url, per_node, seed):
    """N flat providers (SQL, with creation times as the API sets them)
    and ``per_node`` instances on each (POST /allocations, 100 a
    request); the uuids, by id."""
    data.load_sql(db_url, data.flat_nodes(n))
    engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    made = datetime.datetime(2026, 12, 1, 10)
    with engine.begin() as conn:
        conn.execute(sa.text('UPDATE resource_providers SET created_at = '
                             ':t, updated_at = :t'), {'t': made})
        conn.execute(sa.text('UPDATE inventories SET created_at = :t, '
                             'updated_at = :t'), {'t': made})
    engine.dispose()
    uuids = [row[0] for row in data.provider_generations(db_url)]
    rng = random.Random(seed)
    consumers = [(str(uuid.UUID(int=rng.getrandbits(128), version=4)), rp)
                 for rp in uuids for _ in range(per_node)]
    asyncio.run(_claim_all(server_url, consumers))
    data.analyze_url(db_url)
    return uuids


async def _claim_all(url, consumers):
    pool = aioload.Pool(url, 4)
    batches = [consumers[i:i + 100] for i in range(0, len(consumers), 100)]

    async def post(batch):
        await pool.json('POST', '/allocations', {
            c: {'allocations': {rp: {'resources': RESOURCES}},
                'project_id': data.PROJECT, 'user_id': data.USER,
                'consumer_generation': None}
            for c, rp in batch}, version='1.28')
    await asyncio.gather(*[post(b) for b in batches])
    await pool.close()


class Run:
    """One server, one timeline: the requests, timed."""

    def __init__(self, pool, model, uuids, seed):
        self.pool, self.model, self.uuids = pool, model, uuids
        self.rng = random.Random(seed)
        self.samples = collections.defaultdict(list)
        self.errors = collections.Counter()
        self.late = []
        self.conflicts = 0
        self.live = collections.deque()
        self.generation = {}
        self.aggregated = {rp for i, rp in enumerate(uuids) if i % 2 == 0}

    async def timed(self, kind, method, path, body=None, version=None,
                    expect=(200, 201, 204)):
        start = time.perf_counter()
        try:
            return await self.pool.json(method, path, body, version, expect)
        finally:
            self.samples[kind].append((time.perf_counter() - start) * 1000)

    async def play(self, events):
        """Send ``events`` on time; (seconds, generator CPU seconds)."""
        loop = asyncio.get_running_loop()
        tasks = set()
        cpu, start = time.process_time(), loop.time()
        for at, kind, arg in events:
            delay = start + at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                self.late.append(-delay * 1000)
            task = asyncio.create_task(self._guarded(kind, arg))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks)
        return loop.time() - start, time.process_time() - cpu

    async def _guarded(self, kind, arg):
        try:
            await getattr(self, '_' + kind)(arg)
        except aioload.HTTPError as exc:
            if exc.status == 409 and kind in ('boot', 'migrate'):
                # A generation race Nova's scheduler retries.
                self.conflicts += 1
            else:
                self.errors['%s: %s' % (kind, str(exc)[:100])] += 1
        except Exception as exc:  # counted; the load goes on
            self.errors['%s: %s' % (kind, str(exc)[:100])] += 1

    async def _periodic(self, rp):
        base = '/resource_providers/%s' % rp
        await self.timed('allocations', 'GET', base + '/allocations')
        if self.rng.random() < self.model.put_share:
            await self._put_inventories(base)

    async def _put_inventories(self, base):
        found = await self.timed('inventories', 'GET', base + '/inventories')
        for attempt in (0, 1):
            body = {'resource_provider_generation':
                    found['resource_provider_generation'],
                    'inventories': found['inventories']}
            for inv in body['inventories'].values():
                inv['reserved'] = 1 - inv.get('reserved', 0)
            try:
                await self.timed('inventory PUT', 'PUT', base +
                                 '/inventories', body, '1.26')
                return
            except aioload.HTTPError as exc:
                if exc.status != 409 or attempt:
                    raise
                found = await self.timed('inventories', 'GET',
                                         base + '/inventories')

    async def _refresh(self, rp):
        base = '/resource_providers/%s' % rp
        await self.timed('in_tree', 'GET', '/resource_providers?in_tree='
                         + rp, version='1.14')
        await self.timed('inventories', 'GET', base + '/inventories')
        await self.timed('aggregates', 'GET', base + '/aggregates',
                         version='1.19')
        await self.timed('traits', 'GET', base + '/traits', version='1.6')
        if rp in self.aggregated:
            await self.timed('sharing', 'GET', nova_model.SHARING % data.AGG,
                             version='1.18')

    async def _pick(self):
        found = await self.timed('candidates', 'GET', nova_model.CANDIDATES,
                                 version='1.36')
        requests = found['allocation_requests']
        if not requests:
            raise RuntimeError('no candidates')
        return requests[self.rng.randrange(min(len(requests), 10))]

    async def _boot(self, _arg):
        choice = await self._pick()
        consumer = str(uuid.uuid4())
        await self.timed('claim', 'PUT', '/allocations/' + consumer, {
            'allocations': choice['allocations'], 'project_id': data.PROJECT,
            'user_id': data.USER, 'consumer_generation': None},
            '1.36')
        self.live.append(consumer)
        if len(self.live) > self.model.live:
            await self.timed('delete', 'DELETE',
                             '/allocations/' + self.live.popleft())

    async def _migrate(self, _arg):
        if not self.live:
            return
        instance = self.live[self.rng.randrange(len(self.live))]
        held = await self.timed('consumer GET', 'GET', '/allocations/'
                                + instance, version='1.28')
        if not held['allocations']:
            return
        choice = await self._pick()
        migration = str(uuid.uuid4())
        owner = {'project_id': data.PROJECT, 'user_id': data.USER}
        await self.timed('move POST', 'POST', '/allocations', {
            migration: dict(owner, consumer_generation=None, allocations={
                rp: {'resources': v['resources']}
                for rp, v in held['allocations'].items()}),
            instance: dict(owner, allocations=choice['allocations'],
                           consumer_generation=held['consumer_generation']),
        }, '1.28')
        await self.timed('delete', 'DELETE', '/allocations/' + migration)

    async def _text(self, kind, path):
        start = time.perf_counter()
        try:
            status, _body = await self.pool.request('GET', path, None, None)
        finally:
            self.samples[kind].append((time.perf_counter() - start) * 1000)
        if status not in (200, 404):  # upstream has no /metrics: 404
            raise aioload.HTTPError(status, _body)

    async def _metrics(self, _arg):
        await self._text('metrics', '/metrics')

    async def _capacity(self, _arg):
        if self.model.capacity == 'metrics':
            await self._text('capacity', '/metrics')
            return
        listing = await self.timed('capacity', 'GET', '/resource_providers')
        for rp in listing['resource_providers']:
            base = '/resource_providers/%s' % rp['uuid']
            for part in ('/inventories', '/usages', '/traits'):
                await self.timed('capacity', 'GET', base + part,
                                 version='1.6')

    def verdict(self):
        """(sustained?, {kind: p95 ms}, p95 lateness ms)."""
        p95 = {kind: stats.p95(v) for kind, v in self.samples.items()}
        late = stats.p95(self.late) if self.late else 0.0
        ok = not self.errors and late < LATE_LIMIT and all(
            value < LIMITS.get(kind, DEFAULT_LIMIT)
            for kind, value in p95.items())
        return ok, p95, late


async def play(url, connections, model, uuids, duration, speed, seed):
    """One run: (Run, seconds, generator CPU seconds)."""
    pool = aioload.Pool(url, connections)
    run = Run(pool, model, uuids, seed)
    events = nova_model.timeline(model, uuids, duration, speed, seed)
    seconds, cpu = await run.play(events)
    await pool.close()
    return run, seconds, cpu


def requests_count(run):
    return sum(len(v) for v in run.samples.values())


def load_average():
    return ' '.join('%.1f' % x for x in os.getloadavg())
