"""Database retries by cause and Galera fail-overs, for the metrics.

Hooks db.retry's observer list (once per process: the counters are
per process too) and follows the new connections of each engine of the
application (db.failover).
"""
from placement.db import failover
from placement.db import retry
from placement.metrics import families


def _cause(failure):
    """'lost connection' -> 'lost_connection'."""
    return failure.value.replace(' ', '_')


def count_retry(failure):
    families.DB_RETRIES.labels(_cause(failure)).inc()
    WATCH.failed(failure)


WATCH = failover.FailoverWatch(families.DB_FAILOVERS.inc)


def install(db):
    """Count the retries of this process and watch ``db``'s engines."""
    if count_retry not in retry.OBSERVERS:
        retry.OBSERVERS.append(count_retry)
    for failure in retry.Failure:
        families.DB_RETRIES.labels(_cause(failure))
    for engine in db.engines():
        WATCH.watch(engine)
