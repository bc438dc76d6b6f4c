"""Refuse to go on while an allocation's consumer has no consumers row.

A data check, no DDL: ``placement-manage db online_data_migrations``
(create_incomplete_consumers) fixes such rows.

Revision ID: b5c396305c25
Revises: 611cd6dffd7b
Create Date: 2019-05-03
"""
from alembic import op
import sqlalchemy as sa

revision = 'b5c396305c25'
down_revision = '611cd6dffd7b'
branch_labels = None
depends_on = None

MESSAGE = ('There is at least one allocation record which is missing a '
           'consumer record. Run the "placement-manage db '
           'online_data_migrations" command.')


class MigrationBlocked(Exception):
    """Stored data must be migrated online before this revision."""


def upgrade():
    allocations = sa.table('allocations',
                           sa.column('consumer_id', sa.String))
    consumers = sa.table('consumers', sa.column('id', sa.Integer),
                         sa.column('uuid', sa.String))
    # SELECT count(*) FROM allocations LEFT OUTER JOIN consumers
    #   ON allocations.consumer_id = consumers.uuid WHERE consumers.id IS NULL
    joined = allocations.outerjoin(
        consumers, allocations.c.consumer_id == consumers.c.uuid)
    count = op.get_bind().execute(
        sa.select(sa.func.count()).select_from(joined)
        .where(consumers.c.id.is_(None))).scalar()
    if count:
        raise MigrationBlocked(MESSAGE)
