"""What GET /allocation_candidates looks up before it reads providers.

One UNION ALL (lookup_stmt) gives every id the request names (classes,
traits, aggregates), the sharing providers and their aggregates, the
providers' id range and whether any tree is nested: a ``Lookups``. The
statement that reads the providers is built from it (candidate_sql), so
the two run one after the other: two round trips.

Unless the question was asked before: a provider_state.Store keeps, per
query, the Lookups of its last answer (a hint), and the next request of
that query sends the lookups and the providers' statement built from the
hint as one statement (with_state_stmt). Its providers' rows count only
when the fresh lookups, read in the same snapshot, would have built that
same statement (allocation_candidate's shape key): the hint is checked,
never trusted, and a stale one costs the second round trip of old.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.db import models
from placement import exception
from placement.objects import candidate_sql as sql
from placement.objects import provider_state

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
# The kinds of lookup row; with_state_stmt codes kind k as -1 - its index,
# in a column that holds a generation or an amount elsewhere (never < 0).
KINDS = 'ctasgrn'
# Queries whose hint a store keeps (then it starts over).
MAX_HINTS = 256

_RP = models.resource_providers
_RPT = models.resource_provider_traits
_RPA = models.resource_provider_aggregates


@dataclasses.dataclass(frozen=True)
class Lookups:
    """Ids of what the query names, and the sharing providers."""

    rc_ids: typing.Mapping[str, int]
    class_names: typing.Mapping[int, str]
    trait_ids: typing.Mapping[str, int]
    agg_ids: typing.Mapping[str, int]
    sharing_ids: frozenset
    sharing_roots: frozenset
    sharing_aggs: typing.Mapping[int, frozenset]
    has_nested: bool
    store: provider_state.Store
    id_range: typing.Tuple[typing.Optional[int], typing.Optional[int]] = (
        None, None)

    @property
    def is_flat(self):
        """Every tree is one provider and none shares: a candidate uses
        its anchor alone, so tree-level SQL filters are exact.
        """
        return not self.has_nested and not self.sharing_ids

    def link_ids(self):
        """{name: id} of the aggregates whose links are read: those named
        and, as '#<id>', those of the sharing providers."""
        found = dict(self.agg_ids)
        shared = set().union(*self.sharing_aggs.values())
        found.update(('#%d' % i, i) for i in shared - set(found.values()))
        return found


def fetch(conn, query, store) -> Lookups:
    """Every id ``query`` needs, in one round trip (see lookup_stmt).

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    with_traits, with_aggregates = kinds(query)
    return from_rows(sql.rows(
        conn, ('lookups', with_traits, with_aggregates),
        lambda: lookup_stmt(with_traits, with_aggregates),
        params(query), LOOKUP_TYPES), query, store)


def params(query):
    """The bind values of lookup_stmt."""
    return {'trait_names': sorted(query.trait_names),
            'agg_uuids': sorted(query.aggregate_uuids)}


def kinds(query):
    """(traits named, aggregates named): the shape lookup_stmt takes."""
    return bool(query.trait_names), bool(query.aggregate_uuids)


def from_rows(rows, query, store) -> Lookups:
    """The Lookups of lookup_stmt's (kind, id, text, extra) rows."""
    class_names, trait_ids, agg_ids = {}, {}, {}
    sharing_ids, sharing_roots, sharing_aggs = set(), set(), {}
    has_nested, id_range = False, (None, None)
    for kind, row_id, text, extra in rows:
        if kind == 'c':
            class_names[row_id] = text
        elif kind == 't':
            trait_ids[text] = row_id
        elif kind == 'a':
            agg_ids[text] = row_id
        elif kind == 's':
            sharing_ids.add(row_id)
            sharing_roots.add(extra or row_id)
        elif kind == 'g':
            sharing_aggs.setdefault(row_id, set()).add(extra)
        elif kind == 'n':
            has_nested = row_id is not None
        elif kind == 'r':
            id_range = (row_id, extra)
    rc_ids = _class_ids(class_names, query.resource_classes)
    missing = sorted(query.trait_names - set(trait_ids))
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))
    return Lookups(rc_ids, class_names, trait_ids,
                   agg_ids, frozenset(sharing_ids),
                   frozenset(sharing_roots),
                   {k: frozenset(v) for k, v in sharing_aggs.items()},
                   has_nested, store, id_range)


def _class_ids(class_names, wanted):
    """{name: id} of the ``wanted`` classes out of every class (one read
    serves both); ResourceClassNotFound names the first missing one,
    alphabetically, as rc_obj.fetch_ids_by_name does.
    """
    ids = {name: rc_id for rc_id, name in class_names.items()}
    missing = sorted(set(wanted) - set(ids))
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])
    return {name: ids[name] for name in wanted}


LOOKUP_TYPES = (sql.TEXT, sql.INT_OR_NONE, sql.TEXT, sql.INT_OR_NONE)


def lookup_stmt(with_traits, with_aggregates, coded=False):
    """One UNION ALL of (kind, id, text, extra) rows:

    c: every resource class (id, name); t: the traits named in the
    expanding parameter trait_names (id, name); a: the aggregates in
    agg_uuids (id, uuid); s: the sharing providers (id, root id); g:
    their aggregates (provider id, aggregate id); r: the lowest and
    highest provider id (id, extra; NULL without providers); n: one
    provider with a parent, if any (id). ``coded``: each kind as its
    code (KINDS) instead of its letter.
    """
    rc, trait = models.resource_classes, models.traits
    agg = models.placement_aggregates

    def kind(letter):
        if coded:
            return sa.literal_column(str(_code(letter)),
                                     sa.Integer).label('kind')
        return sa.literal_column("'%s'" % letter).label('kind')

    # Typed NULLs: PostgreSQL types a column of a UNION from its arms,
    # and bare NULLs on both sides of an arm would make it text.
    no_text, no_id = sa.cast(sa.null(), sa.String), sa.cast(sa.null(),
                                                            sa.Integer)
    # The sharing trait's id as a scalar subquery, its providers' roots
    # as a correlated one: PostgreSQL plans these arms in a third of the
    # time of the same rows as three-way joins.
    sharing_trait = (sa.select(trait.c.id)
                     .where(trait.c.name == SHARING_TRAIT)
                     .scalar_subquery())
    sharing_root = (sa.select(_RP.c.root_provider_id)
                    .where(_RP.c.id == _RPT.c.resource_provider_id)
                    .scalar_subquery())
    arms = [sa.select(kind('c'), rc.c.id, rc.c.name, no_id)]
    if with_traits:
        arms.append(sa.select(kind('t'), trait.c.id, trait.c.name, no_id)
                    .where(trait.c.name.in_(
                        sa.bindparam('trait_names', expanding=True))))
    if with_aggregates:
        arms.append(sa.select(kind('a'), agg.c.id, agg.c.uuid, no_id)
                    .where(agg.c.uuid.in_(
                        sa.bindparam('agg_uuids', expanding=True))))
    arms.append(
        sa.select(kind('s'), _RPT.c.resource_provider_id, no_text,
                  sharing_root)
        .where(_RPT.c.trait_id == sharing_trait))
    arms.append(
        sa.select(kind('g'), _RPA.c.resource_provider_id, no_text,
                  _RPA.c.aggregate_id)
        .select_from(_RPA.join(_RPT, _RPT.c.resource_provider_id
                               == _RPA.c.resource_provider_id))
        .where(_RPT.c.trait_id == sharing_trait))
    arms.append(sa.select(kind('r'), sa.func.min(_RP.c.id), no_text,
                          sa.func.max(_RP.c.id)))
    arms.append(sa.select(
        kind('n'),
        sa.select(_RP.c.id).where(_RP.c.parent_provider_id.isnot(None))
        .limit(1).scalar_subquery(), no_text, no_id))
    return sa.union_all(*arms)


def _code(letter):
    return -1 - KINDS.index(letter)


def with_state_stmt(state, with_traits, with_aggregates, width):
    """The rows of ``state`` (a UNION ALL of ``width`` columns whose third
    is never negative) and the lookups', in one statement:

    <state> UNION ALL
    SELECT l.id, l.text, l.kind, l.extra[, NULL] FROM (<lookup_stmt,
    kinds coded>) AS l
    """
    kind, row_id, text, extra = lookup_stmt(
        with_traits, with_aggregates, coded=True).subquery('l').c
    columns = [row_id, text, kind, extra]
    columns += [sa.cast(sa.null(), sa.Integer)] * (width - len(columns))
    return sa.union_all(*state.selects, sa.select(*columns))


def split_rows(rows):
    """(the lookup rows as (kind, id, text, extra), the others) of an
    answer of with_state_stmt."""
    lookups, others = [], []
    for row in rows:
        code = row[2]
        if code is not None and code < 0:
            lookups.append((KINDS[-1 - code], row[0], row[1], row[3]))
        else:
            others.append(row)
    return lookups, others


def hint(store, query):
    """The Lookups of ``query``'s last answer from ``store``, or None."""
    return store.hints.get(query)


def remember(store, query, lookups):
    if len(store.hints) >= MAX_HINTS:
        store.hints.clear()
    store.hints[query] = lookups
