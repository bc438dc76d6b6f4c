"""Other [DEFAULT] options."""
from oslo_config import cfg

OPTS = [
    cfg.StrOpt(
        'tempdir',
        help='Explicitly specify the temporary working directory.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return {'DEFAULT': OPTS}
