"""The audit of stored data: what is inconsistent, and the safe repairs.

``audit`` reads everything it reports in ONE read transaction (a
consistent snapshot on every backend) with a fixed number of queries, and
returns plain ``Finding`` values; the CLI (``placement-manage audit``)
renders them. Each repair is its own operation and transaction, and
re-checks in that transaction that its finding still holds, so a repair
that races a live writer does nothing rather than damage.

What each check means, its severity and whether a repair exists are
declared once, in ``CHECKS``. A warning is a state the service works
with (the API itself can make it, or it only wastes a row); a failure is
a state the API can never make and that breaks reads or writes.
"""
import dataclasses
import typing

from oslo_db import exception as db_exc

from placement.db import api as db_api
from placement.db import backend
from placement.db import models
from placement.objects import audit_queries
from placement.objects import audit_trees
from placement.objects import data_migration

WARNING, FAILURE = 'warning', 'failure'
PROVIDER, CONSUMER = 'resource_provider', 'consumer'


@dataclasses.dataclass(frozen=True)
class Check:
    """One kind of finding; ``repair`` names its repair (None: none)."""

    name: str
    severity: str
    subject_type: str
    repair: typing.Optional[str] = None


CHECKS = (
    Check('over_capacity', WARNING, PROVIDER),
    Check('allocation_without_inventory', FAILURE, PROVIDER),
    Check('empty_consumer', WARNING, CONSUMER, 'remove_consumer'),
    Check('incomplete_consumer', WARNING, CONSUMER, 'create_consumer'),
    Check('consumer_project_missing', FAILURE, CONSUMER),
    Check('consumer_user_missing', FAILURE, CONSUMER),
    Check(audit_trees.ROOT_MISSING, FAILURE, PROVIDER),
    Check(audit_trees.ROOT_NOT_OWN_ROOT, FAILURE, PROVIDER),
    Check(audit_trees.PARENT_MISSING, FAILURE, PROVIDER),
    Check(audit_trees.PARENT_IN_OTHER_TREE, FAILURE, PROVIDER),
    Check(audit_trees.CYCLE, FAILURE, PROVIDER),
    Check('provider_generation_null', FAILURE, PROVIDER),
    Check('provider_generation_backwards', FAILURE, PROVIDER),
    Check('consumer_generation_backwards', FAILURE, CONSUMER),
)
CHECK_BY_NAME = {check.name: check for check in CHECKS}


Finding = audit_queries.Finding
_ALLOC = models.allocations
_CONSUMER = models.consumers


_COLLECTORS = (
    audit_queries.fetch_over_capacity,
    audit_queries.fetch_allocations_without_inventory,
    audit_queries.fetch_empty_consumers,
    audit_queries.fetch_incomplete_consumers,
    audit_queries.fetch_consumers_without_owner,
    audit_queries.fetch_tree_problems,
    audit_queries.fetch_provider_generation_problems,
    audit_queries.fetch_consumer_generation_problems,
)
_ORDER = {check.name: index for index, check in enumerate(CHECKS)}


@db_api.operation
def audit(ctx) -> typing.List[Finding]:
    """Every inconsistency in the stored data, in ``CHECKS`` order.

    Opens one read transaction (one snapshot) for all the checks.
    """
    with db_api.reader(ctx) as conn:
        backend.repeatable_read(conn)
        findings = [finding for collect in _COLLECTORS
                    for finding in collect(conn)]
    return sorted(findings, key=lambda finding: _ORDER[finding.check])


@db_api.operation
def count_providers_over_capacity(ctx) -> int:
    """How many providers use more of a class than its capacity."""
    with db_api.reader(ctx) as conn:
        return conn.execute(audit_queries.count_over_capacity_stmt()).scalar()


@dataclasses.dataclass(frozen=True)
class IncompleteOwner:
    """The external project and user ids given to re-created consumers
    (``[placement] incomplete_consumer_project_id`` / ``_user_id``)."""

    project_id: str
    user_id: str


@db_api.operation
def remove_empty_consumer(ctx, consumer_uuid, seen_generation) -> bool:
    """Delete a consumer that still has no allocations and still has the
    generation the audit saw; own transaction. False when it changed.

    DELETE FROM consumers WHERE uuid = :uuid AND generation = :seen
    AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.consumer_id = :uuid)
    """
    with db_api.transaction(ctx) as conn:
        return conn.execute(_CONSUMER.delete().where(
            _CONSUMER.c.uuid == consumer_uuid,
            _CONSUMER.c.generation == seen_generation,
            ~audit_queries.has_rows(_ALLOC, 'consumer_id', consumer_uuid),
        )).rowcount == 1


@db_api.operation
def create_missing_consumer(ctx, consumer_uuid,
                            owner: IncompleteOwner) -> bool:
    """Create the consumers row of allocations that have none, as the
    online data migration does; own transaction. False when it is no
    longer missing (no allocations left, or another writer made it)."""
    try:
        with db_api.transaction(ctx) as conn:
            missing = conn.execute(
                data_migration.select_incomplete_consumer_uuids_stmt()
                .where(_ALLOC.c.consumer_id == consumer_uuid)).first()
            if missing is None:
                return False
            data_migration.insert_incomplete_consumers(
                conn, [consumer_uuid], owner.project_id, owner.user_id)
            return True
    except db_exc.DBDuplicateEntry:
        return False


def repair(ctx, finding: Finding, owner: IncompleteOwner) -> bool:
    """Apply the repair of a fixable finding (see ``CHECKS``); True when
    done, False when the data changed since the audit."""
    if CHECK_BY_NAME[finding.check].repair == 'remove_consumer':
        return remove_empty_consumer(ctx, finding.subject,
                                     finding.details['generation'])
    if CHECK_BY_NAME[finding.check].repair == 'create_consumer':
        return create_missing_consumer(ctx, finding.subject, owner)
    raise ValueError('%s has no repair' % finding.check)
