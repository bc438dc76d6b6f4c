"""The statements of a candidates read, built from a plan. Pure: they
are built here and run by fetch.py.

Each builder takes a ``plan.Plan`` (and, for the reads of a chunk, the
chunk's kind) and returns a SQLAlchemy Core statement. Ids from the
plan are bind parameters with their values (in_lists for lists); the
chunk's bounds are the named parameters ``low``, ``high`` and
``root_ids``, given at execution. So the text of a statement depends
only on the plan's shape, and a database that prepares repeated
statements sees one text per shape.

Building a statement costs about a millisecond; a scheduler asks the
same questions again and again. ``functools.lru_cache`` keeps each
builder's answers, keyed by its arguments: the plan is the key, and
nothing else is kept.

The same builders run on SQLite, MariaDB and PostgreSQL.
"""
import functools

import sqlalchemy as sa

from placement.db import in_lists
from placement.db import models
from placement.db import packed
from placement.objects.candidates import plan as plan_mod

# Statements kept per builder (plans differ by the ids they hold).
CACHED = 256

_RP = models.resource_providers
_RPT = models.resource_provider_traits
_RPA = models.resource_provider_aggregates
_ALLOC = models.allocations


# --- the lookups ------------------------------------------------------------

@functools.lru_cache(maxsize=32)
def lookups_stmt(trait_slots, aggregate_slots):
    """One UNION ALL of (kind, id, text, extra) rows, a kind per letter:

    SELECT 'c', id, name, NULL FROM resource_classes
    UNION ALL SELECT 't', id, name, NULL FROM traits
              WHERE name IN (:trait_names_0, ...)        -- trait_slots
    UNION ALL SELECT 'a', id, uuid, NULL FROM placement_aggregates
              WHERE uuid IN (:agg_uuids_0, ...)      -- aggregate_slots
    UNION ALL SELECT 's', l.resource_provider_id, NULL,
              (SELECT rp.root_provider_id FROM resource_providers rp
               WHERE rp.id = l.resource_provider_id)
              FROM resource_provider_traits l
              WHERE l.trait_id = (<id of MISC_SHARES_VIA_AGGREGATE>)
    UNION ALL SELECT 'g', a.resource_provider_id, NULL, a.aggregate_id
              FROM resource_provider_aggregates a
              JOIN resource_provider_traits l
                ON l.resource_provider_id = a.resource_provider_id
              WHERE l.trait_id = (<id of MISC_SHARES_VIA_AGGREGATE>)
    UNION ALL SELECT 'r', MIN(id), NULL, MAX(id) FROM resource_providers
    UNION ALL SELECT 'n', (SELECT id FROM resource_providers
              WHERE parent_provider_id IS NOT NULL LIMIT 1), NULL, NULL

    c: every class; t, a: the traits and aggregates named; s: the sharing
    providers and their roots; g: their aggregates; r: the provider id
    range; n: a provider with a parent, if any. The slots: the sizes of
    the IN lists (db.in_lists), 0 leaving the arm out.
    """
    return sa.union_all(*_lookups_arms(trait_slots, aggregate_slots))


def _lookups_arms(trait_slots, aggregate_slots, padding=()):
    """The SELECTs of lookups_stmt, each followed by ``padding``."""
    rc, trait = models.resource_classes, models.traits
    agg = models.placement_aggregates
    arms = [sa.select(_kind('c'), rc.c.id, rc.c.name, _NO_ID, *padding)]
    if trait_slots:
        arms.append(sa.select(_kind('t'), trait.c.id, trait.c.name, _NO_ID,
                              *padding)
                    .where(in_lists.in_(trait.c.name, 'trait_names',
                                        trait_slots)))
    if aggregate_slots:
        arms.append(sa.select(_kind('a'), agg.c.id, agg.c.uuid, _NO_ID,
                              *padding)
                    .where(in_lists.in_(agg.c.uuid, 'agg_uuids',
                                        aggregate_slots)))
    arms += _sharing_arms(padding)
    arms.append(sa.select(_kind('r'), sa.func.min(_RP.c.id), _NO_TEXT,
                          sa.func.max(_RP.c.id), *padding))
    arms.append(sa.select(
        _kind('n'),
        sa.select(_RP.c.id).where(_RP.c.parent_provider_id.isnot(None))
        .limit(1).scalar_subquery(), _NO_TEXT, _NO_ID, *padding))
    return arms


# The kinds of lookups_stmt's columns (db.packed).
LOOKUPS_TYPES = (packed.TEXT, packed.INT, packed.TEXT, packed.INT)


# What a kind may be: it goes in the SQL text as a constant.
_KIND_LETTERS = frozenset('abcdefghijklmnopqrstuvwxyz')


def _kind(letter):
    """The constant column ``kind`` of an arm: ``letter``, checked here
    to be one lower-case ASCII letter (ValueError otherwise), so that
    it needs no quoting. A bound parameter instead (sa.literal) cost
    every execution of the seven-arm lookups statement 10-14 us (2 us
    an arm, timeit, SQLite and PostgreSQL); the statements are built
    once (cached), so this check costs nothing per request."""
    if letter.__class__ is not str or letter not in _KIND_LETTERS:
        raise ValueError('not a kind letter: %r' % (letter,))
    return sa.literal_column("'%s'" % letter).label('kind')


# Typed NULLs: PostgreSQL types a column of a UNION from its arms.
_NO_TEXT = sa.cast(sa.null(), sa.String)
_NO_ID = sa.cast(sa.null(), sa.Integer)


def _sharing_arms(padding):
    """The 's' and 'g' arms of lookups_stmt. The sharing trait's id is a
    scalar subquery and the providers' roots a correlated one:
    PostgreSQL plans these in a third of the time of three-way joins.
    """
    trait = models.traits
    sharing_trait = (sa.select(trait.c.id)
                     .where(trait.c.name == plan_mod.SHARING_TRAIT)
                     .scalar_subquery())
    sharing_root = (sa.select(_RP.c.root_provider_id)
                    .where(_RP.c.id == _RPT.c.resource_provider_id)
                    .scalar_subquery())
    return [
        sa.select(_kind('s'), _RPT.c.resource_provider_id, _NO_TEXT,
                  sharing_root, *padding)
        .where(_RPT.c.trait_id == sharing_trait),
        sa.select(_kind('g'), _RPA.c.resource_provider_id, _NO_TEXT,
                  _RPA.c.aggregate_id, *padding)
        .select_from(_RPA.join(_RPT, _RPT.c.resource_provider_id
                               == _RPA.c.resource_provider_id))
        .where(_RPT.c.trait_id == sharing_trait)]


def lookups_slots(query):
    """(trait_slots, aggregate_slots): the sizes of lookups_stmt's IN
    lists for ``query``."""
    return (in_lists.size(query.trait_names),
            in_lists.size(query.aggregate_uuids))


def lookups_params(query):
    """The bind values of lookups_stmt."""
    return in_lists.bind_all({'trait_names': sorted(query.trait_names),
                              'agg_uuids': sorted(query.aggregate_uuids)})


def pinned_root_stmt():
    """SELECT id, root_provider_id FROM resource_providers
    WHERE uuid = :uuid"""
    return sa.select(_RP.c.id, _RP.c.root_provider_id).where(
        _RP.c.uuid == sa.bindparam('uuid'))


# --- terms on a tree's root -------------------------------------------------

def _link_roots(table, key_column, ids):
    """SELECT t.root_provider_id FROM <links> l
    JOIN resource_providers t ON t.id = l.resource_provider_id
    WHERE l.<key> IN (:ids)
    """
    tree = _RP.alias('link_rp')
    return (sa.select(tree.c.root_provider_id)
            .select_from(table.join(
                tree, tree.c.id == table.c.resource_provider_id))
            .where(key_column.in_(ids)))


def _tree_has(table, key_column, ids, root, correlated):
    """Some provider of the tree rooted at ``root`` has a link (trait or
    aggregate) among ``ids``:

    root IN (<_link_roots>)
    or, ``correlated`` (checked root by root, for a LIMIT or a list):
    (SELECT 1 FROM resource_providers t WHERE t.root_provider_id = root
     AND (SELECT 1 FROM <links> l WHERE l.resource_provider_id = t.id
          AND l.<key> IN (:ids) LIMIT 1) IS NOT NULL LIMIT 1) IS NOT NULL
    """
    if not correlated:
        return root.in_(_link_roots(table, key_column, list(ids)))
    tree = _RP.alias('tree_rp')
    # Scalar subqueries, not EXISTS: MariaDB turns EXISTS into a
    # semi-join that materialises every matching link before the outer
    # LIMIT; this form is checked root by root. Nested, not joined:
    # joined, MariaDB may drive the check from the links rather than
    # from the root's tree (18 s for 5,000 trees where the trait is on
    # the last 58).
    link = sa.select(sa.literal(1)).where(
        table.c.resource_provider_id == tree.c.id,
        key_column.in_(list(ids))).limit(1).scalar_subquery()
    return sa.select(sa.literal(1)).select_from(tree).where(
        tree.c.root_provider_id == root,
        link.isnot(None)).limit(1).scalar_subquery().isnot(None)


def _tree_has_all(trait_ids, root):
    """The providers of the tree rooted at ``root`` hold every one of
    ``trait_ids`` between them:

    root IN (<_link_roots of the traits> GROUP BY t.root_provider_id
             HAVING COUNT(DISTINCT l.trait_id) = :count)

    One pass over the links of all the traits, where a term per trait
    would materialise a subquery each (0.3 ms less for three traits
    over 142 trees of seven providers on MariaDB).
    """
    roots = _link_roots(_RPT, _RPT.c.trait_id, list(trait_ids))
    tree = roots.selected_columns.root_provider_id
    return root.in_(roots.group_by(tree).having(
        sa.func.count(sa.distinct(_RPT.c.trait_id)) == len(trait_ids)))


def _root_links(table, key_column, ids, root, correlated, negated=False):
    """The provider ``root`` itself has (``negated``: has not) a link
    among ``ids``:

    root IN (SELECT l.resource_provider_id FROM <links> l
             WHERE l.<key> IN (:ids)), or the scalar form (correlated).
    """
    if not correlated:
        term = root.in_(sa.select(table.c.resource_provider_id)
                        .where(key_column.in_(list(ids))))
    else:
        term = sa.select(sa.literal(1)).select_from(table).where(
            table.c.resource_provider_id == root,
            key_column.in_(list(ids))).limit(1).scalar_subquery(
        ).isnot(None)
    return ~term if negated else term


def tree_terms(plan, root, correlated=False, every_root=False):
    """WHERE terms on a root id (``root``) that every viable tree meets
    (see plan.Plan). ``every_root``: no chunk bounds the roots, so one
    grouped subquery checks the required traits of nested trees at once;
    for a chunk, grouping would read the links of every tree.
    """
    terms = [_root_links(_RPT, _RPT.c.trait_id, (trait_id,), root,
                         correlated) for trait_id in plan.root_required]
    if plan.root_forbidden:
        terms.append(_root_links(_RPT, _RPT.c.trait_id, plan.root_forbidden,
                                 root, correlated, negated=True))
    if plan.flat:
        return terms + _flat_terms(plan, root, correlated)
    traits = plan.tree_traits
    if every_root and not correlated and len(plan.tree_required) > 1:
        terms.append(_tree_has_all(plan.tree_required, root))
        grouped = {(trait_id,) for trait_id in plan.tree_required}
        traits = [ids for ids in traits if ids not in grouped]
    terms += [_tree_has(_RPT, _RPT.c.trait_id, ids, root, correlated)
              for ids in traits]
    terms += [_tree_has(_RPA, _RPA.c.aggregate_id, ids, root, correlated)
              for ids in plan.tree_aggregates]
    return terms


def _flat_terms(plan, root, correlated):
    """A flat tree is its root alone: its links are asked directly."""
    terms = [_root_links(_RPT, _RPT.c.trait_id, ids, root, correlated)
             for ids in plan.tree_traits]
    terms += [_root_links(_RPA, _RPA.c.aggregate_id, ids, root, correlated)
              for ids in plan.tree_aggregates]
    if plan.forbidden_traits:
        terms.append(_root_links(_RPT, _RPT.c.trait_id,
                                 plan.forbidden_traits, root, correlated,
                                 negated=True))
    if plan.forbidden_aggregates:
        terms.append(_root_links(_RPA, _RPA.c.aggregate_id,
                                 plan.forbidden_aggregates, root,
                                 correlated, negated=True))
    return terms


def in_scope(plan, kind):
    """The WHERE term on ``resource_providers`` of a chunk's providers:
    those of its viable trees, and every sharing provider.

    (<tree_terms on the root> AND <the chunk's bounds on the root>)
    OR resource_providers.id IN (:sharing providers and their roots)

    The root is rp.id when flat (every provider is its own root,
    whatever root_provider_id holds), else rp.root_provider_id. A list
    of roots is checked root by root (correlated): uncorrelated, MariaDB
    materialises every provider holding a trait or aggregate first,
    which grows with the deployment.
    """
    root = _RP.c.id if plan.flat else _RP.c.root_provider_id
    terms = tree_terms(plan, root, correlated=kind == plan_mod.LISTED,
                       every_root=kind == plan_mod.EVERY)
    if kind == plan_mod.RANGE:
        terms += [root > sa.bindparam('low'), root <= sa.bindparam('high')]
    elif kind == plan_mod.LISTED:
        terms.append(in_lists.any_of(root, 'root_ids'))
    trees = sa.and_(sa.true(), *terms)
    sharing = sorted(set(plan.sharing_ids) | set(plan.sharing_roots))
    if not sharing:
        return trees
    return sa.or_(trees, _RP.c.id.in_(sharing))


# --- the reads of a chunk ---------------------------------------------------

PROVIDER, USAGE = 'p', 'u'


def state_types(plan):
    """The kinds of state_stmt's columns (db.packed)."""
    tree = () if plan.flat else (packed.INT, packed.INT)
    return ((packed.TEXT, packed.INT, packed.TEXT, packed.INT) + tree
            + (packed.INT, packed.INT))


@functools.lru_cache(maxsize=CACHED)
def state_stmt(plan, kind):
    """The providers of a chunk of ``kind`` and their usage (_state_arms),
    in one statement."""
    return sa.union_all(*_state_arms(plan, kind))


@functools.lru_cache(maxsize=CACHED)
def lookups_and_state_stmt(plan, kind, trait_slots, aggregate_slots):
    """lookups_stmt and state_stmt(plan, kind) as one statement, a round
    trip and a driver call fewer: the lookups' rows padded with NULLs to
    the width of the state's, whose first four columns have the same
    types. The first column tells their rows apart (the state's are
    PROVIDER and USAGE). Its values: lookups_params.
    """
    arms = _state_arms(plan, kind)
    padding = [sa.cast(sa.null(), sa.Integer)
               for _ in range(len(state_types(plan)) - len(LOOKUPS_TYPES))]
    return sa.union_all(*arms, *_lookups_arms(trait_slots, aggregate_slots,
                                              padding))


def _state_arms(plan, kind):
    """The providers of a chunk and their usage, as rows of two kinds
    (the first column), each column with one meaning:

    SELECT 'p', rp.id, rp.uuid, rp.generation[, rp.parent_provider_id,
           rp.root_provider_id], NULL, NULL
    FROM resource_providers rp WHERE <in_scope>
    UNION ALL
    SELECT 'u', a.resource_provider_id, NULL, NULL[, NULL, NULL],
           a.resource_class_id, CAST(SUM(a.used) AS INTEGER)
    FROM allocations a
    JOIN resource_providers rp ON rp.id = a.resource_provider_id
    WHERE <in_scope> GROUP BY a.resource_provider_id, a.resource_class_id

    One statement, not two (state_stmt): a round trip and a driver call
    fewer per chunk. Flat plans do not read the tree columns.
    """
    def none(name, type_=sa.Integer):
        # Labelled: each column of the UNION keeps a name of its own.
        return sa.cast(sa.null(), type_).label(name)
    tree = [] if plan.flat else [_RP.c.parent_provider_id,
                                 _RP.c.root_provider_id]
    where = in_scope(plan, kind)
    providers = sa.select(_kind(PROVIDER), _RP.c.id, _RP.c.uuid,
                          _RP.c.generation, *tree, none('resource_class_id'),
                          none('used')).where(where)
    usage = (sa.select(_kind(USAGE), _ALLOC.c.resource_provider_id,
                       none('uuid', sa.String), none('generation'),
                       *[none(column.name) for column in tree],
                       _ALLOC.c.resource_class_id,
                       sa.cast(sa.func.sum(_ALLOC.c.used),
                               sa.Integer).label('used'))
             .select_from(_ALLOC.join(
                 _RP, _RP.c.id == _ALLOC.c.resource_provider_id))
             .where(where)
             .group_by(_ALLOC.c.resource_provider_id,
                       _ALLOC.c.resource_class_id))
    return [providers, usage]


@functools.lru_cache(maxsize=CACHED)
def links_stmt(plan, kind):
    """SELECT l.resource_provider_id, l.aggregate_id
    FROM resource_provider_aggregates l
    JOIN resource_providers rp ON rp.id = l.resource_provider_id
    WHERE l.aggregate_id IN (:link_aggregates) AND <in_scope>

    None when the plan reads no links.
    """
    ids = sorted(agg_id for _, agg_id in plan.link_aggregates)
    if not ids:
        return None
    return (sa.select(_RPA.c.resource_provider_id, _RPA.c.aggregate_id)
            .select_from(_RPA.join(
                _RP, _RP.c.id == _RPA.c.resource_provider_id))
            .where(_RPA.c.aggregate_id.in_(ids), in_scope(plan, kind)))


# --- which roots to read ----------------------------------------------------

def _viable_roots(plan, correlated):
    """The terms on rp of a root that may anchor a candidate."""
    return [_RP.c.parent_provider_id.is_(None),
            *tree_terms(plan, _RP.c.id, correlated)]


@functools.lru_cache(maxsize=CACHED)
def range_end_stmt(plan):
    """The last root of the next ``:offset + 1`` viable roots after
    ``:low``, walking the roots in id order (correlated terms: the LIMIT
    stops the walk early):

    SELECT rp.id FROM resource_providers rp
    WHERE rp.parent_provider_id IS NULL AND <tree_terms on rp.id>
      AND rp.id > :low
    ORDER BY rp.id LIMIT 1 OFFSET :offset

    ``low`` and ``offset`` are written into the text at execution
    (literal_execute): planned for unknown bounds (PostgreSQL's generic
    plan of a prepared statement), the walk became a scan and sort of
    every root, 2.7 ms where the walk in id order takes 0.45 ms (the
    nested shape's gate with limit=10). The first chunk's text repeats
    and is prepared; the later ones run once each.
    """
    return (sa.select(_RP.c.id)
            .where(*_viable_roots(plan, True),
                   _RP.c.id > sa.bindparam('low', type_=sa.Integer,
                                           literal_execute=True))
            .order_by(_RP.c.id)
            .offset(sa.bindparam('offset', type_=sa.Integer,
                                 literal_execute=True))
            .limit(sa.literal_column('1', sa.Integer)))


@functools.lru_cache(maxsize=CACHED)
def viable_roots_stmt(plan):
    """SELECT rp.id FROM resource_providers rp
    WHERE rp.parent_provider_id IS NULL AND <tree_terms on rp.id>
    ORDER BY rp.id
    """
    return (sa.select(_RP.c.id).where(*_viable_roots(plan, False))
            .order_by(_RP.c.id))
