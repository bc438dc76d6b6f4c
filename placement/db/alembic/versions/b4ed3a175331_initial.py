"""Initial schema: every table but consumer_types.

The schema a database had when placement left nova (Stein). It carries
five non-unique indexes that duplicate unique constraints; a082b8bb98d0
drops them. Revision ids are the deployed ones: existing databases record
them in ``alembic_version``.

Revision ID: b4ed3a175331
Revises:
Create Date: 2018-10-19
"""
from alembic import op
import sqlalchemy as sa

revision = 'b4ed3a175331'
down_revision = None
branch_labels = None
depends_on = None

# MySQL tables are InnoDB with the 3-byte utf8 character set, as deployed.
_MYSQL = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8'}


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=True),
            sa.Column('updated_at', sa.DateTime(), nullable=True)]


def _id():
    return sa.Column('id', sa.Integer(), primary_key=True, nullable=False,
                     autoincrement=True)


def _allocations():
    op.create_table(
        'allocations', *_timestamps(), _id(),
        sa.Column('resource_provider_id', sa.Integer(), nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer(), nullable=False),
        sa.Column('used', sa.Integer(), nullable=False),
        **_MYSQL)
    op.create_index('allocations_resource_provider_class_used_idx',
                    'allocations',
                    ['resource_provider_id', 'resource_class_id', 'used'])
    op.create_index('allocations_resource_class_id_idx', 'allocations',
                    ['resource_class_id'])
    op.create_index('allocations_consumer_id_idx', 'allocations',
                    ['consumer_id'])


def _consumers():
    op.create_table(
        'consumers', *_timestamps(), _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False,
                  server_default=sa.text('0')),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        **_MYSQL)
    op.create_index('consumers_project_id_user_id_uuid_idx', 'consumers',
                    ['project_id', 'user_id', 'uuid'])
    op.create_index('consumers_project_id_uuid_idx', 'consumers',
                    ['project_id', 'uuid'])


def _inventories():
    op.create_table(
        'inventories', *_timestamps(), _id(),
        sa.Column('resource_provider_id', sa.Integer(), nullable=False),
        sa.Column('resource_class_id', sa.Integer(), nullable=False),
        sa.Column('total', sa.Integer(), nullable=False),
        sa.Column('reserved', sa.Integer(), nullable=False),
        sa.Column('min_unit', sa.Integer(), nullable=False),
        sa.Column('max_unit', sa.Integer(), nullable=False),
        sa.Column('step_size', sa.Integer(), nullable=False),
        sa.Column('allocation_ratio', sa.Float(), nullable=False),
        sa.UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'),
        **_MYSQL)
    op.create_index('inventories_resource_class_id_idx', 'inventories',
                    ['resource_class_id'])
    op.create_index('inventories_resource_provider_id_idx', 'inventories',
                    ['resource_provider_id'])
    op.create_index('inventories_resource_provider_resource_class_idx',
                    'inventories',
                    ['resource_provider_id', 'resource_class_id'])


def _placement_aggregates():
    op.create_table(
        'placement_aggregates', *_timestamps(), _id(),
        sa.Column('uuid', sa.String(36), nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        **_MYSQL)
    op.create_index('ix_placement_aggregates_uuid', 'placement_aggregates',
                    ['uuid'])


def _resource_provider_aggregates():
    op.create_table(
        'resource_provider_aggregates', *_timestamps(),
        sa.Column('resource_provider_id', sa.Integer(), primary_key=True,
                  nullable=False, autoincrement=False),
        sa.Column('aggregate_id', sa.Integer(), primary_key=True,
                  nullable=False, autoincrement=False),
        **_MYSQL)
    op.create_index('resource_provider_aggregates_aggregate_id_idx',
                    'resource_provider_aggregates', ['aggregate_id'])


def _external_ids(name):
    op.create_table(
        name, *_timestamps(), _id(),
        sa.Column('external_id', sa.String(255), nullable=False),
        sa.UniqueConstraint('external_id',
                            name='uniq_%s0external_id' % name),
        **_MYSQL)


def _named(name):
    op.create_table(
        name, *_timestamps(), _id(),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_%s0name' % name),
        **_MYSQL)


def _resource_providers():
    op.create_table(
        'resource_providers', *_timestamps(), _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(200), nullable=True),
        sa.Column('generation', sa.Integer(), nullable=True),
        sa.Column('root_provider_id', sa.Integer(), nullable=True),
        sa.Column('parent_provider_id', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['parent_provider_id'],
                                ['resource_providers.id']),
        sa.ForeignKeyConstraint(['root_provider_id'],
                                ['resource_providers.id']),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        **_MYSQL)
    for name, column in (('name', 'name'),
                         ('parent_provider_id', 'parent_provider_id'),
                         ('root_provider_id', 'root_provider_id'),
                         ('uuid', 'uuid')):
        op.create_index('resource_providers_%s_idx' % name,
                        'resource_providers', [column])


def _resource_provider_traits():
    op.create_table(
        'resource_provider_traits', *_timestamps(),
        sa.Column('trait_id', sa.Integer(), primary_key=True,
                  nullable=False, autoincrement=False),
        sa.Column('resource_provider_id', sa.Integer(), primary_key=True,
                  nullable=False, autoincrement=False),
        sa.ForeignKeyConstraint(['resource_provider_id'],
                                ['resource_providers.id']),
        sa.ForeignKeyConstraint(['trait_id'], ['traits.id']),
        **_MYSQL)
    op.create_index('resource_provider_traits_resource_provider_trait_idx',
                    'resource_provider_traits',
                    ['resource_provider_id', 'trait_id'])


def upgrade():
    # Alphabetical, as deployed; resource_provider_traits last for its FKs.
    _allocations()
    _consumers()
    _inventories()
    _placement_aggregates()
    _external_ids('projects')
    _named('resource_classes')
    _resource_provider_aggregates()
    _resource_providers()
    _named('traits')
    _external_ids('users')
    _resource_provider_traits()
