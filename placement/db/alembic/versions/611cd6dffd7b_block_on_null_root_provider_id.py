"""Refuse to go on while a resource provider has no root provider id.

A data check, no DDL: ``placement-manage db online_data_migrations``
(set_root_provider_ids) fixes such rows.

Revision ID: 611cd6dffd7b
Revises: b4ed3a175331
Create Date: 2019-05-03
"""
from alembic import op
import sqlalchemy as sa

revision = '611cd6dffd7b'
down_revision = 'b4ed3a175331'
branch_labels = None
depends_on = None

MESSAGE = ('There is at least one resource provider table record which is '
           'missing its root provider id. Run the "placement-manage db '
           'online_data_migrations" command.')


class MigrationBlocked(Exception):
    """Stored data must be migrated online before this revision."""


def upgrade():
    providers = sa.table('resource_providers',
                         sa.column('root_provider_id', sa.Integer))
    count = op.get_bind().execute(
        sa.select(sa.func.count()).select_from(providers)
        .where(providers.c.root_provider_id.is_(None))).scalar()
    if count:
        raise MigrationBlocked(MESSAGE)
