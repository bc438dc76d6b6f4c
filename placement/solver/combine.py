"""Combining request groups for one anchor root, lazily.

A depth-first walk over *slots* (one per class of the unsuffixed group,
one per suffixed group) that prunes a partial assignment as soon as it
breaks capacity/max_unit, group_policy=isolate, same_subtree, or the
one-provider-per-tree rule of non-nested-aware versions. Pure.
"""
import dataclasses
import typing

from placement.solver import groups as groups_mod
from placement.solver import model


class Slot(typing.NamedTuple):
    """One choice in the walk: which provider serves ``resources``.

    group_index: position of the group in the query; choices: provider ids.
    (A named tuple: every anchor makes one per group.)
    """

    group_index: int
    suffix: str
    resources: typing.Tuple[typing.Tuple[str, int], ...]
    choices: typing.Sequence[int]


@dataclasses.dataclass
class _Walk:
    """Mutable state of one anchor's walk."""

    added: dict
    chosen: list
    granular_used: set
    tree_user: dict
    later: dict = dataclasses.field(default_factory=dict)


class Plan:
    """What the walk needs to know about the query, computed once."""

    def __init__(self, index, query):
        self.index = index
        self.query = query
        self.isolate = query.group_policy == 'isolate'
        self.one_per_tree = (not query.nested_aware
                             and index.snapshot.has_nested)
        self.unsuffixed = next(
            (g for g in query.groups if not g.is_granular), None)
        self.inventories = index.snapshot.inventories
        self._layout = None

    def layout(self, slots):
        """The _Layout of the walk (every anchor has the same slots)."""
        if self._layout is None:
            self._layout = _Layout(self._checkpoints(slots), slots)
        return self._layout

    def slots_for(self, anchor, per_group, rng=None):
        """The slots of one anchor, in walk order."""
        # tuple.__new__: the named tuple's own __new__ is a Python call,
        # and every anchor makes a slot per group.
        new, slot = tuple.__new__, Slot
        slots = []
        for position, group in enumerate(self.query.groups):
            matches = per_group[position][anchor]
            if group.is_granular:
                slots.append(new(slot, (position, group.suffix,
                                        group.resources,
                                        _maybe_shuffled(matches, rng))))
                continue
            for (rc, amount), choices in zip(group.resources, matches):
                slots.append(new(slot, (position, '', ((rc, amount),),
                                        _maybe_shuffled(choices, rng))))
        return slots

    def _checkpoints(self, slots):
        """{slot position: [check, ...]} run once that slot is chosen."""
        checks = {}
        last_unsuffixed = max((i for i, s in enumerate(slots)
                               if s.suffix == ''), default=None)
        if last_unsuffixed is not None and self.unsuffixed.traits:
            checks.setdefault(last_unsuffixed, []).append(
                self._unsuffixed_traits_ok)
        by_suffix = {s.suffix: i for i, s in enumerate(slots) if s.suffix}
        for suffixes in self.query.same_subtrees:
            positions = sorted(by_suffix[sfx] for sfx in suffixes)
            for n, at in enumerate(positions):
                checks.setdefault(at, []).append(_same_subtree_check(
                    self.index, tuple(positions[:n + 1]),
                    tuple(positions[n + 1:])))
        return checks

    def _unsuffixed_traits_ok(self, slots, walk):
        traits = set()
        for slot, rp_id in zip(slots, walk.chosen):
            if slot.suffix == '':
                traits |= self.index.traits_of(rp_id)
        return groups_mod.satisfies_collectively(
            self.unsuffixed.traits, traits)


def _maybe_shuffled(choices, rng):
    if rng is None:
        return choices
    choices = list(choices)
    rng.shuffle(choices)
    return choices


def _same_subtree_check(index, placed, later):
    """same_subtree as far as it can be decided once the slots at
    ``placed`` are chosen and those at ``later`` are not yet.

    The set holds when one of its providers (the top) is an ancestor-or-
    self of all of them. The top is then a common ancestor of the placed
    ones, and is either placed already or one of the later slots'
    choices: if no common ancestor of the placed ones is, no completion
    can hold, and the walk stops here. With nothing later this is the
    exact rule.
    """
    ancestors = index.ancestors

    def check(slots, walk):
        chosen = walk.chosen
        ids = {chosen[i] for i in placed}
        common = frozenset.intersection(*[ancestors(rp_id) for rp_id in ids])
        if not common.isdisjoint(ids):
            return True
        if not later:
            return False
        choices = walk.later.get(later)
        if choices is None:
            choices = walk.later[later] = frozenset().union(
                *[slots[i].choices for i in later])
        return not common.isdisjoint(choices)
    return check


class Memo:
    """Walks of anchors whose trees are alike, done once.

    Many trees of a deployment are copies of each other (the same
    hardware, the same inventories), and their walks differ only in the
    provider ids. Two anchors' walks are the same, up to renaming, when
    their slots offer the same choices at the same places once each
    provider is replaced by its rank among the anchor's choices, and the
    providers of equal rank look the same to every rule of the walk: the
    same inventories (the same key in Snapshot.inventory_keys), the same
    ancestors among the choices (same_subtree), the same tree (one per
    tree), the same traits (the unsuffixed group's). Ranks keep the id
    order, so the sorted allocations and mappings of a replayed
    candidate come out sorted.

    A walk is recorded the second time its key comes up (trees that are
    all different then cost no recording), and kept only once it ran to
    the end: a caller that stops early (limit) leaves nothing half done
    behind.
    """

    def __init__(self, plan):
        self.plan = plan
        self.walks = {}
        self.seen = set()
        self.with_ancestors = bool(plan.query.same_subtrees)
        self.with_traits = bool(plan.unsuffixed and plan.unsuffixed.traits)

    def walk(self, slots):
        """Yield the candidates of one anchor's slots (as walk_anchor)."""
        ids, key = self.signature(slots)
        shapes = self.walks.get(key)
        if shapes is not None:
            for shape in shapes:
                yield model.Alike(shape, ids)
            return
        if key not in self.seen:
            self.seen.add(key)
            yield from walk_anchor(self.plan, slots)
            return
        rank = {rp_id: n for n, rp_id in enumerate(ids)}
        found = []
        for candidate in walk_anchor(self.plan, slots):
            shape = model.Shape.of(
                tuple([(rank[rp_id], rc, amount)
                       for rp_id, rc, amount in candidate.allocations]),
                tuple([(suffix, tuple([rank[rp_id] for rp_id in rp_ids]))
                       for suffix, rp_ids in candidate.mappings]))
            found.append(shape)
            yield model.Alike(shape, ids, candidate)
        self.walks[key] = found

    def signature(self, slots):
        """(the anchor's choices in id order, the key of its walk)."""
        ids = tuple(sorted({rp_id for slot in slots
                            for rp_id in slot.choices}))
        rank = {rp_id: n for n, rp_id in enumerate(ids)}
        plan, index = self.plan, self.plan.index
        inventory_keys = index.snapshot.inventory_keys
        key = [tuple([tuple([rank[rp_id] for rp_id in slot.choices])
                      for slot in slots]),
               tuple([inventory_keys.get(rp_id) for rp_id in ids])]
        if self.with_ancestors:
            providers = index.snapshot.providers
            nearest = []
            for rp_id in ids:
                parent = providers[rp_id].parent_id
                found = rank.get(parent)
                if found is None:
                    found = (-1 if parent is None
                             else _nearest_ancestor(index, rp_id, rank))
                nearest.append(found)
            key.append(tuple(nearest))
        if plan.one_per_tree:
            roots = {}
            key.append(tuple([roots.setdefault(index.root_of(rp_id),
                                               len(roots))
                              for rp_id in ids]))
        if self.with_traits:
            key.append(tuple([index.traits_of(rp_id) for rp_id in ids]))
        return ids, tuple(key)


def _nearest_ancestor(index, rp_id, rank):
    """The rank of the closest proper ancestor of ``rp_id`` among the
    ranked providers (-1: none). These links alone give every ancestor
    set the walk intersects: ancestors(p) among the ranked ones are p and
    those of its nearest ranked ancestor.
    """
    providers = index.snapshot.providers
    node = providers[rp_id].parent_id
    while node is not None and node not in rank:
        parent = providers.get(node)
        node = parent.parent_id if parent is not None else None
    return -1 if node is None else rank[node]


def walk_anchor(plan, slots):
    """Yield every Candidate of one anchor (depth-first, lazily)."""
    layout = plan.layout(slots)
    walk = _Walk({}, [], set(), {})
    if not slots:
        yield _candidate(layout, walk)
        return
    yield from _descend(plan, slots, layout, walk, 0)


class _Layout:
    """Per slot position: the checks to run once it is chosen; and the
    mappings' shape: (suffix, slot positions) in suffix order.
    """

    def __init__(self, checks, slots):
        self.checks = [tuple(checks.get(depth, ()))
                       for depth in range(len(slots))]
        positions = {}
        for depth, slot in enumerate(slots):
            positions.setdefault(slot.suffix, []).append(depth)
        self.suffixes = tuple((suffix, tuple(positions[suffix]))
                              for suffix in sorted(positions))


def _descend(plan, slots, layout, walk, depth):
    """The candidates below ``depth``; the last slot yields directly
    rather than through one more generator per leaf.
    """
    slot = slots[depth]
    checks = layout.checks[depth]
    last = depth + 1 == len(slots)
    for rp_id in slot.choices:
        if not _place(plan, slot, rp_id, walk):
            continue
        for check in checks:
            if not check(slots, walk):
                break
        else:
            if last:
                yield _candidate(layout, walk)
            else:
                yield from _descend(plan, slots, layout, walk, depth + 1)
        _unplace(plan, slot, rp_id, walk)


def _place(plan, slot, rp_id, walk):
    """Add one choice to the walk; False (and no change) if it breaks a
    rule that can be decided now.
    """
    isolate = plan.isolate and slot.suffix
    if isolate and rp_id in walk.granular_used:
        return False
    if plan.one_per_tree:
        root = plan.index.root_of(rp_id)
        if walk.tree_user.get(root, (rp_id, 0))[0] != rp_id:
            return False
    added = walk.added
    resources = slot.resources
    if added:
        inventory = plan.inventories.get(rp_id, {})
        for rc, amount in resources:
            already = added.get((rp_id, rc), 0)
            if already and not inventory[rc].fits(amount, already):
                return False
    for rc, amount in resources:
        key = (rp_id, rc)
        added[key] = added.get(key, 0) + amount
    walk.chosen.append(rp_id)
    if isolate:
        walk.granular_used.add(rp_id)
    if plan.one_per_tree and resources:
        root = plan.index.root_of(rp_id)
        user, count = walk.tree_user.get(root, (rp_id, 0))
        walk.tree_user[root] = (rp_id, count + 1)
    return True


def _unplace(plan, slot, rp_id, walk):
    added = walk.added
    for rc, amount in slot.resources:
        key = (rp_id, rc)
        left = added[key] - amount
        if left:
            added[key] = left
        else:
            del added[key]
    walk.chosen.pop()
    if plan.isolate and slot.suffix:
        walk.granular_used.discard(rp_id)
    if plan.one_per_tree and slot.resources:
        root = plan.index.root_of(rp_id)
        user, count = walk.tree_user[root]
        if count == 1:
            del walk.tree_user[root]
        else:
            walk.tree_user[root] = (user, count - 1)


def _candidate(layout, walk):
    allocations = tuple(sorted([key + (amount,)
                                for key, amount in walk.added.items()]))
    chosen = walk.chosen
    mappings = tuple(
        (suffix, (chosen[positions[0]],)) if len(positions) == 1
        else (suffix, tuple(sorted({chosen[i] for i in positions})))
        for suffix, positions in layout.suffixes)
    return model.Candidate(allocations, mappings)
