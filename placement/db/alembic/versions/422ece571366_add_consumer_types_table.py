"""Add consumer_types and consumers.consumer_type_id (microversion 1.38).

Existing consumers keep a NULL type, reported as ``unknown``.

Revision ID: 422ece571366
Revises: b5c396305c25
Create Date: 2021-06-09
"""
from alembic import op
import sqlalchemy as sa

revision = '422ece571366'
down_revision = 'b5c396305c25'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'consumer_types',
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.Column('id', sa.Integer(), primary_key=True, nullable=False,
                  autoincrement=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    # SQLite cannot add a foreign key in place: batch mode copies the table.
    with op.batch_alter_table('consumers') as batch:
        batch.add_column(sa.Column('consumer_type_id', sa.Integer(),
                                   nullable=True))
        batch.create_foreign_key('consumers_consumer_type_id_fkey',
                                 'consumer_types', ['consumer_type_id'],
                                 ['id'])
        batch.create_index('consumers_consumer_type_id_idx',
                           ['consumer_type_id'])
