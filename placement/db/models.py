"""The tables, as SQLAlchemy Core ``Table`` objects on one ``MetaData``.

Names, types, constraints and indexes are exactly those an existing
Placement database has (``spec/DATABASE.md``): operators point this service
at that database. No ORM classes; no behaviour.
"""
import sqlalchemy as sa

metadata = sa.MetaData()

# MySQL tables are InnoDB with the utf8 character set, as deployed.
_MYSQL = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8'}


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def _id():
    return sa.Column('id', sa.Integer, primary_key=True, nullable=False,
                     autoincrement=True)


class _Name(sa.types.TypeDecorator):
    """A resource class or trait name (stored as ``impl``).

    No stored name holds a NUL: every name is checked against its pattern
    when made. PostgreSQL cannot even be asked for one (its driver
    refuses the string), so a NUL in a name looked up is sent as U+FFFD,
    which no stored name holds either: the lookup finds nothing on every
    backend, and the caller says "No such resource class" or "No such
    trait", as the reference service does.
    """

    impl = sa.String
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if isinstance(value, str) and '\x00' in value:
            return value.replace('\x00', '\ufffd')
        return value


class _UnicodeName(_Name):
    impl = sa.Unicode
    cache_ok = True  # not inherited: SQLAlchemy reads it from each class


resource_classes = sa.Table(
    'resource_classes', metadata,
    *_timestamps(),
    _id(),
    sa.Column('name', _Name(255), nullable=False),
    sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
    **_MYSQL)

resource_providers = sa.Table(
    'resource_providers', metadata,
    *_timestamps(),
    _id(),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.Unicode(200), nullable=True),
    sa.Column('generation', sa.Integer, nullable=True),
    sa.Column('root_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=True),
    sa.Column('parent_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=True),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.Index('resource_providers_root_provider_id_idx', 'root_provider_id'),
    sa.Index('resource_providers_parent_provider_id_idx',
             'parent_provider_id'),
    **_MYSQL)

inventories = sa.Table(
    'inventories', metadata,
    *_timestamps(),
    _id(),
    sa.Column('resource_provider_id', sa.Integer, nullable=False),
    sa.Column('resource_class_id', sa.Integer, nullable=False),
    sa.Column('total', sa.Integer, nullable=False),
    sa.Column('reserved', sa.Integer, nullable=False),
    sa.Column('min_unit', sa.Integer, nullable=False),
    sa.Column('max_unit', sa.Integer, nullable=False),
    sa.Column('step_size', sa.Integer, nullable=False),
    sa.Column('allocation_ratio', sa.Float, nullable=False),
    sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
    sa.UniqueConstraint(
        'resource_provider_id', 'resource_class_id',
        name='uniq_inventories0resource_provider_resource_class'),
    **_MYSQL)

allocations = sa.Table(
    'allocations', metadata,
    *_timestamps(),
    _id(),
    sa.Column('resource_provider_id', sa.Integer, nullable=False),
    sa.Column('consumer_id', sa.String(36), nullable=False),
    sa.Column('resource_class_id', sa.Integer, nullable=False),
    sa.Column('used', sa.Integer, nullable=False),
    sa.Index('allocations_resource_provider_class_used_idx',
             'resource_provider_id', 'resource_class_id', 'used'),
    sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
    sa.Index('allocations_consumer_id_idx', 'consumer_id'),
    **_MYSQL)

placement_aggregates = sa.Table(
    'placement_aggregates', metadata,
    *_timestamps(),
    _id(),
    sa.Column('uuid', sa.String(36), nullable=True),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
    **_MYSQL)

resource_provider_aggregates = sa.Table(
    'resource_provider_aggregates', metadata,
    *_timestamps(),
    sa.Column('resource_provider_id', sa.Integer, primary_key=True,
              nullable=False, autoincrement=False),
    sa.Column('aggregate_id', sa.Integer, primary_key=True, nullable=False,
              autoincrement=False),
    sa.Index('resource_provider_aggregates_aggregate_id_idx',
             'aggregate_id'),
    **_MYSQL)

traits = sa.Table(
    'traits', metadata,
    *_timestamps(),
    _id(),
    sa.Column('name', _UnicodeName(255), nullable=False),
    sa.UniqueConstraint('name', name='uniq_traits0name'),
    **_MYSQL)

resource_provider_traits = sa.Table(
    'resource_provider_traits', metadata,
    *_timestamps(),
    sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
              primary_key=True, nullable=False, autoincrement=False),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), primary_key=True,
              nullable=False, autoincrement=False),
    sa.Index('resource_provider_traits_resource_provider_trait_idx',
             'resource_provider_id', 'trait_id'),
    **_MYSQL)

projects = sa.Table(
    'projects', metadata,
    *_timestamps(),
    _id(),
    sa.Column('external_id', sa.String(255), nullable=False),
    sa.UniqueConstraint('external_id', name='uniq_projects0external_id'),
    **_MYSQL)

users = sa.Table(
    'users', metadata,
    *_timestamps(),
    _id(),
    sa.Column('external_id', sa.String(255), nullable=False),
    sa.UniqueConstraint('external_id', name='uniq_users0external_id'),
    **_MYSQL)

consumer_types = sa.Table(
    'consumer_types', metadata,
    *_timestamps(),
    _id(),
    sa.Column('name', sa.Unicode(255), nullable=False),
    sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
    **_MYSQL)

consumers = sa.Table(
    'consumers', metadata,
    *_timestamps(),
    _id(),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('project_id', sa.Integer, nullable=False),
    sa.Column('user_id', sa.Integer, nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, default=0,
              server_default=sa.text('0')),
    sa.Column('consumer_type_id', sa.Integer,
              sa.ForeignKey('consumer_types.id',
                            name='consumers_consumer_type_id_fkey'),
              nullable=True),
    sa.Index('consumers_project_id_uuid_idx', 'project_id', 'uuid'),
    sa.Index('consumers_project_id_user_id_uuid_idx', 'project_id',
             'user_id', 'uuid'),
    sa.Index('consumers_consumer_type_id_idx', 'consumer_type_id'),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    **_MYSQL)
