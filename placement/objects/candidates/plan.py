"""The plan of a candidates read: what the query and the looked-up ids
decide about the SQL. Pure: no I/O, no SQLAlchemy.

``Lookups`` holds the ids one statement found for the names a query
uses (statements.lookups_stmt). ``plan_for`` turns a query and its
lookups into a ``Plan``, a frozen value holding every structural choice
and every id the read statements bind. Equal plans build equal
statements, so the plan itself is the key of the statement cache
(statements.py): nothing else decides a statement's shape.

The amounts a query asks for are not in the plan: SQL filters trees by
traits and aggregates, and the solver checks capacity.
"""
import dataclasses
import typing

from placement import exception
from placement.solver import model

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'

# Which roots a statement reads (Chunk.kind), each a statement shape:
# every root; roots in an id range (low, high]; a list of root ids.
EVERY, RANGE, LISTED = 'every', 'range', 'listed'


@dataclasses.dataclass(frozen=True)
class Lookups:
    """Ids of what a query names, and the deployment's sharing providers.

    class_names: {class id: name} of every class; trait_ids, agg_ids:
    {name or uuid: id} of those named that exist; sharing_roots: the
    roots of the sharing providers; sharing_aggs: {sharing provider id:
    its aggregate ids}; id_range: the lowest and highest provider id
    (None, None without providers).
    """

    class_names: typing.Mapping[int, str]
    trait_ids: typing.Mapping[str, int]
    agg_ids: typing.Mapping[str, int]
    sharing_ids: frozenset = frozenset()
    sharing_roots: frozenset = frozenset()
    sharing_aggs: typing.Mapping[int, frozenset] = dataclasses.field(
        default_factory=dict)
    has_nested: bool = False
    id_range: typing.Tuple[typing.Optional[int], typing.Optional[int]] = (
        None, None)


class NothingMatches(Exception):
    """A query that no provider can match, found while checking its
    names: its answer is empty (see check_names)."""


def _not_found(exc, query, suffix):
    # The groups checked, whole, before the one with the unknown name.
    order = []
    for check in query.name_checks:
        if check.suffix == suffix:
            break
        if check.suffix is not None and check.suffix not in order:
            order.append(check.suffix)
    exc.groups_before = tuple(order)
    return exc


def check_names(query, known_classes, trait_ids, agg_ids) -> None:
    """Raise for the first unknown name in the reference service's order
    (query.name_checks): ResourceClassNotFound or TraitNotFound naming
    it, with ``groups_before``, the suffixes of the groups checked
    before its own (the reference service answers empty when one of
    them matches nothing: listing.py); or NothingMatches when a group's
    member_of names no aggregate that exists before that.

    A query without name_checks: the first missing class alphabetically,
    else every missing trait.
    """
    for check in query.name_checks:
        if check.kind == model.CLASS and check.value not in known_classes:
            raise _not_found(exception.ResourceClassNotFound(
                name=check.value), query, check.suffix)
        if check.kind == model.TRAIT and check.value not in trait_ids:
            raise _not_found(exception.TraitNotFound(names=check.value),
                             query, check.suffix)
        if check.kind == model.AGGREGATES and not (check.value & set(agg_ids)):
            raise NothingMatches()
    missing = sorted(query.resource_classes - known_classes)
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])
    missing = sorted(query.trait_names - set(trait_ids))
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))


def lookups_from_rows(rows, query) -> Lookups:
    """The Lookups of lookups_stmt's (kind, id, text, extra) rows.

    Raises as check_names for names that do not exist.
    """
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
    known_classes = set(class_names.values())
    if (query.resource_classes - known_classes
            or query.trait_names - set(trait_ids)):
        check_names(query, known_classes, trait_ids, agg_ids)
    return Lookups(class_names, trait_ids, agg_ids, frozenset(sharing_ids),
                   frozenset(sharing_roots),
                   {k: frozenset(v) for k, v in sharing_aggs.items()},
                   has_nested, id_range)


@dataclasses.dataclass(frozen=True)
class Plan:
    """Everything that shapes the read statements, ids included.

    flat: no provider has a parent and none shares, so a candidate uses
    its anchor alone: the tree filters below are then exact, the tree
    columns and the links are not read, and the solver skips the filters
    (solver_query). Otherwise the filters only narrow the trees, and the
    solver applies them exactly.

    root_required / root_forbidden: trait ids the root must (not) have.
    tree_traits / tree_aggregates: each an any-of set of ids that some
    provider of the tree must hold; tree_required: the single required
    trait ids among tree_traits (one grouped check when every root is
    read). forbidden_traits / forbidden_aggregates (flat only): ids no
    tree may hold. Trees are filtered only without sharing providers,
    which can serve what a tree lacks.

    sharing_ids / sharing_roots: read with every chunk; link_aggregates:
    the aggregate ids whose links are read ({name: id}, as tuples).
    """

    flat: bool
    has_nested: bool
    root_required: typing.Tuple[int, ...] = ()
    root_forbidden: typing.Tuple[int, ...] = ()
    tree_traits: typing.Tuple[typing.Tuple[int, ...], ...] = ()
    tree_required: typing.Tuple[int, ...] = ()
    tree_aggregates: typing.Tuple[typing.Tuple[int, ...], ...] = ()
    forbidden_traits: typing.Tuple[int, ...] = ()
    forbidden_aggregates: typing.Tuple[int, ...] = ()
    sharing_ids: typing.Tuple[int, ...] = ()
    sharing_roots: typing.Tuple[int, ...] = ()
    link_aggregates: typing.Tuple[typing.Tuple[str, int], ...] = ()


def plan_for(query, lookups, filtered=True) -> Plan:
    """The Plan of ``query`` over ``lookups``; unfiltered (explain): every
    provider, with its traits and the links of the named aggregates.
    """
    flat = not lookups.has_nested and not lookups.sharing_ids
    common = dict(
        has_nested=lookups.has_nested,
        sharing_ids=tuple(sorted(lookups.sharing_ids)),
        sharing_roots=tuple(sorted(lookups.sharing_roots)),
        link_aggregates=_link_aggregates(lookups))
    if not filtered:
        return Plan(flat=False, **common)
    trait_ids, agg_ids = lookups.trait_ids, lookups.agg_ids
    terms = dict(
        root_required=_ids(trait_ids, query.root_traits.required),
        root_forbidden=_ids(trait_ids, query.root_traits.forbidden))
    if not lookups.sharing_ids:
        terms.update(_tree_terms(query, trait_ids, agg_ids))
        if flat:
            terms.update(_forbidden_terms(query, trait_ids, agg_ids))
    if flat:
        common.update(link_aggregates=())
    return Plan(flat=flat, **common, **terms)


def _ids(ids_by_name, names):
    return tuple(sorted({ids_by_name[name] for name in names
                         if name in ids_by_name}))


def _tree_terms(query, trait_ids, agg_ids):
    """What some provider of each viable tree must hold, per group."""
    required, traits, aggregates = set(), set(), set()
    for group in query.groups:
        required.update(trait_ids[n] for n in group.traits.required)
        traits.update(_ids(trait_ids, names)
                      for names in group.traits.any_of)
        aggregates.update(_ids(agg_ids, names)
                          for names in group.aggregates.required)
    traits.update((trait_id,) for trait_id in required)
    return dict(tree_traits=tuple(sorted(traits)),
                tree_required=tuple(sorted(required)),
                tree_aggregates=tuple(sorted(aggregates)))


def _forbidden_terms(query, trait_ids, agg_ids):
    """Flat only: a tree's one provider serves every group, so no tree
    may hold a forbidden trait or aggregate of any group."""
    traits, aggregates = set(), set()
    for group in query.groups:
        traits.update(_ids(trait_ids, group.traits.forbidden))
        aggregates.update(_ids(agg_ids, group.aggregates.forbidden))
    return dict(forbidden_traits=tuple(sorted(traits)),
                forbidden_aggregates=tuple(sorted(aggregates)))


def _link_aggregates(lookups):
    """(name, id) of the aggregates whose links are read: those named
    and, as '#<id>', those of the sharing providers."""
    found = dict(lookups.agg_ids)
    shared = set().union(*lookups.sharing_aggs.values())
    found.update(('#%d' % i, i) for i in shared - set(found.values()))
    return tuple(sorted(found.items()))


def solver_query(query, plan):
    """The query the solver gets: without its trait, aggregate and root
    filters when the plan is flat (SQL applied them exactly)."""
    if not plan.flat:
        return query
    groups = tuple(dataclasses.replace(
        group, traits=model.TraitFilter(),
        aggregates=model.AggregateFilter()) for group in query.groups)
    return dataclasses.replace(query, groups=groups,
                               root_traits=model.TraitFilter())


@dataclasses.dataclass(frozen=True)
class Chunk:
    """The roots one read covers: every root, the range (low, high] of
    ids, or the listed ids (sorted)."""

    kind: str = EVERY
    low: int = 0
    high: int = 0
    ids: typing.Tuple[int, ...] = ()

    def holds(self, root_id):
        """Whether ``root_id`` is one of the chunk's roots."""
        if self.kind == EVERY:
            return True
        if self.kind == RANGE:
            return self.low < root_id <= self.high
        return root_id in self.ids


EVERY_ROOT = Chunk()
