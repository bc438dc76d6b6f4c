"""Dump the stored rows of both databases, normalised, and compare them.

Surrogate keys differ by insertion history, so every foreign key is
replaced by the natural key it points at (a provider's uuid, a class's or
trait's name, a project's external id...) and ``id`` columns are dropped,
except in ``resource_classes``, whose ids are fixed by convention (the
standard classes' ids are their position, custom ones start at 10000).
``created_at`` becomes ``<ts>``; ``updated_at`` too, unless it is NULL
(whether it is NULL is visible after a rollback).
"""
import datetime

import sqlalchemy as sa

SKIPPED_TABLES = frozenset(('alembic_version',))
KEEP_IDS = frozenset(('resource_classes',))
# column -> (table, natural-key column) it refers to.
FOREIGN = {
    'resource_provider_id': ('resource_providers', 'uuid'),
    'root_provider_id': ('resource_providers', 'uuid'),
    'parent_provider_id': ('resource_providers', 'uuid'),
    'resource_class_id': ('resource_classes', 'name'),
    'trait_id': ('traits', 'name'),
    'aggregate_id': ('placement_aggregates', 'uuid'),
    'project_id': ('projects', 'external_id'),
    'user_id': ('users', 'external_id'),
    'consumer_type_id': ('consumer_types', 'name'),
}


def dump(url, convert=None):
    """{table: sorted [row text]} of the database at ``url``."""
    engine = sa.create_engine(url)
    try:
        meta = sa.MetaData()
        meta.reflect(engine)
        with engine.connect() as conn:
            tables = {name: [dict(row._mapping) for row in
                             conn.execute(sa.select(table))]
                      for name, table in meta.tables.items()
                      if name not in SKIPPED_TABLES}
    finally:
        engine.dispose()
    return normalise(tables, convert)


def normalise(tables, convert=None):
    """{table: sorted [row text]} of {table: [row dict]} (see dump)."""
    keys = {}
    for table, column in set(FOREIGN.values()):
        keys[table] = {row['id']: row[column]
                       for row in tables.get(table, ())}
    return {name: sorted(_row_text(name, row, keys, convert) for row in rows)
            for name, rows in tables.items()}


def _row_text(table, row, keys, convert):
    items = []
    for column in sorted(row):
        value = row[column]
        if column == 'id' and table not in KEEP_IDS:
            continue
        if column in FOREIGN and value is not None:
            target = FOREIGN[column][0]
            value = keys.get(target, {}).get(value, '<missing %s>' % value)
        if column in ('created_at', 'updated_at') and value is not None:
            value = '<ts>'
        elif isinstance(value, datetime.datetime):
            value = '<ts>'
        items.append('%s=%r' % (column, value))
    text = ', '.join(items)
    return convert(text) if convert else text


def copy_trait_ids(up_url, db):
    """Make our (fresh) traits table upstream's: same ids, same names."""
    from placement.db import api as db_api
    from placement.db import models
    engine = sa.create_engine(up_url)
    try:
        with engine.connect() as conn:
            found = [dict(row._mapping) for row in conn.execute(
                sa.select(models.traits))]
    finally:
        engine.dispose()
    with db_api.transaction(db) as conn:
        conn.execute(models.traits.delete())
        if found:
            conn.execute(models.traits.insert(), found)
        if conn.dialect.name == 'postgresql':
            conn.execute(sa.text(
                "SELECT setval(pg_get_serial_sequence('traits', 'id'), "
                "(SELECT max(id) FROM traits))"))


def compare(ours, up):
    """[(table, detail)] for each table whose rows differ."""
    found = []
    for table in sorted(set(ours) | set(up)):
        mine, theirs = ours.get(table), up.get(table)
        if mine is None or theirs is None:
            found.append((table, 'table only in %s'
                          % ('upstream' if mine is None else 'ours')))
            continue
        if mine == theirs:
            continue
        only_mine = _minus(mine, theirs)
        only_theirs = _minus(theirs, mine)
        lines = ['only ours:     %s' % row for row in only_mine[:8]]
        lines += ['only upstream: %s' % row for row in only_theirs[:8]]
        if len(only_mine) > 8 or len(only_theirs) > 8:
            lines.append('(%d/%d rows differ)'
                         % (len(only_mine), len(only_theirs)))
        found.append((table, '\n      '.join(lines)))
    return found


def _minus(rows, others):
    remaining = list(others)
    result = []
    for row in rows:
        if row in remaining:
            remaining.remove(row)
        else:
            result.append(row)
    return result
