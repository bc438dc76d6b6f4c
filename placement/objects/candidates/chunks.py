"""Which roots a candidates request reads, chunk by chunk.

Without a cap (no limit, no max_allocation_candidates) or breadth-first,
every root is one chunk. With a cap, depth-first, roots are read in
growing id ranges until the caller has enough candidates; randomizing,
in chunks of ids drawn at random (random_chunks), so that a small limit
costs the same at any deployment size. An unsuffixed in_tree pins the
one tree. Chunks come lazily: the next is chosen only when asked for.
"""
from placement.objects.candidates import fetch
from placement.objects.candidates import plan as plan_mod
from placement.solver import order

FIRST_CHUNK = 16
CHUNK_GROWTH = 4
FIRST_CHUNK_PER_CANDIDATE = 2
IN_BATCH = 2000
# Random chunks: the first draw of ids, per candidate wanted and at
# least; at most this many draws, and never past this share of the id
# range, before the rest is read.
PROBE_PER_CANDIDATE = 4
PROBE_FIRST = 64
PROBE_ROUNDS = 4
PROBE_SHARE = .5


def chunks(conn, query, options, plan, lookups, found):
    """Yield the plan.Chunk values to read, in anchor order.

    ``found``: the caller's list of candidates so far (only its length
    is read): random draws size themselves by it.
    """
    pinned = _pinned_root(conn, query)
    cap = order.cap(query.limit, options.max_candidates)
    if pinned is not None:
        yield plan_mod.Chunk(plan_mod.LISTED, ids=(pinned,))
    elif cap is None or options.strategy == order.BREADTH_FIRST:
        yield plan_mod.EVERY_ROOT
    elif options.rng is not None:
        yield from random_chunks(conn, plan, lookups.id_range, options.rng,
                                 cap, found)
    else:
        yield from _ranges(conn, plan, lookups.id_range, cap)


def every_root_first(query, options) -> bool:
    """Whether the first chunk ``chunks`` yields is plan.EVERY_ROOT."""
    return (not _pinned_group(query)
            and (order.cap(query.limit, options.max_candidates) is None
                 or options.strategy == order.BREADTH_FIRST))


def _pinned_group(query):
    """The unsuffixed group, when it has an in_tree."""
    for group in query.groups:
        if not group.is_granular and group.in_tree:
            return group
    return None


def _pinned_root(conn, query):
    """The root of the unsuffixed group's in_tree (-1 if unknown)."""
    group = _pinned_group(query)
    if group is None:
        return None
    return fetch.fetch_pinned_root(conn, group.in_tree)


def _ranges(conn, plan, id_range, cap):
    """Ranges of roots growing CHUNK_GROWTH times, the first of enough
    roots for FIRST_CHUNK_PER_CANDIDATE candidates each."""
    low, high = id_range
    if low is None:
        return
    low -= 1
    size = max(FIRST_CHUNK, cap * FIRST_CHUNK_PER_CANDIDATE)
    while low < high:
        if size > high - low:
            # Fewer ids than ``size`` remain, so fewer roots: the rest
            # is one chunk (and the OFFSET stays within an id's range).
            yield plan_mod.Chunk(plan_mod.RANGE, low=low, high=high)
            return
        end = fetch.fetch_range_end(conn, plan, low, size)
        yield plan_mod.Chunk(plan_mod.RANGE, low=low,
                             high=high if end is None else end)
        if end is None:
            return
        low, size = end, size * CHUNK_GROWTH


def random_chunks(conn, plan, id_range, rng, cap, found):
    """Chunks of roots in a uniformly random order, without reading them
    all: ids are drawn at random, never twice, from the providers' id
    range, and a chunk of drawn ids reads only those that are viable
    roots. Every viable root is then as likely as any other to come
    next, whatever the gaps between ids, and a small limit costs the
    same at any deployment size.

    Each draw is sized from what the earlier ones gave (``found``). When
    the draws would cover much of the range, or after PROBE_ROUNDS, the
    viable roots not drawn yet are read and shuffled instead
    (shuffled_rest).
    """
    low, high = id_range
    if low is None:
        return
    span, drawn = high - low + 1, set()
    size = min(max(PROBE_FIRST, cap * PROBE_PER_CANDIDATE), IN_BATCH)
    for _ in range(PROBE_ROUNDS):
        if len(drawn) + size > span * PROBE_SHARE:
            break
        yield plan_mod.Chunk(plan_mod.LISTED,
                             ids=_draw(rng, low, span, drawn, size))
        size = _next_draw(size, len(drawn), cap - len(found), len(found))
    yield from shuffled_rest(conn, plan, rng, drawn)


def _draw(rng, low, span, drawn, size):
    """``size`` ids of [low, low + span) not in ``drawn`` (which gains
    them), uniformly at random, sorted; ``drawn`` must leave most of the
    range."""
    random, picked = rng.random, []
    while len(picked) < size:
        rp_id = low + int(random() * span)
        if rp_id not in drawn:
            drawn.add(rp_id)
            picked.append(rp_id)
    return tuple(sorted(picked))


def _next_draw(size, drawn, needed, found):
    """How many ids to draw next: enough, at the rate of candidates per
    id drawn so far, for the ``needed`` candidates, with half again to
    spare; CHUNK_GROWTH times more while none were found.
    """
    if found <= 0:
        wanted = size * CHUNK_GROWTH
    else:
        wanted = int(needed * drawn * 1.5 / found) + 1
    return min(max(wanted, PROBE_FIRST), IN_BATCH)


def shuffled_rest(conn, plan, rng, drawn):
    """Chunks of the viable roots not in ``drawn``, in random order."""
    ids = [rp_id for rp_id in fetch.fetch_viable_roots(conn, plan)
           if rp_id not in drawn]
    rng.shuffle(ids)
    start, size = 0, FIRST_CHUNK
    while start < len(ids):
        yield plan_mod.Chunk(plan_mod.LISTED,
                             ids=tuple(sorted(ids[start:start + size])))
        start, size = start + size, min(size * CHUNK_GROWTH, IN_BATCH)
