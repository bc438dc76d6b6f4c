"""Building the WSGI application from configuration files.

Memory: a WSGI server runs the application in threads of long-lived worker
processes, so ``init_application`` keeps glibc's malloc to one arena (a
thread of a Python process allocates under the GIL anyway, and an arena per
thread only keeps freed memory of large responses from being reused
elsewhere: 10 threads added ~10 MiB per worker after big candidate
answers), hands the memory freed while starting back to the system before
a prefork server forks its workers, and freezes what is left (gc.freeze)
so that the workers keep sharing it.
"""
import gc
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


# mallopt(3) parameter numbers (glibc's malloc.h).
_M_ARENA_MAX = -8


def _libc():
    """glibc through ctypes, or None (another libc, or no ctypes)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        if hasattr(libc, 'mallopt') and hasattr(libc, 'malloc_trim'):
            return libc
    except Exception:  # no ctypes, no dlopen: nothing to tune
        pass
    return None


def _limit_malloc_arenas(libc):
    # An operator's MALLOC_ARENA_MAX wins; glibc has read it already.
    if libc is not None and 'MALLOC_ARENA_MAX' not in os.environ:
        libc.mallopt(_M_ARENA_MAX, 1)


def _release_free_memory(libc):
    gc.collect()
    if libc is not None:
        libc.malloc_trim(0)


def _freeze_startup_objects():
    # What starting built lives as long as the process: out of the cyclic
    # collector's sight, its pages stay shared with the workers of a
    # prefork server instead of being copied into each the first time a
    # collection walks them (and writes to every object's header).
    gc.freeze()


def init_application(conf=None):
    """Configure logging and build the app (once per process)."""
    libc = _libc()
    _limit_malloc_arenas(libc)
    if conf is None:
        conf = load_config()
    logging.setup(conf, 'placement')
    if conf.log_options:
        conf.log_opt_values(logging.getLogger(__name__), logging.DEBUG)
    application = deploy.loadapp(conf)
    _release_free_memory(libc)
    _freeze_startup_objects()
    return application
