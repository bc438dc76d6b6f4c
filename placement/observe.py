"""What the request metrics learn from the inner layers of a request.

The request metrics middleware (``placement.metrics``, present only when
``[metrics] enabled``) puts an observer in the WSGI environ; dispatch and
handlers tell it what only they know (the route template, why a 503,
what a candidates query found) through these functions, which do
nothing when no observer is there. A leaf: imports nothing, so that no
layer has to learn about Prometheus.
"""

# The URL template of ROUTE_DECLARATIONS that served the request.
ROUTE_KEY = 'placement.route'
# The exception a 503 answered (exception.DatabaseUnavailable).
UNAVAILABLE_KEY = 'placement.unavailable'
# The request's observer: an object with ``candidates(found)`` and
# ``empty_reasons({reason: trees})``.
OBSERVER_KEY = 'placement.observer'


def route(environ, template):
    """Record the route template that served the request."""
    environ[ROUTE_KEY] = template


def unavailable(environ, exc):
    """Record the exception behind a 503."""
    environ[UNAVAILABLE_KEY] = exc


def observer(environ):
    """The request's observer, or None when metrics are off."""
    return environ.get(OBSERVER_KEY)


def candidates(environ, found):
    """Count a candidates query by its result (some or none)."""
    watcher = environ.get(OBSERVER_KEY)
    if watcher is not None:
        watcher.candidates(found)
