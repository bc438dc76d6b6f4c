"""The [metrics] group: the Prometheus endpoint ``/metrics``.

Off by default. Nothing here imports prometheus_client: the metrics
package is imported only when ``enabled`` is True (see deploy).
"""
from oslo_config import cfg

GROUP = cfg.OptGroup(
    'metrics', title='Prometheus metrics',
    help='The /metrics endpoint in the Prometheus text format: the '
         'capacity metrics of every resource provider under the names '
         'openstack-exporter uses, and the service metrics of this '
         'process (requests, latencies, database retries, 503s, '
         'allocation candidate queries).')

OPTS = [
    cfg.BoolOpt(
        'enabled',
        default=False,
        help='Serve GET /metrics and record the service metrics. When '
             'False, /metrics is an ordinary 404 and no metric is '
             'recorded.'),
    cfg.BoolOpt(
        'allow_anonymous',
        default=False,
        help='Answer GET /metrics without a token. When False, the caller '
             'needs a token that the placement:metrics policy rule '
             'allows (by default an admin, or a reader of the system '
             'scope).'),
    cfg.StrOpt(
        'multiprocess_dir',
        help='The directory where the worker processes of one placement '
             'service keep their metric values, so that a scrape served '
             'by any worker sees the sum over all of them (one directory '
             'per service; it must not be shared with another service). '
             'Files of processes no longer running are removed when the '
             'service starts. Unset: a directory under the system\'s '
             'temporary directory, named after the user and the '
             'configuration files of the service.'),
    cfg.FloatOpt(
        'capacity_cache_seconds',
        default=5.0,
        min=0.0,
        help='How long, in seconds, the capacity metrics computed for a '
             'scrape are reused by the next scrapes, by every worker '
             'process of the service: several Prometheus servers then '
             'cost the database one computation. 0 computes them for '
             'every scrape.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
