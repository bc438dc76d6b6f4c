"""Which providers can serve each request group, bucketed by anchor root.

An *anchor* is the root of the tree a candidate is built around; a
sharing provider serves its own root and every root its aggregates link
it to. Pure: no SQL, no WebOb.
"""
import collections

_EMPTY = frozenset()
_NO_INVENTORY = {}


class Index:
    """Lookups derived once from a Snapshot."""

    def __init__(self, snapshot):
        self.snapshot = snapshot
        self._by_uuid = None
        self.by_class = collections.defaultdict(list)
        for rp_id in sorted(snapshot.inventories):
            for rc in snapshot.inventories[rp_id]:
                self.by_class[rc].append(rp_id)
        self._ancestors = {}

    @property
    def by_uuid(self):
        """{uuid: id}, built when first asked (only in_tree needs it)."""
        if self._by_uuid is None:
            self._by_uuid = {p.uuid: p.id
                             for p in self.snapshot.providers.values()}
        return self._by_uuid

    def root_of(self, rp_id):
        return self.snapshot.providers[rp_id].root_id

    def traits_of(self, rp_id):
        return self.snapshot.traits.get(rp_id, _EMPTY)

    def aggregates_of(self, rp_id):
        return self.snapshot.aggregates.get(rp_id, _EMPTY)

    def anchors_of(self, rp_id):
        """The roots whose candidates may use this provider."""
        root = self.root_of(rp_id)
        if rp_id in self.snapshot.sharing:
            extra = self.snapshot.sharing_anchors.get(rp_id, _EMPTY)
            return sorted({root} | set(extra))
        return (root,)

    def ancestors(self, rp_id):
        """The provider and every ancestor of it, as a frozenset."""
        found = self._ancestors.get(rp_id)
        if found is None:
            chain, node = [], rp_id
            while node is not None and node in self.snapshot.providers:
                chain.append(node)
                node = self.snapshot.providers[node].parent_id
            found = self._ancestors[rp_id] = frozenset(chain)
        return found

    def tree_root_of_uuid(self, rp_uuid):
        """Root id of the tree holding ``rp_uuid``; -1 if unknown."""
        rp_id = self.by_uuid.get(rp_uuid)
        return -1 if rp_id is None else self.root_of(rp_id)


def granular_matches(index, group):
    """{anchor root: [provider ids]} of the single providers that satisfy
    a suffixed (or resourceless) group on their own.
    """
    snapshot = index.snapshot
    if group.resources:
        pool = index.by_class.get(group.resources[0][0], ())
    else:
        pool = sorted(snapshot.providers)
    tree_root = (index.tree_root_of_uuid(group.in_tree)
                 if group.in_tree else None)
    providers, inventories = snapshot.providers, snapshot.inventories
    traits = group.traits if group.traits else None
    aggregates = group.aggregates if group.aggregates else None
    sharing = snapshot.sharing
    # Alike providers share their inventory key and trait set (see the
    # objects layer), so each verdict is reached once per distinct pair.
    inventory_keys = snapshot.inventory_keys
    verdicts = {}
    found = collections.defaultdict(list)
    for rp_id in pool:
        root = providers[rp_id].root_id
        if tree_root is not None and root != tree_root:
            continue
        inventory = inventories.get(rp_id, _NO_INVENTORY)
        rp_traits = index.traits_of(rp_id)
        key = (inventory_keys.get(rp_id), rp_traits)
        ok = verdicts.get(key)
        if ok is None:
            ok = verdicts[key] = (
                fits_all(inventory, group.resources)
                and (traits is None or traits.is_satisfied_by(rp_traits)))
        if not ok:
            continue
        if aggregates is not None and not aggregates.is_satisfied_by(
                index.aggregates_of(rp_id)):
            continue
        if rp_id in sharing:
            for anchor in index.anchors_of(rp_id):
                found[anchor].append(rp_id)
        else:
            found[root].append(rp_id)
    return {anchor: _own_tree_first(index, anchor, ids)
            for anchor, ids in found.items()}


def fits_all(inventory, resources):
    """True when one provider's ``inventory`` ({class: Inventory}) can
    give every (class, amount) of ``resources`` on its own.
    """
    for rc, amount in resources:
        inv = inventory.get(rc)
        if inv is None or not inv.fits(amount):
            return False
    return True


def _own_tree_first(index, anchor, rp_ids):
    """Providers of the anchor's own tree before sharing ones."""
    if not index.snapshot.sharing:  # then every one is of its own tree
        return rp_ids
    if all(index.root_of(rp_id) == anchor for rp_id in rp_ids):
        return rp_ids
    return sorted(rp_ids, key=lambda rp_id: index.root_of(rp_id) != anchor)


def member_of_rp_or_root(aggregate_filter, rp_aggs, root_aggs):
    """member_of of the unsuffixed group: the provider or its root must
    meet every required entry on its own; neither may be in a forbidden
    aggregate.
    """
    if aggregate_filter.forbidden & (rp_aggs | root_aggs):
        return False
    required = aggregate_filter.required
    return (all(any_of & rp_aggs for any_of in required)
            or all(any_of & root_aggs for any_of in required))


def _may_contribute(index, group, rp_id, tree_root):
    if tree_root is not None and index.root_of(rp_id) != tree_root:
        return False
    if group.traits.forbidden & index.traits_of(rp_id):
        return False
    if group.aggregates:
        root_aggs = index.aggregates_of(index.root_of(rp_id))
        return member_of_rp_or_root(
            group.aggregates, index.aggregates_of(rp_id), root_aggs)
    return True


def unsuffixed_slots(index, group):
    """{anchor root: [[provider ids for class 1], [... class 2], ...]}
    for the unsuffixed group, in the order of ``group.resources``; only
    anchors where every class has at least one provider.
    """
    tree_root = (index.tree_root_of_uuid(group.in_tree)
                 if group.in_tree else None)
    # Without in_tree, forbidden traits or member_of every provider
    # with room may contribute (_may_contribute).
    open_to_all = (tree_root is None and not group.traits.forbidden
                   and not group.aggregates)
    snapshot = index.snapshot
    providers, sharing = snapshot.providers, snapshot.sharing
    inventories, inventory_keys = snapshot.inventories, snapshot.inventory_keys
    per_class = []
    for rc, amount in group.resources:
        options = collections.defaultdict(list)
        # Alike providers share their inventory key (see the objects
        # layer): each verdict is reached once per key.
        fits = {}
        for rp_id in index.by_class.get(rc, ()):
            key = inventory_keys[rp_id]
            ok = fits.get(key)
            if ok is None:
                ok = fits[key] = inventories[rp_id][rc].fits(amount)
            if not ok or not (open_to_all or _may_contribute(
                    index, group, rp_id, tree_root)):
                continue
            if rp_id in sharing:
                for anchor in index.anchors_of(rp_id):
                    options[anchor].append(rp_id)
            else:
                options[providers[rp_id].root_id].append(rp_id)
        per_class.append(options)
    if not per_class:
        return {}
    anchors = set(per_class[0])
    for options in per_class[1:]:
        anchors &= set(options)
    return {anchor: [_own_tree_first(index, anchor, options[anchor])
                     for options in per_class]
            for anchor in anchors}


def satisfies_collectively(trait_filter, traits):
    """Required and any-of traits of the unsuffixed group, checked over
    the union of the contributing providers' traits.
    """
    return (trait_filter.required <= traits
            and all(any_of & traits for any_of in trait_filter.any_of))
