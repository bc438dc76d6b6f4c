"""Other [DEFAULT] options."""
from oslo_config import cfg

OPTS = [
    cfg.StrOpt(
        'tempdir',
        help='Explicitly specify the temporary working directory.'),
    cfg.BoolOpt(
        'log_options',
        default=True,
        help='Enables or disables logging values of all registered options '
             'when starting a service (at DEBUG level).'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return {'DEFAULT': OPTS}
