"""Hypothesis strategies: small forests with sharing providers, and
queries over them.
"""
from hypothesis import strategies as st

from placement.solver import model

CLASSES = ('VCPU', 'MEM', 'DISK')
TRAITS = ('T1', 'T2', 'T3')
AGGS = ('agg1', 'agg2')


@st.composite
def forests(draw, flat=False):
    """Up to 8 providers in trees up to 3 deep, some sharing; ``flat``:
    every provider a root of its own and none sharing.
    """
    count = draw(st.integers(1, 8))
    providers, depth = {}, {}
    for rp_id in range(1, count + 1):
        parents = [p for p in providers if depth[p] < 2 and not flat]
        parent = draw(st.one_of(st.none(), st.sampled_from(parents))
                      if parents else st.none())
        root = rp_id if parent is None else providers[parent].root_id
        depth[rp_id] = 0 if parent is None else depth[parent] + 1
        providers[rp_id] = model.Provider(rp_id, 'u%d' % rp_id, parent, root)
    inventories, traits, aggregates = {}, {}, {}
    for rp_id in providers:
        inventory = {}
        for rc in draw(st.sets(st.sampled_from(CLASSES), max_size=2)):
            cap = draw(st.integers(1, 4))
            inventory[rc] = model.Inventory(
                capacity=cap, used=draw(st.integers(0, 1)),
                min_unit=draw(st.integers(1, 2)),
                max_unit=draw(st.integers(1, 4)),
                step_size=draw(st.integers(1, 2)))
        if inventory:
            inventories[rp_id] = inventory
        traits[rp_id] = frozenset(draw(st.sets(st.sampled_from(TRAITS),
                                               max_size=2)))
        aggregates[rp_id] = frozenset(draw(st.sets(st.sampled_from(AGGS),
                                                   max_size=1)))
    sharing = frozenset(p for p in providers
                        if providers[p].parent_id is None and not flat
                        and draw(st.booleans()) and draw(st.booleans()))
    anchors = {}
    for s in sharing:
        anchors[s] = frozenset(providers[p].root_id for p in providers
                               if aggregates[p] & aggregates[s])
    roots = tuple(sorted(p for p in providers
                         if providers[p].parent_id is None))
    return model.Snapshot(
        providers=providers, inventories=inventories, traits=traits,
        aggregates=aggregates, sharing=sharing, sharing_anchors=anchors,
        anchors=roots,
        has_nested=any(p.parent_id for p in providers.values()))


def trait_filters(draw, allow_any=True):
    required = draw(st.sets(st.sampled_from(TRAITS), max_size=1))
    forbidden = draw(st.sets(st.sampled_from(TRAITS), max_size=1)) - required
    any_of = ()
    if allow_any and draw(st.booleans()) and draw(st.booleans()):
        any_of = (frozenset(draw(st.sets(st.sampled_from(TRAITS),
                                         min_size=1, max_size=2))),)
    return model.TraitFilter(frozenset(required), frozenset(forbidden),
                             any_of)


def aggregate_filters(draw):
    if not draw(st.booleans()):
        return model.AggregateFilter()
    required = tuple(frozenset({a}) for a in draw(
        st.sets(st.sampled_from(AGGS), max_size=1)))
    forbidden = frozenset(draw(st.sets(st.sampled_from(AGGS), max_size=1)))
    return model.AggregateFilter(required, forbidden - set().union(*required))


def resources(draw, min_size):
    classes = draw(st.lists(st.sampled_from(CLASSES), min_size=min_size,
                            max_size=2, unique=True))
    return tuple((rc, draw(st.integers(1, 2))) for rc in classes)


@st.composite
def queries(draw, snapshot):
    groups = []
    uuids = sorted(p.uuid for p in snapshot.providers.values())
    if draw(st.booleans()):
        groups.append(model.RequestGroup(
            '', resources(draw, 1), trait_filters(draw),
            aggregate_filters(draw),
            draw(st.one_of(st.none(), st.sampled_from(uuids)))))
    granular = draw(st.integers(0 if groups else 1, 3))
    for n in range(granular):
        groups.append(model.RequestGroup(
            '_%d' % n, resources(draw, 0), trait_filters(draw),
            aggregate_filters(draw),
            draw(st.one_of(st.none(), st.sampled_from(uuids)))))
    suffixes = [g.suffix for g in groups if g.suffix]
    same_subtrees = ()
    resourceless = {g.suffix for g in groups
                    if g.suffix and not g.resources}
    if suffixes and (resourceless or draw(st.booleans())):
        chosen = draw(st.lists(st.sampled_from(suffixes), min_size=1,
                               unique=True))
        same_subtrees = (tuple(sorted(set(chosen) | resourceless)),)
    return model.CandidateQuery(
        groups=tuple(groups),
        group_policy=draw(st.sampled_from(('none', 'isolate'))),
        same_subtrees=same_subtrees,
        root_traits=trait_filters(draw, allow_any=False),
        nested_aware=draw(st.booleans()) or bool(same_subtrees))


@st.composite
def one_group_queries(draw, snapshot):
    """A query of one group with resources, suffixed or not."""
    uuids = sorted(p.uuid for p in snapshot.providers.values())
    group = model.RequestGroup(
        draw(st.sampled_from(('', '_0'))), resources(draw, 1),
        trait_filters(draw), aggregate_filters(draw),
        draw(st.one_of(st.none(), st.sampled_from(uuids))))
    return model.CandidateQuery(
        groups=(group,), group_policy=draw(st.sampled_from(('none',
                                                           'isolate'))),
        root_traits=trait_filters(draw, allow_any=False),
        nested_aware=draw(st.booleans()))
