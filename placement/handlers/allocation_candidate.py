"""GET /allocation_candidates: parse, one operation, render.

parse (handlers.querystring) -> gather + solve (objects) -> render here.
"""
import functools
import random

import orjson
from oslo_log import log as logging
import webob.exc

from placement import errors
from placement import exception
from placement.handlers import querystring
from placement import microversion
from placement import observe
from placement.objects.candidates import explain as candidate_explain
from placement.objects.candidates import listing as ac_obj
from placement.objects.candidates import gc_pause
from placement.policies import allocation_candidate as policies
from placement.schemas import allocation_candidate as schema
from placement.solver import model
from placement import util
from placement import wsgi_wrapper

LOG = logging.getLogger(__name__)


def solver_options(conf):
    """[placement] options as the solver's plain SolverOptions."""
    opts = conf.placement
    rng = random.Random() if opts.randomize_allocation_candidates else None
    return model.SolverOptions(
        max_candidates=opts.max_allocation_candidates,
        strategy=opts.allocation_candidates_generation_strategy,
        rng=rng)


def _in_group_order(allocations, mappings, listing):
    """({provider: {class: amount}}, mappings) in the order upstream lists
    them, ``listing`` (querystring.listing_order): the providers of the first
    listed group first (in one group, the provider of the first listed
    class first), each provider's classes by their rank. A provider is an
    id or a shape's rank.
    """
    group_rank, class_rank = listing
    by_provider = {}
    several = False
    for rp_id, rc, amount in allocations:
        resources = by_provider.get(rp_id)
        if resources is None:
            by_provider[rp_id] = {rc: amount}
        else:
            resources[rc] = amount
            several = True
    if several:
        for rp_id, resources in by_provider.items():
            if len(resources) > 1:
                by_provider[rp_id] = dict(sorted(
                    resources.items(),
                    key=lambda item: class_rank.get(item[0], (0, 0))))
    if len(mappings) < 2:
        if len(by_provider) > 1:
            # One group: the provider of the first listed class first
            # (a compute node before the sharing provider of its disk).
            by_provider = dict(sorted(
                by_provider.items(), key=lambda item: min(
                    class_rank.get(rc, (0, 0)) for rc in item[1])))
        return by_provider, mappings
    mappings = sorted(mappings, key=lambda m: group_rank.get(m[0], 0))
    ordered = {}
    for _, ids in mappings:
        for rp_id in ids:
            if rp_id in by_provider and rp_id not in ordered:
                ordered[rp_id] = by_provider[rp_id]
    if len(ordered) < len(by_provider):
        for rp_id, resources in by_provider.items():
            ordered.setdefault(rp_id, resources)
    return ordered, mappings


def _render_request(candidate, uuids, as_dict, with_mappings, listing):
    by_provider, mappings = _in_group_order(
        candidate.allocations, candidate.mappings, listing)
    if as_dict:
        allocations = {uuids[rp_id]: {'resources': resources}
                       for rp_id, resources in by_provider.items()}
    else:
        allocations = [{'resource_provider': {'uuid': uuids[rp_id]},
                        'resources': resources}
                       for rp_id, resources in by_provider.items()]
    body = {'allocations': allocations}
    if with_mappings:
        body['mappings'] = {
            suffix: [uuids[ids[0]]] if len(ids) == 1
            else sorted([uuids[rp_id] for rp_id in ids])
            for suffix, ids in mappings}
    return body


def _summaries_text(summaries, with_traits, with_tree):
    """The JSON (text, spaced as upstream spaces it) of the
    provider_summaries entries, without the braces around them. Alike
    providers share their resources mapping and trait tuple (see the
    objects layer): the text of each is built once per answer, and an
    entry is one format.
    """
    fmt = '"%s": {"resources": %s'
    if with_traits:
        fmt += ', "traits": %s'
    if with_tree:
        fmt += ', "parent_provider_uuid": %s, "root_provider_uuid": "%s"'
    fmt += '}'
    texts, rendered = [], {}
    for summary in summaries:
        resources = rendered.get(id(summary.resources))
        if resources is None:
            resources = rendered[id(summary.resources)] = _spaced(
                orjson.dumps({rc: {'capacity': capacity, 'used': used}
                              for rc, (capacity, used)
                              in summary.resources.items()}).decode())
        values = [summary.uuid, resources]
        if with_traits:
            traits = rendered.get(id(summary.traits))
            if traits is None:
                traits = rendered[id(summary.traits)] = _spaced(
                    orjson.dumps(list(summary.traits)).decode())
            values.append(traits)
        if with_tree:
            parent = summary.parent_uuid
            values.append('null' if parent is None else '"%s"' % parent)
            values.append(summary.root_uuid)
        texts.append(fmt % tuple(values))
    return ', '.join(texts)


# Candidates or summaries encoded per orjson call: a whole answer as one
# dict tree would hold some 25 MB of dicts for 12,500 candidates, and one
# call per item would keep orjson's 4 KB starting buffer for each.
RENDER_CHUNK = 500


def _encoded_items(parts, items, render, opening):
    """Append to ``parts`` the JSON of ``items`` rendered a chunk at a
    time, inside the brackets ``opening`` and its pair.
    """
    parts.append(opening)
    for start in range(0, len(items), RENDER_CHUNK):
        if start:
            parts.append(b',')
        parts.append(orjson.dumps(
            render(items[start:start + RENDER_CHUNK]))[1:-1])
    parts.append(b']' if opening == b'[' else b'}')


def _shape_format(shape, with_mappings, listing):
    """(format string, what fills its placeholders, whether any mapping
    names several providers) of the JSON of the candidates of one
    ``shape`` (model.Alike). A placeholder is filled with the uuid of a
    rank, or, for a mapping of several providers, with their uuids in
    uuid order (a tuple of ranks; see _filled).

    The text is what _render_request gives (see _in_group_order).
    """
    by_rank, mappings = _in_group_order(
        shape.allocations, shape.mappings, listing)
    parts, order = [], []
    for rank, resources in by_rank.items():
        parts.append('"%%s":{"resources":%s}' % _percent_safe(resources))
        order.append(rank)
    text = '{"allocations":{%s}' % ','.join(parts)
    several = False
    if with_mappings:
        parts = []
        for suffix, ranks in mappings:
            parts.append('%s:["%%s"]' % _percent_safe(suffix))
            if len(ranks) == 1:
                order.append(ranks[0])
            else:
                order.append(tuple(ranks))
                several = True
        text += ',"mappings":{%s}' % ','.join(parts)
    return _spaced(text + '}'), tuple(order), several


def _spaced(text):
    """util.upstream_spacing of a str (of the same kind of JSON)."""
    return text.replace(',', ', ').replace(':', ': ')


def _filled(order, ranked):
    """The values of a shape's placeholders (see _shape_format) when
    some mapping names several providers: their uuids sorted, joined
    as the items of a JSON list (spaced as upstream spaces them).
    """
    return tuple([ranked[item] if item.__class__ is int
                  else '", "'.join(sorted(map(ranked.__getitem__, item)))
                  for item in order])


def _percent_safe(value):
    return orjson.dumps(value).decode().replace('%', '%%')


def _candidates_text(candidates, uuids, with_mappings, listing, memo):
    """The JSON (text, spaced as upstream spaces it) of the candidates in
    the dict form (1.12+), each shape's format built once; other
    candidates through _render_request. ``memo``: ({id(shape):
    _shape_format}, {id(ids): their uuids}), kept for the whole answer.
    """
    formats, ranked_of = memo
    texts = []
    # The uuids of the ranks of the last Alike's ids (an anchor's alike
    # candidates share their ids, and come one after the other unless
    # shuffled), and of every ids seen (kept alive by the candidates).
    last_ids, ranked = None, None
    for candidate in candidates:
        if type(candidate) is model.Alike:
            found = formats.get(id(candidate.shape))
            if found is None:
                found = formats[id(candidate.shape)] = _shape_format(
                    candidate.shape, with_mappings, listing)
            text, order, several = found
            if candidate.ids is not last_ids:
                last_ids = candidate.ids
                ranked = ranked_of.get(id(last_ids))
                if ranked is None:
                    ranked = ranked_of[id(last_ids)] = [
                        uuids[rp_id] for rp_id in last_ids]
            if several:
                texts.append(text % _filled(order, ranked))
            else:
                texts.append(text % tuple(map(ranked.__getitem__, order)))
            continue
        texts.append(_spaced(orjson.dumps(_render_request(
            candidate, uuids, True, with_mappings, listing)).decode()))
    return texts


def _render(result, mv, listing):
    """The response body as a list of byte strings (see RENDER_CHUNK),
    sent as they are rather than joined into one more copy.
    ``listing``: querystring.listing_order of the query.
    """
    # The microversion gates are settled once, not per candidate.
    as_dict = mv >= microversion.ALLOCATIONS_DICT
    with_mappings = mv >= microversion.MAPPINGS
    with_traits = mv >= microversion.CANDIDATES_TRAITS
    with_tree = mv >= microversion.NESTED_CANDIDATES
    uuids = result.uuids
    candidates = result.candidates
    parts = [b'{"allocation_requests":']
    spaced = []
    if as_dict:
        # The shapes (model.Alike) live as long as the candidates do.
        memo = ({}, {})
        parts.append(b'[')
        for start in range(0, len(candidates), RENDER_CHUNK):
            if start:
                parts.append(b',')
            spaced.append(len(parts))
            parts.append(', '.join(_candidates_text(
                candidates[start:start + RENDER_CHUNK], uuids,
                with_mappings, listing, memo)).encode())
        parts.append(b']')
    else:
        _encoded_items(
            parts, candidates,
            lambda chunk: [_render_request(c, uuids, False, False, listing)
                           for c in chunk], b'[')
    parts.append(b',"provider_summaries":{')
    # The summaries (kept alive by result) are the ids' owners.
    summaries = result.summaries
    for start in range(0, len(summaries), RENDER_CHUNK):
        if start:
            parts.append(b',')
        spaced.append(len(parts))
        parts.append(_summaries_text(summaries[start:start + RENDER_CHUNK],
                                     with_traits, with_tree).encode())
    parts.append(b'}}')
    # Every string here is a uuid, a class or trait name or a group
    # suffix: no ',' or ':' inside one, so spacing the bytes is exact.
    # The candidates' texts (at ``spaced``) come spaced already.
    spaced = set(spaced)
    for at in range(len(parts)):
        if at not in spaced:
            parts[at] = util.upstream_spacing(parts[at])
    return parts


def unknown_name_error(exc):
    """The 400 of an unknown class or trait (ResourceClassNotFound or
    TraitNotFound), shared with ``placement-manage allocation_candidates
    explain``.
    """
    if isinstance(exc, exception.ResourceClassNotFound):
        return util.http_error(
            webob.exc.HTTPBadRequest,
            'Invalid resource class in resources parameter: %s' % exc)
    return util.http_error(webob.exc.HTTPBadRequest, str(exc))


def _find(ctx, query, mv):
    try:
        return ac_obj.list_candidates(
            ctx, query, solver_options(ctx.config),
            summary_classes_all=mv >= microversion.SUMMARIES_ALL_CLASSES,
            with_traits=mv >= microversion.CANDIDATES_TRAITS)
    except (exception.ResourceClassNotFound,
            exception.TraitNotFound) as exc:
        raise unknown_name_error(exc)


def _log_why_empty(request_id, ctx, query, observer=None):
    """Log one INFO line saying why the answer is empty, for the operator
    who greps the request id of Nova's "No valid host", and count its
    reasons when metrics are on (``observer``, see placement.observe).
    Run after the response was sent (util.after_response), in a read
    transaction of its own (candidates.explain.why_empty). A failure here
    is logged at DEBUG and goes no further.
    """
    try:
        why = candidate_explain.why_empty(ctx, query,
                                          solver_options(ctx.config))
    except Exception:
        LOG.debug('Could not explain the empty answer of %s', request_id,
                  exc_info=True)
        return
    LOG.info('No allocation candidates for request %s: %s', request_id,
             why.summary)
    if observer is not None:
        observer.empty_reasons(kind for kind, _ in why.reasons)


@microversion.since('1.10')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_allocation_candidates(req):
    """GET /allocation_candidates."""
    ctx = util.context(req)
    ctx.authorize(policies.LIST)
    mv = util.version(req)
    params = util.validate_query(req, schema.GET_SCHEMA.at(mv))
    query = querystring.parse_candidate_query(params, mv,
                                              util.query_pairs(req))
    with gc_pause.no_cyclic_gc():
        result = _find(ctx, query, mv)
        resp = util.encoded_json_response(
            req, mv, _render(result, mv, querystring.listing_order(params)))
        observe.candidates(req.environ, bool(result.candidates))
        if not result.candidates:
            # Before the headers are ordered: it sets Content-Length again.
            util.after_response(resp, functools.partial(
                _log_why_empty, req.environ.get(errors.REQUEST_ID_KEY),
                ctx, query, observe.observer(req.environ)))
        util.order_headers(resp, util.ORDER_CACHE_FIRST)
        # Freed before the collector resumes: otherwise its next pass
        # walks every object of the answer (~0.6 ms for 250 candidates).
        del result
    return resp
