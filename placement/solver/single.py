"""Candidates where every tree is one provider and nothing is shared.

Then a one-group request is served by each provider on its own or not at
all: one candidate per anchor, no walk. The answer is the one the general
walk (``combine``) gives; this only skips building its indexes. Pure.
"""
from placement.solver import groups
from placement.solver import model

_EMPTY = frozenset()


def applies(snapshot, query):
    """True when this shortcut gives the general walk's answer."""
    return (not snapshot.has_nested and not snapshot.sharing
            and len(query.groups) == 1 and bool(query.groups[0].resources)
            and all(p.parent_id is None
                    for p in snapshot.providers.values()))


def stream(snapshot, query, anchors):
    """The candidates of ``anchors``, in their order, lazily.

    What the group asks of a provider is decided once per distinct
    inventory key and trait set (alike providers share them).
    """
    group = query.groups[0]
    resources = tuple(sorted(group.resources))
    traits_filter = group.traits if group.traits else None
    root_filter = query.root_traits if query.root_traits else None
    aggregates = group.aggregates if group.aggregates else None
    inventories, providers = snapshot.inventories, snapshot.providers
    traits_of, aggregates_of = snapshot.traits, snapshot.aggregates
    inventory_keys = snapshot.inventory_keys
    verdicts = {}
    shape = model.Shape.of(
        tuple([(0, rc, amount) for rc, amount in resources]),
        ((group.suffix, (0,)),))
    for anchor in anchors:
        inventory = inventories.get(anchor)
        if not inventory:
            continue
        traits = traits_of.get(anchor, _EMPTY)
        key = (inventory_keys[anchor], traits)
        ok = verdicts.get(key)
        if ok is None:
            ok = verdicts[key] = _serves(inventory, traits, group.resources,
                                         traits_filter, root_filter)
        if not ok:
            continue
        if group.in_tree and group.in_tree != providers[anchor].uuid:
            continue
        if aggregates is not None and not aggregates.is_satisfied_by(
                aggregates_of.get(anchor, _EMPTY)):
            continue
        yield model.Alike(shape, (anchor,))


def _serves(inventory, traits, resources, traits_filter, root_filter):
    if not groups.fits_all(inventory, resources):
        return False
    if traits_filter is not None and not traits_filter.is_satisfied_by(
            traits):
        return False
    return root_filter is None or root_filter.is_satisfied_by(traits)
