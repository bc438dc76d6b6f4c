"""[DEFAULT] options naming directories."""
import os

from oslo_config import cfg

OPTS = [
    cfg.StrOpt(
        'pybasedir',
        default=os.path.abspath(
            os.path.join(os.path.dirname(__file__), '../../')),
        sample_default='<Path>',
        help='The directory where the Placement python modules are '
             'installed.\n\nThis is the default path for other config '
             'options which need to persist Placement internal data. It is '
             'very unlikely that you need to change this option from its '
             'default value.'),
    cfg.StrOpt(
        'state_path',
        default='$pybasedir',
        help='The top-level directory for maintaining state used in '
             'Placement.\n\nThis directory is used to store Placement\'s '
             'internal state. It is used by some tests that have behaviors '
             'carried over from Nova.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return {'DEFAULT': OPTS}
