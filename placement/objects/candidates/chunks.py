"""Which roots a candidates request reads, chunk by chunk.

Without a cap (no limit, no max_allocation_candidates) or breadth-first,
every root is one chunk. With a cap, depth-first, roots are read in
growing id ranges until the caller has enough candidates; randomizing,
in chunks of ids drawn at random (random draws), so that a small limit
costs the same at any deployment size. An unsuffixed in_tree pins the
one tree.

The caller's loop asks for each chunk in turn: ``start`` gives the
Cursor of a query, and ``next_chunk(conn, plan, cursor, found)`` the
next chunk (None when every root was read) and the cursor after it,
given ``found``, the number of candidates the caller has so far. The
cursor is a frozen value: everything the next choice depends on is in
it or in the arguments.
"""
import dataclasses
import typing

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

# Cursor kinds: one chunk left (ONE); growing id ranges (RANGES); random
# draws (DRAWS); the viable roots not drawn, shuffled (REST); nothing
# left (DONE).
ONE, RANGES, DRAWS, REST, DONE = 'one', 'ranges', 'draws', 'rest', 'done'


@dataclasses.dataclass(frozen=True)
class Cursor:
    """Where a query's reading of roots is.

    kind: one of the kinds above; chunk: ONE's chunk; cap: the candidates
    wanted; low, high: RANGES' last id read and the range's end, DRAWS'
    id range; size: the next chunk's size; rounds: DRAWS made; drawn:
    the ids drawn so far; rest: REST's ids, in the order read; rng:
    the request's random.Random (DRAWS, REST).
    """

    kind: str
    chunk: typing.Optional[plan_mod.Chunk] = None
    cap: int = 0
    low: int = 0
    high: int = 0
    size: int = 0
    rounds: int = 0
    drawn: frozenset = frozenset()
    rest: typing.Tuple[int, ...] = ()
    rng: typing.Any = None


_DONE = Cursor(DONE)


def start(conn, query, options, plan, lookups) -> Cursor:
    """The Cursor before the first chunk of ``query``."""
    group = _pinned_group(query)
    if group is not None:
        pinned = fetch.fetch_pinned_root(conn, group.in_tree)
        return Cursor(ONE, plan_mod.Chunk(plan_mod.LISTED, ids=(pinned,)))
    cap = order.cap(query.limit, options.max_candidates)
    if cap is None or options.strategy == order.BREADTH_FIRST:
        return Cursor(ONE, plan_mod.EVERY_ROOT)
    low, high = lookups.id_range
    if low is None:
        return _DONE
    if options.rng is not None:
        return Cursor(DRAWS, cap=cap, low=low, high=high, rng=options.rng,
                      size=min(max(PROBE_FIRST, cap * PROBE_PER_CANDIDATE),
                               IN_BATCH))
    return Cursor(RANGES, cap=cap, low=low - 1, high=high,
                  size=max(FIRST_CHUNK, cap * FIRST_CHUNK_PER_CANDIDATE))


def next_chunk(conn, plan, cursor, found):
    """(the next plan.Chunk to read, or None when there is none; the
    Cursor after it). ``found``: the candidates the caller has so far
    (random draws size themselves by it)."""
    if cursor.kind == ONE:
        return cursor.chunk, _DONE
    if cursor.kind == RANGES:
        return _next_range(conn, plan, cursor)
    if cursor.kind == DRAWS:
        return _next_draw_chunk(conn, plan, cursor, found)
    if cursor.kind == REST:
        return _next_rest(cursor)
    return None, _DONE


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


def _next_range(conn, plan, cursor):
    """Ranges of roots growing CHUNK_GROWTH times, the first of enough
    roots for FIRST_CHUNK_PER_CANDIDATE candidates each."""
    low, high, size = cursor.low, cursor.high, cursor.size
    if low >= high:
        return None, _DONE
    if size > high - low:
        # Fewer ids than ``size`` remain, so fewer roots: the rest is one
        # chunk (and the OFFSET stays within an id's range).
        return plan_mod.Chunk(plan_mod.RANGE, low=low, high=high), _DONE
    end = fetch.fetch_range_end(conn, plan, low, size)
    if end is None:
        return plan_mod.Chunk(plan_mod.RANGE, low=low, high=high), _DONE
    return (plan_mod.Chunk(plan_mod.RANGE, low=low, high=end),
            dataclasses.replace(cursor, low=end, size=size * CHUNK_GROWTH))


def _next_draw_chunk(conn, plan, cursor, found):
    """Chunks of roots in a uniformly random order, without reading them
    all: ids are drawn at random, never twice, from the providers' id
    range, and a chunk of drawn ids reads only those that are viable
    roots. Every viable root is then as likely as any other to come
    next, whatever the gaps between ids, and a small limit costs the
    same at any deployment size.

    Each draw is sized from what the earlier ones gave (``found``). When
    the draws would cover much of the range, or after PROBE_ROUNDS, the
    viable roots not drawn yet are read and shuffled instead (REST).
    """
    size, drawn = cursor.size, cursor.drawn
    if cursor.rounds:
        size = _next_draw(size, len(drawn), cursor.cap - found, found)
    span = cursor.high - cursor.low + 1
    if (cursor.rounds >= PROBE_ROUNDS
            or len(drawn) + size > span * PROBE_SHARE):
        return _next_rest(_rest(conn, plan, cursor))
    ids = _draw(cursor.rng, cursor.low, span, drawn, size)
    return plan_mod.Chunk(plan_mod.LISTED, ids=ids), dataclasses.replace(
        cursor, size=size, rounds=cursor.rounds + 1,
        drawn=drawn.union(ids))


def _rest(conn, plan, cursor):
    """The REST Cursor of the viable roots not drawn, in random order."""
    drawn = cursor.drawn
    ids = [rp_id for rp_id in fetch.fetch_viable_roots(conn, plan)
           if rp_id not in drawn]
    cursor.rng.shuffle(ids)
    return Cursor(REST, rest=tuple(ids), size=FIRST_CHUNK, rng=cursor.rng)


def _next_rest(cursor):
    """The next chunk of REST's ids, growing CHUNK_GROWTH times."""
    rest, size = cursor.rest, cursor.size
    if not rest:
        return None, _DONE
    return (plan_mod.Chunk(plan_mod.LISTED, ids=tuple(sorted(rest[:size]))),
            dataclasses.replace(cursor, rest=rest[size:],
                                size=min(size * CHUNK_GROWTH, IN_BATCH)))


def _draw(rng, low, span, drawn, size):
    """``size`` ids of [low, low + span) not in ``drawn`` nor drawn twice,
    uniformly at random, sorted; ``drawn`` must leave most of the
    range."""
    random, picked, seen = rng.random, [], set()
    while len(picked) < size:
        rp_id = low + int(random() * span)
        if rp_id not in drawn and rp_id not in seen:
            seen.add(rp_id)
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
