"""``/healthcheck``: oslo.middleware's health check, with a backend that
asks the database.

The same application, options (``[healthcheck]``: ``backends``,
``detailed``, ``disable_by_file_path``, ``allowed_source_ranges``...) and
answers as other OpenStack services: 200 and the reasons when every
backend is available, 503 and the reasons when one is not (204/503 to
HEAD), no token needed. Placement's defaults: the backends
``disable_by_file`` (``/etc/placement/healthcheck_disable``; create the
file to take the process out of a load balancer) and
``placement_database``.

``placement_database`` (``DatabaseHealthcheck``, registered under the
``oslo.middleware.healthcheck`` entry point group where oslo.middleware
finds backends) runs db.health's probe on ``[placement_database]
connection`` and waits at most ``[healthcheck] database_timeout``
seconds. Its reason names the node that answered and, on Galera, its
state; the database server's version is never shown, and the driver's
message only in ``detailed`` mode.

Assembly code, like deploy: built from the one ConfigOpts.
"""
from oslo_config import cfg
from oslo_middleware import healthcheck as oslo_healthcheck
from oslo_middleware.healthcheck import opts as healthcheck_opts
from oslo_middleware.healthcheck import pluginbase

from placement.db import health

PATH = '/healthcheck'
GROUP = 'healthcheck'
BACKEND = 'placement_database'
DEFAULT_BACKENDS = ['disable_by_file', BACKEND]
DEFAULT_DISABLE_FILE = '/etc/placement/healthcheck_disable'


def set_defaults():
    """Placement's defaults for oslo.middleware's [healthcheck] options
    (as the library's own ``cors.set_defaults`` does, on its options)."""
    cfg.set_defaults(healthcheck_opts.HEALTHCHECK_OPTS,
                     backends=DEFAULT_BACKENDS)
    cfg.set_defaults(healthcheck_opts.DISABLE_BY_FILE_OPTS,
                     disable_by_file_path=DEFAULT_DISABLE_FILE)


def register_opts(conf):
    """Register [healthcheck] as oslo.middleware defines it on ``conf``."""
    set_defaults()
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group=GROUP)
    conf.register_opts(healthcheck_opts.DISABLE_BY_FILE_OPTS, group=GROUP)


def build(application, conf):
    """The Healthcheck application; requests it declines (a source
    outside ``allowed_source_ranges``, say) go on to ``application``."""
    register_opts(conf)
    return oslo_healthcheck.Healthcheck(application, conf)


def answer_reason(answer: health.Answer) -> str:
    """The reason of an answer: 'database OK', plus its node and state."""
    if answer.node is None:
        return 'database OK' if answer.is_ready else 'database not ready'
    if not answer.is_galera:
        return 'database OK: node %s' % answer.node
    state = 'database %s: node %s is %s, cluster %s' % (
        'OK' if answer.is_ready else 'not ready', answer.node,
        answer.wsrep_state, answer.cluster_status)
    return state


def _no_database():
    raise health.NoAnswer('no database configured')


class DatabaseHealthcheck(pluginbase.HealthcheckBaseExtension):
    """The ``placement_database`` backend: the database answers a probe
    within ``[healthcheck] database_timeout`` seconds (and, on Galera,
    the node is Synced and in the Primary component)."""

    def __init__(self, oslo_conf, conf):
        super().__init__(oslo_conf, conf)
        group = oslo_conf.placement_database
        bound = oslo_conf.healthcheck.database_timeout
        self._probe = health.BoundedProbe(_no_database, bound)
        if group.connection:
            engine = health.probe_engine(group.connection, bound,
                                         group.connection_parameters)
            self._probe = health.BoundedProbe(
                lambda: health.run_probe(engine), bound)

    def healthcheck(self, server_port):
        try:
            answer = self._probe.check()
        except health.NoAnswer as exc:
            return pluginbase.HealthcheckResult(
                available=False, reason=exc.reason, details=exc.detail)
        return pluginbase.HealthcheckResult(
            available=answer.is_ready, reason=answer_reason(answer),
            details='answered in %.1f ms' % (answer.seconds * 1000))
