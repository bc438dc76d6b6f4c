"""The schema of spec/DATABASE.md as data, and a snapshot of a live one.

Foreign keys other than ``consumers_consumer_type_id_fkey`` are unnamed in
the deployed schema (each backend names them itself), so only their
columns and target are compared.
"""
import sqlalchemy as sa

_TS = ['created_at', 'updated_at']

# table: (columns in order, {index: columns}, {unique constraint: columns},
#         {(columns, referred table)}, primary key columns)
EXPECTED = {
    'allocations': (
        _TS + ['id', 'resource_provider_id', 'consumer_id',
               'resource_class_id', 'used'],
        {'allocations_resource_provider_class_used_idx':
            ('resource_provider_id', 'resource_class_id', 'used'),
         'allocations_resource_class_id_idx': ('resource_class_id',),
         'allocations_consumer_id_idx': ('consumer_id',)},
        {}, set(), ('id',)),
    'consumer_types': (
        _TS + ['id', 'name'], {},
        {'uniq_consumer_types0name': ('name',)}, set(), ('id',)),
    'consumers': (
        _TS + ['id', 'uuid', 'project_id', 'user_id', 'generation',
               'consumer_type_id'],
        {'consumers_project_id_uuid_idx': ('project_id', 'uuid'),
         'consumers_project_id_user_id_uuid_idx':
            ('project_id', 'user_id', 'uuid'),
         'consumers_consumer_type_id_idx': ('consumer_type_id',)},
        {'uniq_consumers0uuid': ('uuid',)},
        {(('consumer_type_id',), 'consumer_types')}, ('id',)),
    'inventories': (
        _TS + ['id', 'resource_provider_id', 'resource_class_id', 'total',
               'reserved', 'min_unit', 'max_unit', 'step_size',
               'allocation_ratio'],
        {'inventories_resource_class_id_idx': ('resource_class_id',)},
        {'uniq_inventories0resource_provider_resource_class':
            ('resource_provider_id', 'resource_class_id')},
        set(), ('id',)),
    'placement_aggregates': (
        _TS + ['id', 'uuid'], {},
        {'uniq_placement_aggregates0uuid': ('uuid',)}, set(), ('id',)),
    'projects': (
        _TS + ['id', 'external_id'], {},
        {'uniq_projects0external_id': ('external_id',)}, set(), ('id',)),
    'resource_classes': (
        _TS + ['id', 'name'], {},
        {'uniq_resource_classes0name': ('name',)}, set(), ('id',)),
    'resource_provider_aggregates': (
        _TS + ['resource_provider_id', 'aggregate_id'],
        {'resource_provider_aggregates_aggregate_id_idx': ('aggregate_id',)},
        {}, set(), ('resource_provider_id', 'aggregate_id')),
    'resource_provider_traits': (
        _TS + ['trait_id', 'resource_provider_id'],
        {'resource_provider_traits_resource_provider_trait_idx':
            ('resource_provider_id', 'trait_id')},
        {}, {(('resource_provider_id',), 'resource_providers'),
             (('trait_id',), 'traits')},
        ('trait_id', 'resource_provider_id')),
    'resource_providers': (
        _TS + ['id', 'uuid', 'name', 'generation', 'root_provider_id',
               'parent_provider_id'],
        {'resource_providers_parent_provider_id_idx':
            ('parent_provider_id',),
         'resource_providers_root_provider_id_idx': ('root_provider_id',)},
        {'uniq_resource_providers0name': ('name',),
         'uniq_resource_providers0uuid': ('uuid',)},
        {(('parent_provider_id',), 'resource_providers'),
         (('root_provider_id',), 'resource_providers')}, ('id',)),
    'traits': (
        _TS + ['id', 'name'], {},
        {'uniq_traits0name': ('name',)}, set(), ('id',)),
    'users': (
        _TS + ['id', 'external_id'], {},
        {'uniq_users0external_id': ('external_id',)}, set(), ('id',)),
}

NAMED_FOREIGN_KEYS = {'consumers': {'consumers_consumer_type_id_fkey'}}


def _plain_indexes(inspector, table):
    return {index['name']: tuple(index['column_names'])
            for index in inspector.get_indexes(table)
            if not index['unique']
            and not index.get('duplicates_constraint')}


def _table(inspector, table):
    return (
        [column['name'] for column in inspector.get_columns(table)],
        _plain_indexes(inspector, table),
        {uc['name']: tuple(uc['column_names'])
         for uc in inspector.get_unique_constraints(table)},
        {(tuple(fk['constrained_columns']), fk['referred_table'])
         for fk in inspector.get_foreign_keys(table)},
        tuple(inspector.get_pk_constraint(table)['constrained_columns']),
    )


def snapshot(engine):
    """{table: (columns, indexes, uniques, fks, pk)} of a live database,
    without alembic_version."""
    with engine.connect() as conn:
        inspector = sa.inspect(conn)
        return {table: _table(inspector, table)
                for table in inspector.get_table_names()
                if table != 'alembic_version'}


def foreign_key_names(engine, table):
    with engine.connect() as conn:
        return {fk['name'] for fk in sa.inspect(conn).get_foreign_keys(table)}
