"""What Nova sends Placement, as a seeded timeline (``tools/nova_fleet``).

Each rate and call below is Nova's, read in its code (nova/compute/
resource_tracker.py, nova/scheduler/client/report.py,
nova/scheduler/manager.py; the sizing guide names the functions):

every compute node, each ``period`` (60 s: the resource tracker's
  ``update_available_resource`` periodic task):
    GET /resource_providers/{uuid}/allocations            (no version)
    -- ``_remove_deleted_instances_allocations`` asks
       ``get_allocations_for_resource_provider``; the provider tree is
       served from the report client's cache while it is fresh;
  and with probability ``put_share`` (the inventory changed: a reserved
  amount, a disk resized) PUT /resource_providers/{uuid}/inventories
  (1.26, ``set_inventory_for_provider``; a 409 re-reads and retries);
every compute node, each ``refresh`` (300 s: ``[compute]
  resource_provider_association_refresh``; ``_ensure_resource_provider``
  finds the root stale, then ``_refresh_associations``):
    GET /resource_providers?in_tree={uuid}                (1.14)
    GET /resource_providers/{uuid}/inventories            (no version)
    GET /resource_providers/{uuid}/aggregates             (1.19)
    GET /resource_providers/{uuid}/traits                 (1.6)
    GET /resource_providers?member_of=in:{aggs}&required=
        MISC_SHARES_VIA_AGGREGATE                          (1.18, only
        for a node in an aggregate: ``_get_sharing_providers``);
the scheduler, ``boots`` a second (Poisson):
    GET /allocation_candidates?...&limit=1000   (1.36; ``[scheduler]
        max_placement_results``), PUT /allocations/{instance} on one of
        the first ten (1.36, ``claim_resources``), and once ``live``
        instances exist, DELETE /allocations/{oldest} (the delete of an
        instance, ``delete_allocation_for_instance`` forced);
migrations, ``migrations`` a second (Poisson): GET /allocations/{instance}
    (1.28), candidates for the destination, POST /allocations moving the
    source's allocations to a migration consumer and giving the instance
    the destination's (1.28, ``move_allocations``), then the migration's
    DELETE (confirm);
a Prometheus server: GET /metrics each ``metrics_every`` (30 s);
a capacity scrape each ``capacity_every`` (120 s): ``metrics`` (ours:
    GET /metrics, whose capacity part is one cached statement), ``walk``
    (an exporter without it: the listing, then each provider's
    inventories, usages and traits, 1 + 3N requests) or ``none``.

``speed`` compresses time: every period divided by it, every rate
multiplied, so a short run carries the requests of a longer one (the
CPU per node-minute is then counted in simulated minutes).
"""
import dataclasses
import heapq
import random

CANDIDATES = ('/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,'
              'DISK_GB:10&limit=1000')
SHARING = ('/resource_providers?member_of=in:%s'
           '&required=MISC_SHARES_VIA_AGGREGATE')


@dataclasses.dataclass(frozen=True)
class Model:
    period: float = 60.0
    refresh: float = 300.0
    put_share: float = 0.02
    boots: float = 1.0
    live: int = 200
    migrations: float = 0.02
    metrics_every: float = 30.0
    capacity_every: float = 120.0
    capacity: str = 'metrics'
    nodes: bool = True
    scheduler: bool = True
    scrapes: bool = True


def add_arguments(parser):
    for field in dataclasses.fields(Model):
        flag = '--' + field.name.replace('_', '-')
        if field.type == 'bool':
            parser.add_argument('--no-' + field.name.replace('_', '-'),
                                dest=field.name, action='store_false')
        else:
            parser.add_argument(flag, default=field.default,
                                type=type(field.default))
    parser.add_argument('--seed', type=int, default=38)
    parser.add_argument('--speed', type=float, default=1.0)


def model_of(args):
    return Model(**{f.name: getattr(args, f.name)
                    for f in dataclasses.fields(Model)})


def _every(start, step, end, kind, arg=None):
    at = start
    while at < end:
        yield at, kind, arg
        at += step


def _poisson(rng, rate, end, kind):
    at = rng.expovariate(rate) if rate > 0 else end
    while at < end:
        yield at, kind, None
        at += rng.expovariate(rate)


def timeline(model, uuids, duration, speed, seed):
    """[(seconds from start, kind, argument)], in time order: the
    requests of ``duration`` seconds of the fleet of ``uuids``."""
    rng = random.Random(seed)
    streams = []
    if model.nodes:
        period, refresh = model.period / speed, model.refresh / speed
        for rp in uuids:
            streams.append(_every(rng.uniform(0, period), period, duration,
                                  'periodic', rp))
            streams.append(_every(rng.uniform(0, refresh), refresh,
                                  duration, 'refresh', rp))
    if model.scheduler:
        streams.append(_poisson(rng, model.boots * speed, duration, 'boot'))
        streams.append(_poisson(rng, model.migrations * speed, duration,
                                'migrate'))
    if model.scrapes:
        streams.append(_every(rng.uniform(0, model.metrics_every / speed),
                              model.metrics_every / speed, duration,
                              'metrics'))
        if model.capacity != 'none':
            streams.append(_every(
                rng.uniform(0, model.capacity_every / speed),
                model.capacity_every / speed, duration, 'capacity'))
    return list(heapq.merge(*streams, key=lambda event: event[0]))


def node_minutes(model, n, duration, speed):
    """Simulated node-minutes in a run (0 without nodes)."""
    return n * duration * speed / 60.0 if model.nodes else 0.0
