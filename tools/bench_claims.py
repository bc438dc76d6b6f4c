"""Benchmark concurrent claims against any placement server (not a test).

Creates P providers with V VCPU each, then C concurrent claimers each
PUT /allocations/{new uuid} at 1.38 for 1 VCPU (consumer_generation null,
consumer_type INSTANCE) on a random provider not yet known to be full,
until every provider has refused a claim for capacity. Reports claims/s,
the 409s (capacity, and concurrent_update which the claimer retries), and
reads every provider's usages at the end to count over-commit.

Example (ours and upstream, each uwsgi 2 processes x 10 threads on its own
MariaDB database, noauth2):

    .venv/bin/python tools/bench_claims.py --url http://127.0.0.1:8792
    .venv/bin/python tools/bench_claims.py --url http://127.0.0.1:8791

A server:

    OS_PLACEMENT_CONFIG_DIR=<dir with an empty placement.conf> \\
    OS_PLACEMENT_DATABASE__CONNECTION=mysql+pymysql://root@127.0.0.1/DB \\
    OS_PLACEMENT_DATABASE__SYNC_ON_STARTUP=True OS_API__AUTH_STRATEGY=noauth2 \\
    <venv>/bin/uwsgi --http-socket 127.0.0.1:PORT --processes 2 --threads 10 \\
        --master --module placement.wsgi.api:application
"""
import argparse
import collections
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_candidates as bc  # noqa: E402

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.38'}


class Client:
    """A new HTTP connection per request (uwsgi's --http-socket closes
    each one), the same for every server measured."""

    def __init__(self, url):
        parsed = urllib.parse.urlsplit(url)
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.prefix = parsed.path.rstrip('/')

    def request(self, method, path, body=None):
        payload = json.dumps(body) if body is not None else None
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            conn.request(method, self.prefix + path, body=payload,
                         headers=HEADERS)
            resp = conn.getresponse()
            text = resp.read().decode('utf-8')
        finally:
            conn.close()
        return resp.status, json.loads(text) if text else None


def create_providers(url, count, vcpu, tag):
    client = Client(url)
    uuids = []
    for index in range(count):
        rp_uuid = str(uuid.uuid4())
        status, body = client.request('POST', '/resource_providers', {
            'name': 'bench-claims-%s-%02d' % (tag, index), 'uuid': rp_uuid})
        if status != 200:
            sys.exit('creating a provider: %s %s' % (status, body))
        status, body = client.request(
            'PUT', '/resource_providers/%s/inventories' % rp_uuid,
            {'resource_provider_generation': body['generation'],
             'inventories': {'VCPU': {'total': vcpu}}})
        if status != 200:
            sys.exit('setting inventory: %s %s' % (status, body))
        uuids.append(rp_uuid)
    return uuids


class Claims:
    """Shared state of the claimers."""

    def __init__(self, provider_uuids):
        self.open = set(provider_uuids)
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.granted = collections.Counter()     # provider -> 204s
        self.errors = []

    def pick(self, rng):
        with self.lock:
            if not self.open:
                return None
            return rng.choice(sorted(self.open))

    def record(self, rp_uuid, status, body):
        with self.lock:
            if status == 204:
                self.counts['204'] += 1
                self.granted[rp_uuid] += 1
            elif (status == 409
                  and _code(body) == 'placement.concurrent_update'):
                self.counts['409 concurrent_update (retried)'] += 1
            elif status == 409:
                self.counts['409 capacity'] += 1
                self.open.discard(rp_uuid)
            else:
                self.counts[str(status)] += 1
                self.errors.append((status, body))


def _code(body):
    try:
        return body['errors'][0].get('code')
    except (TypeError, KeyError, IndexError):
        return None


def claimer(url, claims, seed):
    client = Client(url)
    rng = random.Random(seed)
    while True:
        rp_uuid = claims.pick(rng)
        if rp_uuid is None:
            return
        consumer_uuid = str(uuid.uuid4())
        status, body = client.request(
            'PUT', '/allocations/%s' % consumer_uuid, {
                'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
                'project_id': 'bench-project', 'user_id': 'bench-user',
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        claims.record(rp_uuid, status, body)


def read_usages(url, provider_uuids):
    client = Client(url)
    usages = {}
    for rp_uuid in provider_uuids:
        status, body = client.request(
            'GET', '/resource_providers/%s/usages' % rp_uuid)
        usages[rp_uuid] = body['usages'].get('VCPU', 0)
    return usages


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', required=True)
    parser.add_argument('--providers', type=int, default=20)
    parser.add_argument('--vcpu', type=int, default=16)
    parser.add_argument('--claimers', type=int, default=10)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--pid', type=int, action='append', default=[],
                        help='a local server (or database) process whose '
                             'CPU time, with its children, is reported '
                             'per claim; may be repeated')
    args = parser.parse_args()

    tag = uuid.uuid4().hex[:8]
    provider_uuids = create_providers(args.url, args.providers, args.vcpu,
                                      tag)
    claims = Claims(provider_uuids)
    threads = [threading.Thread(target=claimer,
                                args=(args.url, claims, args.seed + i))
               for i in range(args.claimers)]
    cpu_before = bc.cpu_seconds(args.pid)
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    cpu = bc.cpu_seconds(args.pid) - cpu_before

    usages = read_usages(args.url, provider_uuids)
    over = {rp: used - args.vcpu for rp, used in usages.items()
            if used > args.vcpu}
    lost = sum(claims.granted.values()) - sum(usages.values())
    granted = claims.counts['204']
    print('server           %s' % args.url)
    print('providers        %d x %d VCPU = %d, %d claimers' % (
        args.providers, args.vcpu, args.providers * args.vcpu,
        args.claimers))
    print('elapsed          %.2f s' % elapsed)
    print('claims granted   %d (%.1f claims/s)' % (granted,
                                                  granted / elapsed))
    requests = sum(claims.counts.values())
    if args.pid:
        print('server cpu       %.2f ms per request (%d requests)' % (
            cpu * 1000 / requests, requests))
    for key in sorted(claims.counts):
        if key != '204':
            print('%-16s %d' % (key, claims.counts[key]))
    print('VCPU used        %d' % sum(usages.values()))
    print('over-commit      %d units on %d providers %s' % (
        sum(over.values()), len(over), sorted(over.values())))
    print('204s not stored  %d' % lost)
    for status, body in claims.errors[:5]:
        print('error            %s %s' % (status, body))
    return 1 if over or lost or claims.errors else 0


if __name__ == '__main__':
    sys.exit(main())
