"""A brute-force statement of the candidate semantics (CHECKLIST §4.6a).

Deliberately naive: every combination is built, then filtered. Used only
to check the real solver on small forests.
"""
import itertools

from placement.solver import model


def _root(snapshot, rp_id):
    return snapshot.providers[rp_id].root_id


def _anchors(snapshot, rp_id):
    anchors = {_root(snapshot, rp_id)}
    if rp_id in snapshot.sharing:
        anchors |= set(snapshot.sharing_anchors.get(rp_id, ()))
    return anchors


def _ancestors(snapshot, rp_id):
    found = set()
    while rp_id is not None:
        found.add(rp_id)
        rp_id = snapshot.providers[rp_id].parent_id
    return found


def _tree_of(snapshot, rp_uuid):
    for p in snapshot.providers.values():
        if p.uuid == rp_uuid:
            return p.root_id
    return -1


def _fits(snapshot, rp_id, rc, amount):
    inv = snapshot.inventories.get(rp_id, {}).get(rc)
    return inv is not None and inv.fits(amount)


def _traits(snapshot, rp_id):
    return snapshot.traits.get(rp_id, frozenset())


def _aggs(snapshot, rp_id):
    return snapshot.aggregates.get(rp_id, frozenset())


def _granular(snapshot, group):
    found = []
    tree = _tree_of(snapshot, group.in_tree) if group.in_tree else None
    for rp_id in snapshot.providers:
        if tree is not None and _root(snapshot, rp_id) != tree:
            continue
        if not all(_fits(snapshot, rp_id, rc, n) for rc, n in group.resources):
            continue
        if not group.traits.is_satisfied_by(_traits(snapshot, rp_id)):
            continue
        if not group.aggregates.is_satisfied_by(_aggs(snapshot, rp_id)):
            continue
        for anchor in _anchors(snapshot, rp_id):
            found.append((anchor, tuple((rp_id, rc, n)
                                        for rc, n in group.resources),
                          (rp_id,)))
    return found


def _member_ok(snapshot, group, rp_id):
    flt = group.aggregates
    own, root = _aggs(snapshot, rp_id), _aggs(snapshot, _root(snapshot, rp_id))
    if flt.forbidden & (own | root):
        return False
    return (all(a & own for a in flt.required)
            or all(a & root for a in flt.required))


def _unsuffixed(snapshot, group):
    found = []
    tree = _tree_of(snapshot, group.in_tree) if group.in_tree else None
    anchors = set()
    for rp_id in snapshot.providers:
        anchors |= _anchors(snapshot, rp_id)
    for anchor in sorted(anchors):
        pools = []
        for rc, n in group.resources:
            pools.append([
                rp_id for rp_id in snapshot.providers
                if anchor in _anchors(snapshot, rp_id)
                and _fits(snapshot, rp_id, rc, n)
                and (tree is None or _root(snapshot, rp_id) == tree)
                and not (group.traits.forbidden & _traits(snapshot, rp_id))
                and _member_ok(snapshot, group, rp_id)])
        for combo in itertools.product(*pools):
            traits = set()
            for rp_id in combo:
                traits |= _traits(snapshot, rp_id)
            if not group.traits.required <= traits:
                continue
            if not all(a & traits for a in group.traits.any_of):
                continue
            found.append((anchor, tuple(
                (rp_id, rc, n) for rp_id, (rc, n) in
                zip(combo, group.resources)), tuple(sorted(set(combo)))))
    return found


def _same_subtree_ok(snapshot, providers):
    return any(all(top in _ancestors(snapshot, p) for p in providers)
               for top in providers)


def candidates(snapshot, query):
    """The set of Candidates the semantics define (no limit)."""
    per_group = []
    for group in query.groups:
        matches = (_granular(snapshot, group) if group.is_granular
                   else _unsuffixed(snapshot, group))
        if not matches:
            return set()
        per_group.append(matches)
    anchors = {m[0] for matches in per_group for m in matches}
    results = set()
    for anchor in anchors:
        if not query.root_traits.is_satisfied_by(_traits(snapshot, anchor)):
            continue
        lists = [[m for m in matches if m[0] == anchor]
                 for matches in per_group]
        for combo in itertools.product(*lists):
            candidate = _merge(snapshot, query, combo)
            if candidate is not None:
                results.add(candidate)
    return results


def _merge(snapshot, query, combo):
    by_suffix = {g.suffix: m for g, m in zip(query.groups, combo)}
    granular = [m[2][0] for g, m in zip(query.groups, combo) if g.suffix]
    if query.group_policy == 'isolate' and len(set(granular)) < len(granular):
        return None
    for suffixes in query.same_subtrees:
        if not _same_subtree_ok(
                snapshot, {by_suffix[s][2][0] for s in suffixes}):
            return None
    merged = {}
    for match in combo:
        for rp_id, rc, n in match[1]:
            merged[(rp_id, rc)] = merged.get((rp_id, rc), 0) + n
    for (rp_id, rc), n in merged.items():
        inv = snapshot.inventories[rp_id][rc]
        if inv.used + n > inv.capacity or n > inv.max_unit:
            return None
    if not query.nested_aware and snapshot.has_nested:
        used = {rp_id for rp_id, _ in merged}
        roots = [_root(snapshot, rp_id) for rp_id in used]
        if len(set(roots)) < len(roots):
            return None
    return model.Candidate(
        tuple(sorted((p, rc, n) for (p, rc), n in merged.items())),
        tuple(sorted((s, m[2]) for s, m in by_suffix.items())))
