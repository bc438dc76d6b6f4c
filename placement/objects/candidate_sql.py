"""The SQL of GET /allocation_candidates: WHERE terms and statements.

Every value a statement needs (trait, aggregate and provider ids, chunk
bounds) is a bind parameter collected by a ``Binds``, never a literal, so
that one statement object serves every request of the same shape. A
fresh statement costs about a millisecond per query in construction and
SQLAlchemy cache-key work; ``cached`` builds each shape once. The shape
is the ``Binds.trace``: every builder below records each structural
choice it makes (which term, negated or not, on which column), so two
requests share a statement only when they would have built the same one.
"""
import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import visitors

from placement.db import models
from placement.objects import _sql

# Shapes kept; a caller inventing endless shapes only starts it over.
MAX_STATEMENTS = 512

_RP = models.resource_providers
_RPT = models.resource_provider_traits
_RPA = models.resource_provider_aggregates

_STATEMENTS = {}


class Binds:
    """Bind parameters in the order a builder asks for them, and the trace
    of the structure it built.
    """

    def __init__(self):
        self.values = {}
        self.trace = []

    def ids(self, values, tag, name=None):
        """An expanding bind parameter holding ``values`` (a list);
        ``name`` fixes its name, for a value supplied again at each use
        (see with_value).
        """
        name = name or 'v%d' % len(self.values)
        self.values[name] = sorted(values)
        self.trace.append(tag)
        return sa.bindparam(name, expanding=True)

    def with_value(self, name, value):
        """A copy of these binds (same trace) with ``name`` set to
        ``value``; the original is left as it was.
        """
        copy = Binds()
        copy.values = dict(self.values)
        copy.values[name] = value
        copy.trace = self.trace
        return copy

    def value(self, value, tag):
        name = 'v%d' % len(self.values)
        self.values[name] = value
        self.trace.append(tag)
        return sa.bindparam(name)

    def mark(self, tag):
        """Record a structural choice that binds no value."""
        self.trace.append(tag)

    def key(self, *kind):
        return kind + tuple(self.trace)


def cached(key, build):
    """The statement of ``key`` (or what else is built from statements,
    such as a chunk's scope), built by ``build()`` the first time."""
    stmt = _STATEMENTS.get(key)
    if stmt is None:
        if len(_STATEMENTS) >= MAX_STATEMENTS:
            _STATEMENTS.clear()
        stmt = _STATEMENTS[key] = build()
    return stmt


# --- rows, packed on MySQL -------------------------------------------------
#
# PyMySQL decodes each field of each row in Python, about a microsecond a
# field: 994 providers of five columns took 3.4 ms to read. Asked instead
# as one text value (GROUP_CONCAT) written as JSON arrays, the same rows
# cost the server no more and parse in C (orjson) in an eighth of a
# millisecond, ints and NULLs typed already.
#
# Text columns are quoted, not escaped (JSON_QUOTE costs the server more
# than the parsing saves): they hold uuids and the names of classes and
# traits, which the API only accepts without quotes or backslashes. An
# answer with a backslash, or that does not parse into ``count`` rows of
# the expected width (a stray quote), is read again row by row.

INT, TEXT, INT_OR_NONE = 'int', 'text', 'int or none'
# The dialect whose connections raise group_concat_max_len (db.api's MySQL
# events); elsewhere a large packed answer would come back cut short and
# be read twice.
PACKING_DIALECTS = ('mysql',)
# Where the providers are read in heap order (state_stmt's heap_order).
HEAP_ORDER_DIALECTS = _sql.PHYSICAL_ORDER_DIALECTS


def rows(conn, key, build, params, types):
    """The rows (sequences) of the statement cached under ``key`` (built
    by ``build()``), whose columns are of ``types``.

    On MySQL they travel packed (see above); a packed answer that came
    back cut short (group_concat_max_len, max_allowed_packet) is asked
    again row by row. Elsewhere they are plain statements (psycopg
    prepares the ones a connection runs often).
    """
    if conn.dialect.name in PACKING_DIALECTS:
        stmt = cached(('packed',) + key,
                      lambda: _packed(cached(key, build), types))
        count, text = conn.execute(stmt, params).one()
        found = _sql.unpack_json_rows(count, text, len(types))
        if found is not None:
            return found
    return conn.execute(cached(key, build), params).all()


def _packed(stmt, types):
    """SELECT COUNT(*), GROUP_CONCAT(CONCAT('[', CONCAT_WS(',',
        IFNULL(c1, 'null'), IFNULL(CONCAT('"', t2, '"'), 'null'), ...),
    ']')) FROM (<stmt>) AS packed
    """
    inner = stmt.subquery('packed')
    fields = []
    for column, kind in zip(inner.c, types):
        if kind == TEXT:
            column = sa.func.concat('"', column, '"')
        fields.append(sa.func.ifnull(column, 'null'))
    row = sa.func.concat('[', sa.func.concat_ws(',', *fields), ']')
    return sa.select(sa.func.count(), sa.func.group_concat(row))


# --- terms on a tree's root ------------------------------------------------

def _tree_has(binds, table, key_column, ids, root_column, correlated,
              flat=False):
    """True when some provider of the tree rooted at ``root_column`` has a
    link (trait or aggregate) among ``ids``; ``flat`` (no provider has a
    parent, so every tree is its root alone) asks the links directly.

    root IN (SELECT rp.root_provider_id FROM <links> l
             JOIN resource_providers rp ON rp.id = l.resource_provider_id
             WHERE l.<key> IN (:ids))
    or, ``correlated`` (walking roots in id order with a LIMIT):
    (SELECT 1 FROM resource_providers t WHERE t.root_provider_id = root
     AND (SELECT 1 FROM <links> l WHERE l.resource_provider_id = t.id
          AND l.<key> IN (:ids) LIMIT 1) IS NOT NULL LIMIT 1)
    IS NOT NULL
    """
    if flat:
        return _root_links(binds, table, key_column, ids, root_column,
                           correlated)
    tag = 'tree_has %s %s' % (table.name, correlated)
    if not correlated:
        return root_column.in_(
            _link_roots(table, key_column, binds.ids(ids, tag)))
    tree = _RP.alias('tree_rp')
    # Scalar subqueries, not EXISTS: MariaDB turns EXISTS into a
    # semi-join that materialises every matching link (O(providers))
    # before the outer LIMIT; this form is checked root by root. And
    # nested, not a join: joined, MariaDB may drive the check from the
    # links (every provider holding the trait, in id order) rather than
    # from the root's tree, which made each root cost O(links): 18 s for
    # 5,000 trees where the trait is on the last 58.
    link = sa.select(sa.literal(1)).where(
        table.c.resource_provider_id == tree.c.id,
        key_column.in_(binds.ids(ids, tag))).limit(1).scalar_subquery()
    return sa.select(sa.literal(1)).select_from(tree).where(
        tree.c.root_provider_id == root_column,
        link.isnot(None)).limit(1).scalar_subquery().isnot(None)


def _tree_has_all(binds, trait_ids, root_column):
    """True when the providers of the tree rooted at ``root_column`` hold
    every one of ``trait_ids`` between them:

    root IN (SELECT rp.root_provider_id FROM resource_provider_traits l
             JOIN resource_providers rp ON rp.id = l.resource_provider_id
             WHERE l.trait_id IN (:ids) GROUP BY rp.root_provider_id
             HAVING COUNT(DISTINCT l.trait_id) = :count)

    One pass over the links of all the traits, where a term per trait
    (_tree_has) would materialise a subquery each: 0.3 ms less for three
    traits over 142 trees of seven providers on MariaDB.
    """
    ids = binds.ids(trait_ids, 'tree_has_all')
    count = binds.value(len(trait_ids), 'tree_has_all count')
    return root_column.in_(
        _link_roots(_RPT, _RPT.c.trait_id, ids)
        .group_by(_RP.c.root_provider_id)
        .having(sa.func.count(sa.distinct(_RPT.c.trait_id)) == count))


def _link_roots(table, key_column, ids):
    """SELECT rp.root_provider_id FROM <links> l
    JOIN resource_providers rp ON rp.id = l.resource_provider_id
    WHERE l.<key> IN (<ids>)
    """
    return (sa.select(_RP.c.root_provider_id)
            .select_from(table.join(
                _RP, _RP.c.id == table.c.resource_provider_id))
            .where(key_column.in_(ids)))


def _root_links(binds, table, key_column, ids, root_column, correlated,
                negated=False):
    """The provider ``root_column`` itself has (or, ``negated``, has not)
    a link among ``ids``.

    root IN (SELECT l.resource_provider_id FROM <links> l
             WHERE l.<key> IN (:ids)), or the scalar form.
    """
    tag = 'root_links %s %s %s' % (table.name, correlated, negated)
    if not correlated:
        term = root_column.in_(
            sa.select(table.c.resource_provider_id)
            .where(key_column.in_(binds.ids(ids, tag))))
    else:
        term = sa.select(sa.literal(1)).select_from(table).where(
            table.c.resource_provider_id == root_column,
            key_column.in_(binds.ids(ids, tag))).limit(1).scalar_subquery(
        ).isnot(None)
    return ~term if negated else term


def tree_terms(binds, query, lookups, root_column, correlated=False,
               every_root=False):
    """WHERE terms on a root id that every viable tree meets.

    root_required is checked on the root itself. Without sharing
    providers, every provider a candidate uses is in the anchor's tree,
    so the tree must also hold each required trait (or one of an any-of
    set) and each required aggregate of every group somewhere.
    """
    trait_ids, agg_ids = lookups.trait_ids, lookups.agg_ids
    terms = []
    for name in sorted(query.root_traits.required):
        terms.append(_root_links(binds, _RPT, _RPT.c.trait_id,
                                 [trait_ids[name]], root_column, correlated))
    if query.root_traits.forbidden:
        terms.append(_root_links(
            binds, _RPT, _RPT.c.trait_id,
            [trait_ids[n] for n in query.root_traits.forbidden],
            root_column, correlated, negated=True))
    if lookups.sharing_ids:
        binds.mark('sharing: no tree terms')
        return terms
    flat = lookups.is_flat
    if flat:
        terms += _forbidden_terms(binds, query, lookups, root_column,
                                  correlated)
    # Trees (not flat, not root by root) must hold each required trait of
    # every group somewhere: when every root is asked for, one grouped
    # subquery checks them all at once (see _tree_has_all). Not for a
    # chunk of roots: grouping reads the links of every tree, where a
    # term per trait is checked for the chunk's roots alone.
    together = every_root and not flat and not correlated
    if together:
        required = sorted({trait_ids[n] for group in query.groups
                           for n in group.traits.required})
        if len(required) > 1:
            terms.append(_tree_has_all(binds, required, root_column))
        elif required:
            terms.append(_tree_has(binds, _RPT, _RPT.c.trait_id, required,
                                   root_column, correlated, flat))
    for group in query.groups:
        binds.mark('group')
        wanted = [] if together else [
            [trait_ids[n]] for n in sorted(group.traits.required)]
        wanted += [[trait_ids[n] for n in any_of]
                   for any_of in group.traits.any_of]
        for ids in wanted:
            terms.append(_tree_has(binds, _RPT, _RPT.c.trait_id, ids,
                                   root_column, correlated, flat))
        for any_of in group.aggregates.required:
            ids = [agg_ids[u] for u in any_of if u in agg_ids]
            terms.append(_tree_has(binds, _RPA, _RPA.c.aggregate_id, ids,
                                   root_column, correlated, flat))
    return terms


def _forbidden_terms(binds, query, lookups, root_column, correlated):
    """Flat deployments only: no tree holding a forbidden trait or
    aggregate of any group (its one provider would serve that group).
    """
    terms = []
    for group in query.groups:
        binds.mark('forbidden')
        if group.traits.forbidden:
            terms.append(_root_links(
                binds, _RPT, _RPT.c.trait_id,
                [lookups.trait_ids[n] for n in group.traits.forbidden],
                root_column, correlated, negated=True))
        ids = [lookups.agg_ids[u] for u in group.aggregates.forbidden
               if u in lookups.agg_ids]
        if ids:
            terms.append(_root_links(binds, _RPA, _RPA.c.aggregate_id, ids,
                                     root_column, correlated, negated=True))
    return terms


# --- roots and chunks ------------------------------------------------------

ROOT_IDS = 'root_ids'


def root_filter(binds, query, lookups, correlated=True):
    """The roots that may anchor a candidate (see tree_terms); by default
    checked root by root in id order so that a LIMIT stops the scan early.
    """
    return [_RP.c.parent_provider_id.is_(None),
            *tree_terms(binds, query, lookups, _RP.c.id, correlated)]


class _InRootIds(sa.sql.ColumnElement):
    """``column IN (:root_ids)``, an expanding parameter; on PostgreSQL
    ``column = ANY(:root_ids)``, one array parameter: the text is then
    the same for every number of ids (one prepared statement serves all
    random draws), and neither SQLAlchemy nor the server handles an item
    per id (85 us less for 64 ids).
    """

    # Not Boolean: on a database without a boolean type SQLAlchemy would
    # then write the term as ``(... IN (...)) = 1``, which MariaDB cannot
    # answer from the index (a whole scan: randomized limit=10 took 28 ms
    # at 20,000 providers instead of 3).
    type = sa.types.NullType()
    inherit_cache = True
    _traverse_internals = [
        ('column', visitors.InternalTraversal.dp_clauseelement)]

    def __init__(self, column):
        self.column = column


@compiler.compiles(_InRootIds)
def _in_root_ids(element, sql_compiler, **kw):
    return sql_compiler.process(element.column.in_(
        sa.bindparam(ROOT_IDS, expanding=True)), **kw)


@compiler.compiles(_InRootIds, 'postgresql')
def _any_root_id(element, sql_compiler, **kw):
    # Imported here: on MySQL and SQLite the PostgreSQL dialect's modules
    # (about 1 MiB per process) are then never loaded.
    from sqlalchemy.dialects import postgresql
    ids = sa.bindparam(ROOT_IDS, type_=postgresql.ARRAY(sa.Integer))
    return sql_compiler.process(element.column == sa.func.any(ids), **kw)


def in_roots(binds, roots, column):
    """A WHERE term limiting ``column`` (a root id) to the chunk; None
    when the chunk is every root. A list of ids is bound as ROOT_IDS, so
    that one expression serves every list (Binds.with_value).
    """
    if roots.ids is not None:
        binds.values[ROOT_IDS] = sorted(roots.ids)
        binds.trace.append('roots')
        return _InRootIds(column)
    terms = []
    if roots.low is not None:
        terms.append(column > binds.value(roots.low, 'low'))
    if roots.high is not None:
        terms.append(column <= binds.value(roots.high, 'high'))
    return sa.and_(*terms) if terms else None


def in_scope(binds, query, lookups, roots):
    """WHERE term on ``rp``: providers of the chunk's viable trees, and
    every sharing provider (with its root).
    """
    # Flat: every provider is its own root (whatever root_provider_id
    # holds), and a term on rp.id lets the links be asked directly.
    if lookups.is_flat:
        binds.mark('flat')
        root = _RP.c.id
    else:
        binds.mark('trees')
        root = _RP.c.root_provider_id
    every_root = roots.ids is None and roots.low is None and (
        roots.high is None)
    # A list of roots (random draws, a pinned tree) is checked root by
    # root: uncorrelated, MariaDB materialises every provider holding a
    # trait or aggregate first, which grows with the deployment.
    terms = tree_terms(binds, query, lookups, root,
                       correlated=roots.ids is not None,
                       every_root=every_root)
    chunk = in_roots(binds, roots, root)
    if chunk is not None:
        terms.append(chunk)
    trees = sa.and_(sa.true(), *terms)
    sharing = lookups.sharing_ids | lookups.sharing_roots
    if not sharing:
        return trees
    return sa.or_(trees, _RP.c.id.in_(binds.ids(sharing, 'sharing')))


# --- statements over the providers in scope ---------------------------------

PROVIDER_TYPES = (INT, TEXT, INT, INT_OR_NONE, INT_OR_NONE)
# state_stmt's rows: a provider's, or a usage row in the same columns.
STATE_TYPES = PROVIDER_TYPES
FLAT_STATE_TYPES = PROVIDER_TYPES[:4]
LINK_TYPES = (INT, INT)


def providers_stmt(where, flat):
    """SELECT rp.id, rp.uuid, rp.generation[, rp.parent_provider_id,
    rp.root_provider_id] FROM resource_providers rp WHERE <where>

    ``flat``: every provider is its own root, so the tree columns are not
    read.
    """
    columns = [_RP.c.id, _RP.c.uuid, _RP.c.generation]
    if not flat:
        columns += [_RP.c.parent_provider_id, _RP.c.root_provider_id]
    return sa.select(*columns).where(where)


def state_stmt(where, flat, heap_order=False):
    """The providers in scope and their usage, in one round trip:

    <providers_stmt> [, NULL when flat] [ORDER BY rp.ctid]
    UNION ALL
    SELECT a.resource_provider_id, NULL, SUM(a.used), a.resource_class_id
           [, NULL]
    FROM allocations a
    JOIN resource_providers rp ON rp.id = a.resource_provider_id
    WHERE <where> GROUP BY a.resource_provider_id, a.resource_class_id

    A usage row is the one with no uuid: (provider id, None, used, class
    id[, None]). Two statements cost a second round trip and a second
    pass through the driver, about a fifth of a millisecond.

    ``heap_order`` (PostgreSQL): the providers in the heap's order, the
    order of upstream's provider summaries there (its plan reads the
    providers table front to back; by experiment). Sorting a thousand
    providers costs the server about 0.1 ms; a statement of its own for
    the summaries' order cost 1 to 2 ms.
    """
    alloc = models.allocations
    providers = providers_stmt(where, flat)
    no_uuid = sa.cast(sa.null(), _RP.c.uuid.type)
    usage_columns = [alloc.c.resource_provider_id, no_uuid,
                     sa.cast(sa.func.sum(alloc.c.used), sa.Integer),
                     alloc.c.resource_class_id]
    if flat:
        providers = providers.add_columns(sa.cast(sa.null(), sa.Integer))
    else:
        usage_columns.append(sa.cast(sa.null(), sa.Integer))
    if flat:
        # A flat scope's terms are on rp.id alone (in_scope): asked of
        # the allocations' provider id, they need no join, which spares
        # PostgreSQL a quarter of the statement's planning.
        usage = sa.select(*usage_columns).where(
            visitors.replacement_traverse(where, {}, _on_allocations))
    else:
        usage = (sa.select(*usage_columns)
                 .select_from(alloc.join(
                     _RP, _RP.c.id == alloc.c.resource_provider_id))
                 .where(where))
    usage = usage.group_by(alloc.c.resource_provider_id,
                           alloc.c.resource_class_id)
    if heap_order:
        providers = providers.order_by(_sql.physical_order(_RP))
    return sa.union_all(providers, usage)


def _on_allocations(element):
    """rp.id as allocations.resource_provider_id (replacement_traverse)."""
    if element is _RP.c.id:
        return models.allocations.c.resource_provider_id
    return None


def links_stmt(table, key_column, where):
    """SELECT l.resource_provider_id, l.<key> FROM <links> l
    JOIN resource_providers rp ON rp.id = l.resource_provider_id
    WHERE l.<key> IN (:link_ids) AND <where>
    """
    return (sa.select(table.c.resource_provider_id, key_column)
            .select_from(table.join(
                _RP, _RP.c.id == table.c.resource_provider_id))
            .where(key_column.in_(sa.bindparam('link_ids', expanding=True)),
                   where))
