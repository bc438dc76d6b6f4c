"""Concurrent claims against one server (``bench claims``).

Creates P providers with V VCPU each, then C concurrent claimers each
PUT /allocations/{new uuid} at 1.38 for 1 VCPU (consumer_generation null,
consumer_type INSTANCE) on a random provider not yet known to be full,
until every provider has refused a claim for capacity. Reports claims/s,
the 409s (capacity, and concurrent_update which the claimer retries),
with ``--pid`` the server's CPU per request, and reads every provider's
usages at the end to count over-commit. Exit status 1 on over-commit, a
granted claim not stored, or any other error.
"""
import collections
import random
import sys
import threading
import time
import uuid

from tools.benchlib import http
from tools.benchlib import procstat

VERSION = '1.38'


def add_arguments(parser):
    parser.add_argument('--url', required=True)
    parser.add_argument('--providers', type=int, default=20)
    parser.add_argument('--vcpu', type=int, default=16)
    parser.add_argument('--claimers', type=int, default=10)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--pid', type=int, action='append', default=[],
                        help='a local server (or database) process whose '
                             'CPU time, with its children, is reported '
                             'per claim; may be repeated')


def _call(url, method, path, body=None):
    return http.call_json(url, method, path, body, VERSION)


def create_providers(url, count, vcpu, tag):
    uuids = []
    for index in range(count):
        rp_uuid = str(uuid.uuid4())
        status, body = _call(url, 'POST', '/resource_providers', {
            'name': 'bench-claims-%s-%02d' % (tag, index), 'uuid': rp_uuid})
        if status != 200:
            sys.exit('creating a provider: %s %s' % (status, body))
        status, body = _call(
            url, 'PUT', '/resource_providers/%s/inventories' % rp_uuid,
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
    rng = random.Random(seed)
    while True:
        rp_uuid = claims.pick(rng)
        if rp_uuid is None:
            return
        status, body = _call(url, 'PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
            'project_id': 'bench-project', 'user_id': 'bench-user',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        claims.record(rp_uuid, status, body)


def read_usages(url, provider_uuids):
    usages = {}
    for rp_uuid in provider_uuids:
        _status, body = _call(url, 'GET',
                              '/resource_providers/%s/usages' % rp_uuid)
        usages[rp_uuid] = body['usages'].get('VCPU', 0)
    return usages


def run(args):
    provider_uuids = create_providers(args.url, args.providers, args.vcpu,
                                      uuid.uuid4().hex[:8])
    claims = Claims(provider_uuids)
    threads = [threading.Thread(target=claimer,
                                args=(args.url, claims, args.seed + i))
               for i in range(args.claimers)]
    cpu_before = procstat.cpu_seconds(args.pid)
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    cpu = procstat.cpu_seconds(args.pid) - cpu_before
    usages = read_usages(args.url, provider_uuids)
    return _report(args, claims, usages, elapsed, cpu)


def _report(args, claims, usages, elapsed, cpu):
    over = {rp: used - args.vcpu for rp, used in usages.items()
            if used > args.vcpu}
    lost = sum(claims.granted.values()) - sum(usages.values())
    granted = claims.counts['204']
    print('server           %s' % args.url)
    print('providers        %d x %d VCPU = %d, %d claimers' % (
        args.providers, args.vcpu, args.providers * args.vcpu,
        args.claimers))
    print('elapsed          %.2f s' % elapsed)
    print('claims granted   %d (%.1f claims/s)' % (
        granted, granted / elapsed))
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
