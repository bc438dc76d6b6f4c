"""``GET /metrics``: the service metrics of every worker, then the
capacity metrics and the free capacity by request shape (fill), in
Prometheus' text format (version 0.0.4).

Behind authentication, the caller must pass the ``placement:metrics``
policy rule (403 otherwise, with placement's JSON error body); with
``[metrics] allow_anonymous`` the application sits in front of
authentication and answers anyone.
"""
import glob
import os

import webob.exc

from placement import exception
from placement.metrics import capacity
from placement.metrics import fill
from placement import observe
from placement.policies import metrics as policies
from placement import util
from placement import wsgi_wrapper

PATH = '/metrics'
CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'


class WorkerFiles:
    """The workers' metrics files merged, as prometheus_client's
    MultiProcessCollector merges them, less the files still empty.

    A worker's file is empty from its creation until the worker sizes
    it, on its first metric; the library's own collector reads such a
    file as a broken header (struct.error), and the scrape that met it
    answered 500. An empty file holds no sample: leaving it out loses
    nothing.
    """

    def __init__(self, directory):
        self.directory = directory

    def collect(self):
        from prometheus_client import multiprocess
        files = [path for path in glob.glob(
            os.path.join(self.directory, '*.db')) if _sized(path)]
        return multiprocess.MultiProcessCollector.merge(files,
                                                        accumulate=True)


def _sized(path) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:  # removed since the listing: a stale worker's file
        return False


def _service_registry(directory):
    import prometheus_client
    registry = prometheus_client.CollectorRegistry()
    registry.register(WorkerFiles(directory))
    return registry


class MetricsApp:
    """The /metrics WSGI application (see the module docstring)."""

    def __init__(self, db, conf, directory, authorize=True):
        self.registry = _service_registry(directory)
        self.capacity = capacity.CapacityMetrics(
            db, directory, conf.metrics.capacity_cache_seconds)
        # Parses [capacity] shape: a bad shape stops the service here.
        self.fill = fill.FillMetrics(db, conf, directory)
        self.authorize = authorize

    def __call__(self, environ, start_response):
        observe.route(environ, PATH)
        if environ['REQUEST_METHOD'] not in ('GET', 'HEAD'):
            return self._error(webob.exc.HTTPMethodNotAllowed(
                'The method specified is not allowed for this resource.',
                headers={'allow': 'GET, HEAD'}), environ, start_response)
        if self.authorize:
            try:
                environ[util.CONTEXT_KEY].authorize(policies.METRICS)
            except exception.PolicyNotAuthorized as exc:
                return self._error(webob.exc.HTTPForbidden(str(exc)),
                                   environ, start_response)
        body = self.text()
        start_response('200 OK', [('Content-Type', CONTENT_TYPE),
                                  ('Content-Length', str(len(body)))])
        return [] if environ['REQUEST_METHOD'] == 'HEAD' else [body]

    def text(self) -> bytes:
        """The whole exposition: service metrics, then capacity, then
        free capacity by shape."""
        import prometheus_client
        return (prometheus_client.generate_latest(self.registry)
                + self.capacity.text() + self.fill.text())

    @staticmethod
    def _error(exc, environ, start_response):
        return wsgi_wrapper.attach_formatter(exc)(environ, start_response)
