"""The order candidates come out in, and where generation stops.

depth-first: every candidate of one anchor before the next;
breadth-first: round-robin over the anchors, one candidate each.
Randomness only from the seeded ``random.Random`` the caller passes.
"""
import itertools

DEPTH_FIRST = 'depth-first'
BREADTH_FIRST = 'breadth-first'


def cap(limit, max_candidates):
    """How many candidates to generate at most; None for no cap."""
    caps = [n for n in (limit, max_candidates) if n is not None and n >= 0]
    return min(caps) if caps else None


def anchor_order(anchors, rng=None):
    """The anchors to visit, shuffled when randomizing."""
    anchors = list(anchors)
    if rng is not None:
        rng.shuffle(anchors)
    return anchors


def shuffled(items, rng):
    """``items`` (a list) in a uniformly random order, as rng.shuffle
    gives it but without a Python call per item: each item gets a
    random 64-bit key and the keys are sorted (equal keys, about one
    chance in 10**11 for 10,000 items, keep their order).
    """
    count = len(items)
    if count < 2:
        return list(items)
    keys = memoryview(rng.getrandbits(64 * count).to_bytes(
        8 * count, 'little')).cast('Q').tolist()
    return [items[i] for i in sorted(range(count), key=keys.__getitem__)]


def interleave(generators):
    """Round-robin over generators until all are exhausted."""
    active = list(generators)
    while active:
        still = []
        for gen in active:
            for item in itertools.islice(gen, 1):
                still.append(gen)
                yield item
        active = still


def stream(anchors, generator_for, strategy):
    """Candidates of all anchors in the order the strategy says."""
    if strategy == BREADTH_FIRST:
        return interleave(generator_for(anchor) for anchor in anchors)
    return itertools.chain.from_iterable(
        generator_for(anchor) for anchor in anchors)


def take_unique(candidates, count, seen, unique=False):
    """At most ``count`` (None: all) candidates not already in ``seen``;
    stops pulling from the stream as soon as it has enough.

    ``unique``: the stream cannot repeat a candidate (see solve), so
    none is hashed into ``seen``.
    """
    if count == 0:
        return []
    if unique:
        return list(itertools.islice(candidates, count))
    taken = []
    for candidate in candidates:
        if candidate in seen:
            continue
        seen.add(candidate)
        taken.append(candidate)
        if count is not None and len(taken) >= count:
            break
    return taken
