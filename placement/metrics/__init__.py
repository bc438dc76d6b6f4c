"""Prometheus metrics: ``/metrics`` and the service metrics behind it.

Imported only when ``[metrics] enabled`` is True (deploy): with it off,
no module of this package, nor prometheus_client, is ever imported.

- ``process``: the multiprocess directory where each worker process
  keeps its values (prometheus_client's multiprocess mode), chosen and
  cleaned before prometheus_client is imported;
- ``families``: the service metrics, process-wide objects;
- ``middleware``: request counts and latencies per route template, 503s
  by cause, the request's observer (allocation candidates);
- ``database``: database retries by cause and Galera fail-overs, from
  the observer hook of db.retry and the engine's new connections;
- ``capacity``: the openstack-exporter capacity metrics, rendered from
  one statement (objects.capacity), shared by every worker for
  ``[metrics] capacity_cache_seconds``;
- ``fill``: free capacity by request shape (``[capacity] shape``) and
  usage by project and by tree, under os-capacity's names and labels
  (objects.fill), cached as the capacity metrics are;
- ``endpoint``: the ``/metrics`` application.
"""
