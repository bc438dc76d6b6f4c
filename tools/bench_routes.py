"""Benchmark the read and write routes, side by side (a tool, not a test).

Loads N flat providers into each server's database (the rows of
bench_candidates' flat shape, written with SQL), then times every route a
cloud leans on, the servers interleaved request by request so that the
load of a shared machine falls on both alike:

  reads   GET /resource_providers (all), ?resources=, ?in_tree=,
          ?member_of=, ?required=; a provider's inventories, traits and
          aggregates; GET /usages?project_id=; GET /allocation_candidates
          (plain and limit=10)
  writes  POST /resource_providers; a nested tree (a root and two
          children); PUT inventories, traits, aggregates of a provider;
          POST /allocations (two consumers); PUT /allocations/{consumer}
  rate    GET /resource_providers (all) at concurrency C, requests/s,
          alternating bursts between the servers; measured after the
          reads and before the writes, on the N loaded providers only
          (upstream 16.0.0 answers this listing with a 500 once
          providers created through its API sit beside the loaded
          ones, whose timestamps are NULL)

Each route is measured in ``--rounds`` rounds; a round's figure is the
median over ``--repeat`` requests. The table gives the median of the
rounds' medians, and for the ratio (other / ours) its median and its
range over the rounds. Claims with over-commit are tools/bench_claims.py.

A request's latency runs from the connect to the last byte of the body
(the Content-Length given); parsing the JSON answer (which only the
write steps need) is outside it. The client is a plain socket that
writes the request in one send and reads the answer: http.client spent
0.22 ms of CPU per small request and json.loads 2-5 ms per listing of
385-770 KB, inside the timed span and on the same two cores as the
servers, a fixed cost added to both sides of the ratio. Figures of runs
before this change are not comparable with later ones (their ratios
were lower for that reason).

Beside latency, the table gives robust figures a busy machine distorts
little: ``cpu ms``, the servers' CPU time per request (uwsgi master and
workers, every thread, from /proc/<pid>/task/*/schedstat; the pids as
tools/bench-servers prints them, ``--pid`` and ``--compare-pid``), read
before and after each round, whose requests alternate between the
servers, and the ratio of the two (other / ours); and ``client ms``,
this client's own CPU time per request (both servers), to check that it
is small beside the servers'. The database servers' CPU is in neither:
they are shared with whatever else runs.

Example (ours on :18802, upstream on :18801, uwsgi 2 x 10, MariaDB):

    tools/bench-servers start mysql      # prints the arguments below
    .venv/bin/python tools/bench_routes.py --n 1000 \\
        --url http://127.0.0.1:18802 --db mysql+pymysql://root@127.0.0.1/a \\
        --pid 1234 --compare-url http://127.0.0.1:18801 \\
        --compare-db mysql+pymysql://root@127.0.0.1/b --compare-pid 1240
"""
import argparse
import concurrent.futures
import json
import os
import socket
import statistics
import sys
import time
import urllib.parse
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.39'}
PROJECT = 'b0b0b0b0-0000-4000-8000-000000000001'
USER = 'b0b0b0b0-0000-4000-8000-000000000002'


def request(url, method, path, body=None, version=None, parse=True):
    """(status, parsed body or None) on a new connection (uwsgi's
    --http-socket closes each one); ``parse`` False leaves the body
    unparsed (the read steps and the rate phase: parsing 770 KB costs
    this client as much CPU as the server spends, on the same cores)."""
    status, data = exchange(url, method, path, body, version)
    if status >= 400:
        raise RuntimeError('%s %s: %d %s' % (method, path, status,
                                             data[:300]))
    return status, json.loads(data) if data and parse else None


def exchange(url, method, path, body=None, version=None):
    """(status, body bytes): one HTTP/1.1 request written in one send,
    the answer read up to its Content-Length (or to the server's close
    when it gives none)."""
    parsed = urllib.parse.urlsplit(url)
    host, port = parsed.hostname, parsed.port or 80
    payload = b'' if body is None else json.dumps(body).encode()
    headers = HEADERS if version is None else dict(
        HEADERS, **{'openstack-api-version': 'placement ' + version})
    head = ''.join('%s: %s\r\n' % item for item in headers.items())
    if body is not None or method in ('POST', 'PUT'):
        head += 'content-length: %d\r\n' % len(payload)
    message = ('%s %s HTTP/1.1\r\nhost: %s:%d\r\n%s\r\n' % (
        method, parsed.path + path, host, port, head)).encode('latin-1')
    with socket.create_connection((host, port), timeout=120) as sock:
        sock.sendall(message + payload)
        return _read_answer(sock)


def _read_answer(sock):
    data = bytearray()
    while b'\r\n\r\n' not in data:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError('no HTTP answer: %r' % bytes(data[:200]))
        data += chunk
    end = data.index(b'\r\n\r\n') + 4
    status, length = int(data[9:12]), _content_length(bytes(data[:end]))
    if length is None:  # to the close
        while chunk:
            chunk = sock.recv(1 << 20)
            data += chunk
        return status, bytes(data[end:])
    body = bytearray(length)
    got = len(data) - end
    body[:got] = data[end:]
    view = memoryview(body)
    while got < length:
        count = sock.recv_into(view[got:])
        if not count:
            raise RuntimeError('answer cut at %d of %d bytes' % (got, length))
        got += count
    return status, body


def _content_length(head):
    for line in head.split(b'\r\n')[1:]:
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return int(value)
    return None


class Server:
    """One server under test and what the write steps remember."""

    def __init__(self, label, url, db, pid=None):
        self.label, self.url, self.db, self.pid = label, url, db, pid
        self.uuids = []
        self.generation = {}
        self.failures = []

    def call(self, method, path, body=None, version=None, parse=True):
        return request(self.url, method, path, body, version, parse)

    def load(self, n):
        nodes = bc.flat_nodes(n)
        bc.load_sql(self.db, nodes)
        engine = sa.create_engine(self.db)
        with engine.begin() as conn:
            rows = conn.execute(sa.text(
                'SELECT uuid, generation FROM resource_providers '
                'ORDER BY id')).all()
        engine.dispose()
        self.uuids = [row[0] for row in rows]
        self.generation = {row[0]: row[1] for row in rows}

    def analyze(self):
        """Fresh planner statistics, as the server's own would soon be."""
        engine = sa.create_engine(self.db)
        bc._analyze(engine)
        engine.dispose()


# --- the steps: one request each, given the server and a counter ----------

def _provider(server, i):
    return server.uuids[i % len(server.uuids)]


def _get(path_of, version=None):
    def step(server, i):
        server.call('GET', path_of(server, i), version=version, parse=False)
    return step


def _create(server, i):
    rp = str(uuid.uuid4())
    server.call('POST', '/resource_providers',
                {'name': 'bench-%s' % rp, 'uuid': rp})


def _create_tree(server, i):
    root = str(uuid.uuid4())
    server.call('POST', '/resource_providers',
                {'name': 'bench-%s' % root, 'uuid': root})
    for _ in range(2):
        child = str(uuid.uuid4())
        server.call('POST', '/resource_providers',
                    {'name': 'bench-%s' % child, 'uuid': child,
                     'parent_provider_uuid': root})


def _put(what, body_of):
    """PUT /resource_providers/{u}/<what> with the provider's generation,
    on the providers in turn (their generation remembered)."""
    def step(server, i):
        rp = _provider(server, i)
        body = dict(body_of(i),
                    resource_provider_generation=server.generation[rp])
        _, answer = server.call(
            'PUT', '/resource_providers/%s/%s' % (rp, what), body)
        server.generation[rp] = answer['resource_provider_generation']
    return step


def _inventory_body(i):
    return {'inventories': {
        'VCPU': {'total': 32 + i % 2, 'max_unit': 32},
        'MEMORY_MB': {'total': 131072, 'max_unit': 131072},
        'DISK_GB': {'total': 2000, 'max_unit': 2000}}}


def _traits_body(i):
    return {'traits': ['HW_CPU_X86_AVX2'] + (['HW_CPU_X86_SSE'] if i % 2
                                             else [])}


def _aggregates_body(i):
    return {'aggregates': [bc.AGG] + ([str(uuid.UUID(int=i % 7 + 1))]
                                      if i % 2 else [])}


def _post_allocations(server, i):
    body = {}
    for k in range(2):
        body[str(uuid.uuid4())] = {
            'allocations': {_provider(server, 2 * i + k): {
                'resources': {'VCPU': 1, 'MEMORY_MB': 64}}},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    server.call('POST', '/allocations', body)


def _put_allocations(server, i):
    server.call('PUT', '/allocations/%s' % uuid.uuid4(), {
        'allocations': {_provider(server, 3 * i + 1): {
            'resources': {'VCPU': 1, 'DISK_GB': 1}}},
        'project_id': PROJECT, 'user_id': USER,
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})


def steps():
    rp = '/resource_providers'
    return [
        ('GET /resource_providers (all)', _get(lambda s, i: rp)),
        ('GET ?resources=VCPU:1,DISK_GB:10', _get(
            lambda s, i: rp + '?resources=VCPU:1,DISK_GB:10')),
        ('GET ?in_tree=', _get(
            lambda s, i: rp + '?in_tree=' + _provider(s, i))),
        ('GET ?member_of=', _get(lambda s, i: rp + '?member_of=' + bc.AGG)),
        ('GET ?required=HW_CPU_X86_AVX2', _get(
            lambda s, i: rp + '?required=HW_CPU_X86_AVX2')),
        ('GET {rp}/inventories', _get(
            lambda s, i: '%s/%s/inventories' % (rp, _provider(s, i)))),
        ('GET {rp}/traits', _get(
            lambda s, i: '%s/%s/traits' % (rp, _provider(s, i)))),
        ('GET {rp}/aggregates', _get(
            lambda s, i: '%s/%s/aggregates' % (rp, _provider(s, i)))),
        ('GET /allocation_candidates', _get(
            lambda s, i: '/allocation_candidates?' + bc.FLAT_QUERY)),
        ('GET /allocation_candidates limit=10', _get(
            lambda s, i: '/allocation_candidates?%s&limit=10'
            % bc.FLAT_QUERY)),
        ('POST /resource_providers', _create),
        ('nested tree (3 POSTs)', _create_tree),
        ('PUT {rp}/inventories', _put('inventories', _inventory_body)),
        ('PUT {rp}/traits', _put('traits', _traits_body)),
        ('PUT {rp}/aggregates', _put('aggregates', _aggregates_body)),
        ('POST /allocations (2 consumers)', _post_allocations),
        ('PUT /allocations/{c}', _put_allocations),
        # 1.37: from 1.38 (usages by consumer type) upstream 16.0.0
        # answers 500 on PostgreSQL (a GROUP BY error).
        ('GET /usages?project_id= (1.37)', _get(
            lambda s, i: '/usages?project_id=' + PROJECT, '1.37')),
    ]


# --- timing ------------------------------------------------------------------

def interleaved(servers, step, repeat, counter):
    """({label: [ms]}, {label: server CPU ms per request or None},
    {label: client CPU ms per request}): ``repeat`` requests to each,
    alternating."""
    samples = {s.label: [] for s in servers}
    client = {s.label: 0.0 for s in servers}
    cpu_before = {s.label: bc.cpu_seconds([s.pid]) for s in servers if s.pid}
    for _ in range(repeat):
        counter[0] += 1
        for server in servers:
            start, own = time.perf_counter(), time.process_time()
            step(server, counter[0])
            samples[server.label].append(
                (time.perf_counter() - start) * 1000)
            client[server.label] += time.process_time() - own
    cpu = {s.label: (bc.cpu_seconds([s.pid]) - cpu_before[s.label]) * 1000 / repeat
           if s.pid else None for s in servers}
    return samples, cpu, {k: v * 1000 / repeat for k, v in client.items()}


def rate(server, step, concurrency, total, counter):
    """Answers/s of ``total`` requests by ``concurrency`` clients; a
    failed one (upstream 16.0.0 sometimes answers 500 here) is counted in
    server.failures, not in the rate.
    """
    def one(i):
        try:
            step(server, i)
            return 1
        except RuntimeError as exc:
            server.failures.append(str(exc)[:160])
            return 0
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        done = sum(pool.map(one, range(counter[0], counter[0] + total)))
    counter[0] += total
    return done / (time.perf_counter() - start)


def _summary(rounds, labels):
    """'median [p95]' per label over rounds, the ratio and its range;
    then server CPU per request and its ratio, and the client's CPU."""
    cells = []
    for label in labels:
        medians = [r[label][0] for r in rounds]
        p95s = [r[label][1] for r in rounds]
        cells.append('%8.1f [%6.1f]' % (statistics.median(medians),
                                        statistics.median(p95s)))
    if len(labels) > 1:
        ratios = [r[labels[1]][0] / r[labels[0]][0] for r in rounds]
        cells.append('%5.2fx (%.2f-%.2f)' % (statistics.median(ratios),
                                             min(ratios), max(ratios)))
    cpus = [[r[label][2] for r in rounds] for label in labels]
    if all(None not in c for c in cpus):
        cell = '/'.join('%.2f' % statistics.median(c) for c in cpus)
        if len(labels) > 1:
            cell += ' %5.2fx' % statistics.median(
                [b / a for a, b in zip(*cpus) if a])
        cells.append('%-18s' % cell)
    client = [r[label][3] for r in rounds for label in labels]
    cells.append('%5.2f' % statistics.median(client))
    return ' | '.join(cells)


def _figures(samples, cpu, client):
    return statistics.median(samples), bc.p95(samples), cpu, client


def add_server_args(parser):
    """Our server and its database, and the one compared with."""
    parser.add_argument('--url', required=True)
    parser.add_argument('--db', required=True)
    parser.add_argument('--compare-url')
    parser.add_argument('--compare-db')
    parser.add_argument('--pid', type=int,
                        help='our uwsgi master: server CPU per request')
    parser.add_argument('--compare-pid', type=int)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_args(parser)
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--only', action='append',
                        help='substring of the routes to run (repeatable; '
                             '"rate" for the rate phase)')
    args = parser.parse_args()
    servers = [Server('ours', args.url, args.db, args.pid)]
    if args.compare_url:
        servers.append(Server('other', args.compare_url, args.compare_db,
                              args.compare_pid))
    for server in servers:
        server.load(args.n)
    labels = [s.label for s in servers]
    print('# N=%d flat providers, %d rounds x %d requests, load %s' % (
        args.n, args.rounds, args.repeat, os.getloadavg()))
    print('%-36s | %17s | %17s | ratio (range)      | %-18s | %s' % (
        'route', 'ours ms [p95]', 'other ms [p95]',
        'cpu ms ours/other', 'client ms'))
    counter = [0]
    rate_done = False
    for name, step in steps():
        if not rate_done and name == FIRST_WRITE:
            rate_done = _maybe_rates(servers, args, counter)
        if args.only and not any(part in name for part in args.only):
            continue
        if name == AFTER_WRITES:
            for server in servers:
                server.analyze()
        for server in servers:  # warm both (caches, statements)
            step(server, counter[0])
            counter[0] += 1
        rounds = []
        for _ in range(args.rounds):
            samples, cpu, client = interleaved(servers, step, args.repeat,
                                               counter)
            rounds.append({k: _figures(v, cpu[k], client[k])
                           for k, v in samples.items()})
        print('%-36s | %s' % (name, _summary(rounds, labels)), flush=True)
    if not rate_done:
        _maybe_rates(servers, args, counter)
    print('# load after: %s' % (os.getloadavg(),))


# The first step that writes: the rate phase runs before it.
FIRST_WRITE = 'POST /resource_providers'
# The step that reads what the writes made: planner statistics are
# refreshed before it (on a PostgreSQL without autovacuum, the ones of
# load time, empty consumers and allocations, planned the usage report
# of both services as a nested loop over every pair: 90-200 ms).
AFTER_WRITES = 'GET /usages?project_id= (1.37)'


def _maybe_rates(servers, args, counter):
    if args.concurrency and (not args.only or 'rate' in args.only):
        _print_rates(servers, args, counter)
    return True


def _listing_unparsed(server, i):
    server.call('GET', '/resource_providers', parse=False)


def _print_rates(servers, args, counter):
    step = _listing_unparsed
    rates = {s.label: [] for s in servers}
    for _ in range(args.rounds):
        for server in servers:
            rates[server.label].append(rate(
                server, step, args.concurrency,
                args.concurrency * args.repeat // 2, counter))
    row = ' | '.join('%8.1f req/s' % statistics.median(rates[s.label])
                     for s in servers)
    if len(servers) > 1:
        # A round where the other server answered nothing (all failed)
        # has no finite ratio.
        ratios = [a / b if b else float('inf')
                  for a, b in zip(rates['ours'], rates['other'])]
        row += ' | %.2fx ours/other (%.2f-%.2f)' % (
            statistics.median(ratios), min(ratios), max(ratios))
    print('%-36s | %s' % ('GET /resource_providers c=%d'
                          % args.concurrency, row))
    for server in servers:
        if server.failures:
            print('# %s: %d failed, e.g. %s' % (
                server.label, len(server.failures), server.failures[0]))


if __name__ == '__main__':
    sys.exit(main())
