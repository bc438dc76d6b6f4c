"""Middleware: count and time every request, by route template.

Labels stay few whatever clients send: the route is a template of the
route table (``/resource_providers/{uuid}``), ``other`` for a path no
route matches; the method is one of HTTP's usual ones or ``other``.
Dispatch names the route it matched (``observe.route``); a request
answered before dispatch (a 401, a 406 of the microversion layer) is
matched here, against the same table (``route_of``).

A 503 is counted by cause: the database failure behind it
(``observe.unavailable``: ``lost_connection``, ``node_not_ready``,
``commit_outcome_unknown``), ``auth`` for one answered before dispatch
(keystonemiddleware when Keystone is unreachable), else ``other``.

The time is taken when the server closes the body (after the last
byte went out), as the request log does.
"""
import time

from placement import exception
from placement.metrics import families
from placement import observe
from placement import util

METHODS = frozenset(('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                     'OPTIONS'))
OTHER = 'other'
# Every cause a 503 is counted under (see unavailable_cause).
UNAVAILABLE_CAUSES = ('lost_connection', 'node_not_ready',
                      'commit_outcome_unknown', 'auth', OTHER)


def unavailable_cause(environ):
    """The cause label of a 503 (see the module docstring)."""
    exc = environ.get(observe.UNAVAILABLE_KEY)
    if isinstance(exc, exception.CommitOutcomeUnknown):
        return 'commit_outcome_unknown'
    if isinstance(exc, exception.DatabaseUnavailable):
        kind = exc.reason.partition(':')[0].strip().replace(' ', '_')
        return kind if kind in UNAVAILABLE_CAUSES else OTHER
    if observe.ROUTE_KEY not in environ:
        return 'auth'
    return OTHER


def initialize():
    """Show the counters of known label values at 0 from the start, so
    that rate() and absent() see them before the first event."""
    for cause in UNAVAILABLE_CAUSES:
        families.UNAVAILABLE.labels(cause)
    for result in ('some', 'none'):
        families.CANDIDATE_QUERIES.labels(result)


class Observer:
    """What handlers report (observe.candidates, empty reasons)."""

    @staticmethod
    def candidates(found):
        families.CANDIDATE_QUERIES.labels('some' if found else 'none').inc()

    @staticmethod
    def empty_reasons(reasons):
        for reason in reasons:
            families.EMPTY_REASONS.labels(reason).inc()


OBSERVER = Observer()


class RequestMetrics:
    """Count and time each request (see the module docstring).

    ``route_of(environ)`` is the template of the route matching the
    request's path, or None.
    """

    def __init__(self, application, route_of):
        self.application = application
        self.route_of = route_of
        # Children by label values: labels() costs a few microseconds.
        self._counters = {}
        self._timers = {}

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        environ[observe.OBSERVER_KEY] = OBSERVER
        state = []

        def record(status, headers, exc_info=None):
            state[:] = [status[:3]]
            return start_response(status, headers, exc_info)

        try:
            body = self.application(environ, record)
        except Exception:
            self._done(environ, ['500'], started)
            raise
        return util.ThenClose(body, lambda: self._done(environ, state,
                                                       started))

    def _done(self, environ, state, started):
        method = environ.get('REQUEST_METHOD', '')
        if method not in METHODS:
            method = OTHER
        route = environ.get(observe.ROUTE_KEY)
        if route is None:
            route = self.route_of(environ) or OTHER
        status = state[0] if state else '500'
        key = (route, method, status)
        counter = self._counters.get(key)
        if counter is None:
            counter = self._counters[key] = families.REQUESTS.labels(*key)
        counter.inc()
        timer = self._timers.get(key[:2])
        if timer is None:
            timer = self._timers[key[:2]] = families.LATENCY.labels(*key[:2])
        timer.observe(time.perf_counter() - started)
        if status == '503':
            families.UNAVAILABLE.labels(unavailable_cause(environ)).inc()
