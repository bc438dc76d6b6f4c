"""Candidates where every tree is one provider and nothing is shared.

Then a one-group request is served by each provider on its own or not at
all: one candidate per anchor, no walk. The answer is the one the general
walk (``combine``) gives; this only skips building its indexes. Pure.
"""
from placement.solver import model

_EMPTY = frozenset()


def applies(snapshot, query):
    """True when this shortcut gives the general walk's answer."""
    return (not snapshot.has_nested and not snapshot.sharing
            and len(query.groups) == 1 and bool(query.groups[0].resources)
            and all(p.parent_id is None
                    for p in snapshot.providers.values()))


def candidate_of(snapshot, query, anchor):
    """The one Candidate of ``anchor`` as a tuple, or ()."""
    group = query.groups[0]
    inventory = snapshot.inventories.get(anchor)
    if not inventory:
        return ()
    for rc, amount in group.resources:
        inv = inventory.get(rc)
        if inv is None or not inv.fits(amount):
            return ()
    provider = snapshot.providers[anchor]
    if group.in_tree and group.in_tree != provider.uuid:
        return ()
    traits = snapshot.traits.get(anchor, _EMPTY)
    if group.traits and not group.traits.is_satisfied_by(traits):
        return ()
    if query.root_traits and not query.root_traits.is_satisfied_by(traits):
        return ()
    if group.aggregates and not group.aggregates.is_satisfied_by(
            snapshot.aggregates.get(anchor, _EMPTY)):
        return ()
    allocations = tuple(sorted((anchor, rc, amount)
                               for rc, amount in group.resources))
    return (model.Candidate(allocations, ((group.suffix, (anchor,)),)),)
