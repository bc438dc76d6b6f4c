"""[DEFAULT] options naming directories, and where the embedded database is.

*Embedded mode*: with no ``[placement_database] connection`` configured,
``placement-api`` and the admin commands (``placement-manage``,
``placement-status``) all use the SQLite file ``placement.sqlite`` in the
current directory; ``embedded_database_path`` is that one default.
"""
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

EMBEDDED_DATABASE_FILE = 'placement.sqlite'


def embedded_database_path():
    """The absolute path of embedded mode's SQLite file (module
    docstring): ``placement.sqlite`` in the current directory."""
    return os.path.abspath(EMBEDDED_DATABASE_FILE)


def embedded_database_url():
    """The SQLAlchemy URL of ``embedded_database_path()``."""
    return 'sqlite:///%s' % embedded_database_path()


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return {'DEFAULT': OPTS}
