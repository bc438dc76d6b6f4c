"""The [oslo_middleware] group: the request body size limit.

The option has the name, group and meaning of oslo.middleware's sizelimit
middleware (the one operators know from other services); placement's own
middleware (``placement.sizelimit``) applies it, so that the 413 has the
API's JSON error body. oslo.middleware registers its other options of this
group (``enable_proxy_headers_parsing``) itself, when configured.
"""
from oslo_config import cfg

GROUP = cfg.OptGroup(
    'oslo_middleware', title='oslo.middleware options',
    help='Options of the request handling middleware.')

# 1 MiB. The largest requests Nova sends are a compute host's reshape (one
# allocation entry of about 380 bytes per instance on the host, plus about
# 600 bytes per provider: some 380 KB for a host with 1,000 instances) and
# a provider's traits (a few KB); every other request is under 10 KB.
DEFAULT_MAX_REQUEST_BODY_SIZE = 1024 * 1024

OPTS = [
    cfg.IntOpt(
        'max_request_body_size',
        default=DEFAULT_MAX_REQUEST_BODY_SIZE,
        help='The maximum body size for each request, in bytes. A longer '
             'body is refused with 413 (error code '
             'placement.body.too_large): at once when its Content-Length '
             'says so, before any of it is read; while it is read when it '
             'comes without one (chunked). The default, 1 MiB, is about '
             'three times the largest request Nova sends for a compute '
             'host with 1,000 instances (its reshape of inventories and '
             'allocations); raise it only for larger hosts.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
