"""The service metrics: one object each per process.

Imported after ``process.prepare`` (prometheus_client picks its
multiprocess mode at its first import). Not registered in
prometheus_client's default registry: the values are read back from
the multiprocess directory by the scrape (``endpoint``). Names follow
Prometheus' conventions: ``placement_`` prefix, base units, ``_total``
for counters.
"""
import prometheus_client

# Request latencies, in seconds: from a cached GET to a slow candidates
# query or a write retried through a database fail-over.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                   5.0, 10.0, 30.0)

REQUESTS = prometheus_client.Counter(
    'placement_http_requests', 'HTTP requests answered, by route '
    'template, method and status.', ('route', 'method', 'status'),
    registry=None)
LATENCY = prometheus_client.Histogram(
    'placement_http_request_duration_seconds', 'Time to answer an HTTP '
    'request, until its body was handed to the server, by route template '
    'and method.', ('route', 'method'), buckets=LATENCY_BUCKETS,
    registry=None)
UNAVAILABLE = prometheus_client.Counter(
    'placement_http_unavailable', 'HTTP 503 answers, by cause.',
    ('cause',), registry=None)
DB_RETRIES = prometheus_client.Counter(
    'placement_database_retries', 'Database operation attempts run again '
    'after a failure a new attempt can cure, by cause.', ('cause',),
    registry=None)
DB_FAILOVERS = prometheus_client.Counter(
    'placement_database_failovers', 'New database connections that '
    'reached another server than the connection opened before them, '
    'opened after an attempt failed on a lost connection or a node not '
    'ready (MySQL/MariaDB/Galera).', registry=None)
CANDIDATE_QUERIES = prometheus_client.Counter(
    'placement_allocation_candidates_queries', 'GET '
    '/allocation_candidates answers, by result: some candidates or none.',
    ('result',), registry=None)
EMPTY_REASONS = prometheus_client.Counter(
    'placement_allocation_candidates_empty_reasons', 'Empty GET '
    '/allocation_candidates answers, by each reason that removed '
    'providers (one count per answer and reason).', ('reason',),
    registry=None)
