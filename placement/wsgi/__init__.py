"""Building the WSGI application from configuration files."""
import os

from oslo_config import cfg
from oslo_log import log as logging

from placement import conf as placement_conf
from placement import deploy

CONFIG_FILE = 'placement.conf'


def _config_files():
    """$OS_PLACEMENT_CONFIG_DIR/placement.conf, or oslo's default search."""
    config_dir = os.environ.get('OS_PLACEMENT_CONFIG_DIR', '').strip()
    if config_dir:
        return [os.path.join(config_dir, CONFIG_FILE)]
    return None


def load_config(args=None, default_config_files=None):
    """A new ConfigOpts with every option registered and files parsed."""
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    files = default_config_files
    if files is None:
        files = _config_files()
    conf(args if args is not None else [], project='placement',
         default_config_files=files)
    return conf


def init_application(conf=None):
    """Configure logging and build the app (once per process)."""
    if conf is None:
        conf = load_config()
    logging.setup(conf, 'placement')
    if conf.log_options:
        conf.log_opt_values(logging.getLogger(__name__), logging.DEBUG)
    return deploy.loadapp(conf)
