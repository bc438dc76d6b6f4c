"""Placement's options in oslo.middleware's [healthcheck] group.

The group's own options (``backends``, ``detailed``,
``disable_by_file_path``...) belong to oslo.middleware, which registers
them when the health check is built (``placement.healthcheck``); here
only the option of placement's ``placement_database`` backend.
"""
from oslo_config import cfg

GROUP = 'healthcheck'

OPTS = [
    cfg.FloatOpt(
        'database_timeout',
        default=2.0,
        min=0.1,
        help='The longest time, in seconds, that the placement_database '
             'health check backend waits for the database to answer its '
             'probe before /healthcheck answers 503.'),
]


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
