"""How many times a request shape can be claimed in a row, tree by tree.

Pure, as the rest of the solver: a Snapshot and a CandidateQuery in,
counts out. The count is the one a brute force gets by asking
GET /allocation_candidates (no randomization) for its first candidate,
claiming it, and asking again until nothing fits:

- the first candidate is the first of the first anchor (root id order)
  that has one, so the claims fill the anchors one after the other,
  each until it has no candidate left (usage only grows: an anchor that
  had none never has one again);
- on one anchor the candidates come in an order that does not depend
  on usage (ids), and a claim only makes later claims harder. So the
  candidate that is first now stays first as long as it still fits:
  it is claimed ``repeats`` times at once, then the anchor is solved
  again on the new usage. A tree costs one solve per distinct
  candidate it takes, plus one, not one per claim.

Sharing providers: their usage carries from one anchor to the next,
as the brute force's claims do, so a sharing provider's capacity is
given to the trees in the order the solver visits them, and the counts
add up to what the whole fleet takes (never more). A claim is counted
for the tree of its first provider that is not a sharing provider (the
root of the sharing provider when it has none): ``tree_of``.

First-candidate fill is not an optimal packing: on a nested tree an
earlier claim can take a NUMA node that a later claim needed whole,
where another choice would have left room for one more. The count is
what the solver's own claims reach, which is what a scheduler taking
the first candidate gets.
"""
import dataclasses
import typing

from placement.solver import model
from placement import solver
from placement.solver import single

# The order a brute force with no randomization sees: every anchor's
# candidates in id order, none capped.
FILL_OPTIONS = model.SolverOptions(max_candidates=-1,
                                   strategy='depth-first', rng=None)


@dataclasses.dataclass
class TreeFill:
    """One tree's count: claims taken and the class that ran out first
    on it (the class of the inventory that ended the last run of
    repeats; '' when nothing was claimed)."""

    count: int = 0
    short_class: str = ''


class _Usage:
    """The snapshot's inventories with the claims made so far: new
    Inventory values (the snapshot's are shared and frozen) in new
    dicts for the providers claimed from, each under a key of its own
    in ``keys`` (Snapshot.inventory_keys: equal keys, equal
    inventories)."""

    def __init__(self, snapshot):
        self.inventories = dict(snapshot.inventories)
        self.keys = dict(snapshot.inventory_keys)
        self.made = 0

    def repeats(self, candidate):
        """(times the candidate fits again in a row, (provider, class)
        that ends them)."""
        wanted = {}
        for rp_id, rc, amount in candidate.allocations:
            wanted[(rp_id, rc)] = wanted.get((rp_id, rc), 0) + amount
        best, short = None, None
        for (rp_id, rc), amount in sorted(wanted.items()):
            inv = self.inventories[rp_id][rc]
            times = max(0, inv.capacity - inv.used) // amount
            if best is None or times < best:
                best, short = times, (rp_id, rc)
        return best or 0, short

    def claim(self, candidate, times):
        """Add ``times`` the candidate's amounts to the usage."""
        for rp_id, rc, amount in candidate.allocations:
            resources = dict(self.inventories[rp_id])
            inv = resources[rc]
            resources[rc] = dataclasses.replace(
                inv, used=inv.used + amount * times)
            self.inventories[rp_id] = resources
            self.made -= 1
            self.keys[rp_id] = self.made


def tree_of(candidate, snapshot) -> int:
    """The root a claim is counted for (module docstring)."""
    providers, sharing = snapshot.providers, snapshot.sharing
    ids = sorted({rp_id for rp_id, _, _ in candidate.allocations})
    for rp_id in ids:
        if rp_id not in sharing:
            return providers[rp_id].root_id
    return providers[ids[0]].root_id


def fill(snapshot: model.Snapshot, query: model.CandidateQuery
         ) -> typing.Dict[int, TreeFill]:
    """{root id: TreeFill} of every anchor of ``snapshot`` (and of any
    root a claim is counted for): the claims of ``query`` in a row, on
    the snapshot's usage (module docstring).

    Trees no sharing provider reaches are independent, so their order
    does not matter: the lone providers among them are solved together
    when one group on one provider serves the query (solver.single),
    and alike trees (the same inventories, usage, traits and
    aggregates, provider by provider) are solved once.
    """
    counts = {anchor: TreeFill() for anchor in snapshot.anchors
              if anchor in snapshot.providers}
    usage = _Usage(snapshot)
    trees = _trees(snapshot)
    shared = _shared_roots(snapshot)
    done = _fill_lone(snapshot, query, usage, trees, shared, counts)
    alike = {} if not query.in_tree_uuids else None
    for anchor in list(counts):
        if anchor in done:
            continue
        key = None
        if alike is not None and anchor not in shared:
            key = _signature(snapshot, trees[anchor])
            found = alike.get(key)
            if found is not None:
                counts[anchor] = dataclasses.replace(found)
                continue
        _fill_tree(snapshot, query, usage, trees, anchor, counts)
        if key is not None:
            alike[key] = counts[anchor]
    return counts


def _fill_tree(snapshot, query, usage, trees, anchor, counts):
    """Claim on ``anchor`` until nothing fits."""
    while True:
        part = _sub_snapshot(snapshot, usage, trees, anchor)
        found = solver.solve(part, query, FILL_OPTIONS, count=1)
        if not found or not _take(usage, found[0], counts, snapshot):
            return


def _fill_lone(snapshot, query, usage, trees, shared, counts):
    """Fill every tree of one provider that no sharing provider reaches
    with one solve, when solver.single applies to them (one candidate
    at most each); the anchors done."""
    lone = tuple(anchor for anchor in counts
                 if len(trees[anchor]) == 1 and anchor not in shared)
    if not lone:
        return frozenset()
    inventories = snapshot.inventories
    part = dataclasses.replace(
        snapshot,
        providers={rp_id: snapshot.providers[rp_id] for rp_id in lone},
        inventories={rp_id: inventories[rp_id] for rp_id in lone
                     if rp_id in inventories},
        inventory_keys={rp_id: snapshot.inventory_keys[rp_id]
                        for rp_id in lone if rp_id in inventories},
        sharing=frozenset(), sharing_anchors={}, anchors=lone,
        has_nested=False)
    if not single.applies(part, query):
        return frozenset()
    # One candidate per provider, alike ones sharing their shape and
    # inventories: the repeats are found once per pair. No claim is
    # recorded: nothing else reads these providers.
    found = {}
    for candidate in solver.solve(part, query, FILL_OPTIONS):
        if candidate.__class__ is model.Alike:
            rp_id, shape = candidate.ids[0], candidate.shape.key
        else:
            rp_id, shape = candidate.allocations[0][0], None
        key = (shape, part.inventory_keys[rp_id])
        times = found.get(key) if shape is not None else None
        if times is None:
            times = found[key] = usage.repeats(candidate)
        if times[0]:
            counts[rp_id] = TreeFill(times[0], times[1][1])
    return frozenset(lone)


def _shared_roots(snapshot):
    """The roots whose claims may use a sharing provider, and the
    sharing providers' own."""
    found = {snapshot.providers[rp_id].root_id for rp_id in snapshot.sharing}
    for roots in snapshot.sharing_anchors.values():
        found |= roots
    return found


def _signature(snapshot, ids):
    """What the claims on a tree of no sharing provider depend on: per
    provider (in id order) its parent's position, its inventories' key
    (equal keys: equal inventories and usage), traits and aggregates."""
    position = {rp_id: n for n, rp_id in enumerate(ids)}
    providers, keys = snapshot.providers, snapshot.inventory_keys
    traits, aggregates = snapshot.traits, snapshot.aggregates
    return tuple((position.get(providers[rp_id].parent_id, -1),
                  keys.get(rp_id), traits.get(rp_id), aggregates.get(rp_id))
                 for rp_id in ids)


def _take(usage, candidate, counts, snapshot):
    """Claim ``candidate`` as many times in a row as it fits; whether
    it fitted at all."""
    times, short = usage.repeats(candidate)
    if not times:
        return False
    usage.claim(candidate, times)
    tree = counts.setdefault(tree_of(candidate, snapshot), TreeFill())
    tree.count += times
    tree.short_class = short[1]
    return True


def _trees(snapshot):
    """{root id: [provider ids of its tree, in id order]}."""
    trees = {}
    for rp_id in sorted(snapshot.providers):
        trees.setdefault(snapshot.providers[rp_id].root_id, []).append(rp_id)
    return trees


def _sub_snapshot(snapshot, usage, trees, anchor):
    """The snapshot of one anchor: its tree and the sharing providers,
    with the usage so far. Its candidates are the anchor's in the whole
    snapshot (a candidate never leaves its anchor's tree but for a
    sharing provider), and the solver indexes a tree, not the fleet."""
    ids = list(trees.get(anchor, ()))
    ids += [rp_id for rp_id in snapshot.sharing
            if snapshot.providers[rp_id].root_id != anchor]
    inventories, keys = usage.inventories, usage.keys
    stocked = [rp_id for rp_id in ids if rp_id in inventories]
    return dataclasses.replace(
        snapshot,
        providers={rp_id: snapshot.providers[rp_id] for rp_id in ids},
        inventories={rp_id: inventories[rp_id] for rp_id in stocked},
        inventory_keys={rp_id: keys[rp_id] for rp_id in stocked},
        anchors=(anchor,))
