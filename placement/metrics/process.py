"""The directory of prometheus_client's multiprocess mode.

Each worker process of a prefork server (uwsgi, gunicorn, mod_wsgi)
writes its values into files of its own, named after its pid, in one
directory per service; a scrape, served by any worker, adds up every
file. prometheus_client reads the directory from the environment
variable PROMETHEUS_MULTIPROC_DIR when it is first imported, so
``prepare`` runs before that import.

Cleaning at start: the files of processes that no longer run are left
from an earlier start of the service, and removed, but only when no
process of the directory is running (the service is starting, not a
worker being replaced by a server that loads the application in each
worker, whose counters must go on adding up).
"""
import getpass
import hashlib
import os
import re
import tempfile

ENV = 'PROMETHEUS_MULTIPROC_DIR'
# counter_1234.db, histogram_1234.db, gauge_livesum_1234.db...
_PID_RE = re.compile(r'_(\d+)\.db$')


def default_directory(conf) -> str:
    """<tmp>/placement-metrics-<user>-<hash of the config files and the
    database URL>: the same for every worker of one service, another
    for another service on the same host."""
    names = list(conf.config_file or []) + list(conf.config_dir or [])
    key = '\n'.join(names + [conf.placement_database.connection or ''])
    digest = hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), 'placement-metrics-%s-%s'
                        % (_user(), digest))


def _user():
    try:
        return getpass.getuser()
    except Exception:  # no user name for this uid
        return str(os.getuid())


def _is_running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stale_files(directory, own_pid) -> list:
    """The files to remove at start: every file of a process no longer
    running, if no other process of the directory runs; else none."""
    by_pid = {}
    for name in os.listdir(directory):
        match = _PID_RE.search(name)
        if match:
            by_pid.setdefault(int(match.group(1)), []).append(name)
    others = [pid for pid in by_pid if pid != own_pid]
    if any(_is_running(pid) for pid in others):
        return []
    return sorted(name for pid in others for name in by_pid[pid])


def prepare(conf) -> str:
    """Create and clean the directory; set PROMETHEUS_MULTIPROC_DIR.

    An operator's PROMETHEUS_MULTIPROC_DIR is not overridden by the
    default directory (only by ``[metrics] multiprocess_dir``).
    """
    directory = conf.metrics.multiprocess_dir or os.environ.get(ENV)
    if not directory:
        directory = default_directory(conf)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    for name in stale_files(directory, os.getpid()):
        try:
            os.unlink(os.path.join(directory, name))
        except FileNotFoundError:
            pass
    os.environ[ENV] = directory
    return directory
