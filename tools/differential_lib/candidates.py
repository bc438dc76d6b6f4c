"""What upstream may answer to GET /allocation_candidates: the seed rule.

Upstream's order of ``allocation_requests``, and the order of the
provider uuids inside each ``mappings`` list (1.34+), follow the string
hash seed of its Python process: the same queries on the same database
come back in another order after a restart, and in the same order again
when upstream is started twice with the same ``PYTHONHASHSEED``
(experiment of 2026-11-24: seeds 0, 0, 1, 2, 3, 4; four of the five
seeds gave four different orders of the same candidates, for trees,
nested children, sharing providers and granular groups alike). With a
``limit`` upstream keeps the first N of that order, so which N candidates
it returns depends on the seed too. No rule of upstream's can be copied
here; so these lists are judged by what upstream may answer under some
seed:

- without ``limit``: the same candidates in any order (``lists``
  declares the list a multiset, and the uuids of each mappings list too);
  the generic comparison of ``compare`` does this;
- with ``limit=N``: as many candidates as upstream gave, each one among
  those upstream gives for the same query without ``limit`` (asked for
  the purpose), and provider summaries that are upstream's unlimited
  ones cut to the providers (1.29+: the trees) of our candidates.

With ``[placement] max_allocation_candidates`` (the cap) the seed decides
which candidates upstream generates too, but along a rule (experiment of
2026-11-24, seeds 0-5, trees of one to three children, sharing
providers, cap and limit each above and below the other). A candidate
belongs to its tree (the root of its providers that do not share); the
seed orders the trees, and the candidates inside each. Depth-first,
upstream takes every candidate of one tree before the next until the cap
(so one tree at most is cut short); breadth-first, one candidate of each
tree in turn (so the trees' counts differ by one at most, unless a tree
has run out). A ``limit`` then keeps any N of those. So a capped answer is
judged against upstream's answer from a server without the cap (asked
for the purpose): our candidates must be among those, as many as
upstream gave, and fit in some set the rule can generate.

Candidates, and the rest of the document, are compared as JSON values
by the contract (``compare.canonical``): member order and whitespace are
not part of it.
"""
import collections
import json
import typing
import urllib.parse

from tools.differential_lib import compare

PATH = '/allocation_candidates'
CAP_OPTION = 'placement.max_allocation_candidates'
STRATEGY_OPTION = 'placement.allocation_candidates_generation_strategy'
SHARES = 'MISC_SHARES_VIA_AGGREGATE'


class Cap(typing.NamedTuple):
    """The generation cap upstream runs with: how many, which strategy."""

    count: int
    strategy: str = 'depth-first'


def cap_of(options):
    """The Cap of upstream's configuration options, or None."""
    count = int(options.get(CAP_OPTION, -1))
    if count < 0:
        return None
    return Cap(count, options.get(STRATEGY_OPTION, 'depth-first'))


def applies(method, uri, ours, up):
    """Whether this exchange is a candidates answer the limit or cap rule
    may judge (two 200s to GET /allocation_candidates)."""
    return (method == 'GET' and uri.split('?', 1)[0] == PATH
            and ours.status.startswith('200') and up.status.startswith('200'))


def unlimited(uri):
    """The same request without its ``limit`` parameter, or None."""
    path, _, query = uri.partition('?')
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    kept = [(key, value) for key, value in pairs if key != 'limit']
    if len(kept) == len(pairs):
        return None
    return path + '?' + urllib.parse.urlencode(kept, safe=':,!')


_RULES = compare.request_rules('GET', PATH)


def _split(doc):
    """(candidates as canonical texts, the rest of the document as one)."""
    items = doc.get('allocation_requests') or ()
    rest = dict(doc, allocation_requests=None)
    return ([compare.canonical(item, _RULES, ('allocation_requests', '[]'))
             for item in items], compare.canonical(rest, _RULES))


def _load(text):
    if text is None:
        return None
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError('not a candidates document')
    return doc


def same(ours_text, up_text, full_text=None, cap=None):
    """Whether our body is one upstream may give under some hash seed.

    ``full_text`` is upstream's answer to the query without ``limit``
    when the query had one, and without the ``cap`` (a Cap) when upstream
    runs with one.
    """
    try:
        ours, up = _load(ours_text), _load(up_text)
        full = _load(full_text)
    except ValueError:
        return False
    my_cands, my_rest = _split(ours)
    up_cands, up_rest = _split(up)
    if full is None:
        return (my_rest == up_rest
                and collections.Counter(my_cands)
                == collections.Counter(up_cands))
    full_cands, _ = _split(full)
    if len(my_cands) != len(up_cands):
        return False
    if collections.Counter(my_cands) - collections.Counter(full_cands):
        return False
    if my_rest != _split(_cut_summaries(full, ours))[1]:
        return False
    return cap is None or _fits_cap(ours, full, cap)


def _fits_cap(ours, full, cap):
    """Whether our candidates fit in a set upstream's cap may generate:
    per tree (see the module doc), how many we took of how many there
    are."""
    summaries = full.get('provider_summaries') or {}
    taken = collections.Counter(
        _tree(item, summaries) for item in
        ours.get('allocation_requests') or ())
    there = collections.Counter(
        _tree(item, summaries) for item in
        full.get('allocation_requests') or ())
    if None in taken or None in there:
        return True  # no roots shown (before 1.14): the subset rule alone
    if sum(there.values()) <= cap.count:
        return True
    if cap.strategy == 'breadth-first':
        return _fits_round_robin(taken, there, cap.count)
    # Depth-first: every tree we took from complete but one, the last.
    complete = sum(there[tree] for tree in taken)
    return any(complete - there[tree] + count <= cap.count
               for tree, count in taken.items())


def _fits_round_robin(taken, there, count):
    """One candidate of each tree in turn: ``rounds`` full rounds, then
    ``extra`` trees that still have candidates get one more."""
    rounds = 0
    while sum(min(n, rounds + 1) for n in there.values()) <= count:
        rounds += 1
    extra = count - sum(min(n, rounds) for n in there.values())
    over = [tree for tree, n in taken.items() if n > rounds]
    return (len(over) <= extra
            and all(taken[tree] <= min(there[tree], rounds + 1)
                    for tree in over))


def _tree(request, summaries):
    """The tree a candidate belongs to: the roots of its providers that
    do not share (of the sharing ones when all share); None when the
    summaries show no roots."""
    roots, shared = set(), set()
    allocations = request.get('allocations')
    if not isinstance(allocations, dict):  # before 1.12: a list
        return None
    for uuid in allocations:
        summary = summaries.get(uuid) or {}
        root = summary.get('root_provider_uuid')
        if root is None:
            return None
        sharing = SHARES in (summary.get('traits') or ())
        (shared if sharing else roots).add(root)
    return frozenset(roots or shared)


def _named(doc):
    """The uuids of the providers the candidates of ``doc`` allocate
    from."""
    named = set()
    for request in doc.get('allocation_requests') or ():
        allocations = request.get('allocations')
        if isinstance(allocations, dict):
            named.update(allocations)
        elif isinstance(allocations, list):  # before 1.12
            named.update(item['resource_provider']['uuid']
                         for item in allocations)
    return named


def _cut_summaries(full, ours):
    """Upstream's unlimited document, summaries cut to our candidates
    (their providers, or from 1.29 their trees)."""
    named = _named(ours)
    summaries = full.get('provider_summaries') or {}
    roots = {value.get('root_provider_uuid')
             for key, value in summaries.items() if key in named}
    roots.discard(None)
    kept = {key: value for key, value in summaries.items()
            if key in named or value.get('root_provider_uuid') in roots}
    return dict(full, provider_summaries=kept)
