"""GET /allocation_candidates: parse, one operation, render.

parse (handlers.querystring) -> gather + solve (objects) -> render here.
"""
import random

import orjson
from oslo_log import log as logging
import webob.exc

from placement import errors
from placement import exception
from placement.handlers import querystring
from placement import microversion
from placement.objects import allocation_candidate as ac_obj
from placement.objects import candidate_explain
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


def _summary_renderer(with_traits, with_tree):
    """A function of one summary to its JSON-ready dict. Summaries that
    share their resources mapping or trait set (alike providers do) share
    its rendering too, built once per answer.
    """
    rendered = {}

    def render(summary):
        resources = rendered.get(id(summary.resources))
        if resources is None:
            resources = rendered[id(summary.resources)] = {
                rc: {'capacity': capacity, 'used': used}
                for rc, (capacity, used) in summary.resources.items()}
        body = {'resources': resources}
        if with_traits:
            traits = rendered.get(id(summary.traits))
            if traits is None:
                traits = rendered[id(summary.traits)] = list(
                    summary.traits)
            body['traits'] = traits
        if with_tree:
            body['parent_provider_uuid'] = summary.parent_uuid
            body['root_provider_uuid'] = summary.root_uuid
        return body
    return render


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
    """(format string, ranks in placeholder order) of the JSON of the
    candidates of one ``shape`` (model.Alike), or None when its text
    depends on the uuids (a mapping of several providers lists them in
    uuid order).

    The text is what _render_request gives (see _in_group_order).
    """
    if with_mappings and any(len(ranks) > 1 for _, ranks in shape.mappings):
        return None
    by_rank, mappings = _in_group_order(
        shape.allocations, shape.mappings, listing)
    parts, order = [], []
    for rank, resources in by_rank.items():
        parts.append('"%%s":{"resources":%s}' % _percent_safe(resources))
        order.append(rank)
    text = '{"allocations":{%s}' % ','.join(parts)
    if with_mappings:
        parts = []
        for suffix, ranks in mappings:
            parts.append('%s:["%%s"]' % _percent_safe(suffix))
            order.append(ranks[0])
        text += ',"mappings":{%s}' % ','.join(parts)
    return text + '}', tuple(order)


def _percent_safe(value):
    return orjson.dumps(value).decode().replace('%', '%%')


def _candidates_text(candidates, uuids, with_mappings, listing):
    """The JSON (text) of the candidates in the dict form (1.12+), each
    shape's format built once; other candidates through _render_request.
    """
    formats = {}
    texts = []
    # The uuids of the ranks of the last Alike's ids (an anchor's alike
    # candidates come one after the other and share their ids).
    last_ids, ranked = None, None
    for candidate in candidates:
        if type(candidate) is model.Alike:
            found = formats.get(id(candidate.shape))
            if found is None:
                found = formats[id(candidate.shape)] = (
                    _shape_format(candidate.shape, with_mappings,
                                  listing) or False)
            if found:
                text, order = found
                if candidate.ids is not last_ids:
                    last_ids = candidate.ids
                    ranked = [uuids[rp_id] for rp_id in last_ids]
                texts.append(text % tuple(map(ranked.__getitem__, order)))
                continue
        texts.append(orjson.dumps(_render_request(
            candidate, uuids, True, with_mappings, listing)).decode())
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
    if as_dict:
        # The shapes (model.Alike) live as long as the candidates do.
        parts.append(b'[')
        for start in range(0, len(candidates), RENDER_CHUNK):
            if start:
                parts.append(b',')
            parts.append(','.join(_candidates_text(
                candidates[start:start + RENDER_CHUNK], uuids,
                with_mappings, listing)).encode())
        parts.append(b']')
    else:
        _encoded_items(
            parts, candidates,
            lambda chunk: [_render_request(c, uuids, False, False, listing)
                           for c in chunk], b'[')
    parts.append(b',"provider_summaries":')
    # The summaries (kept alive by result) are the ids' owners.
    render_summary = _summary_renderer(with_traits, with_tree)
    _encoded_items(
        parts, result.summaries,
        lambda chunk: {s.uuid: render_summary(s) for s in chunk}, b'{')
    parts.append(b'}')
    # Every string here is a uuid, a class or trait name or a group
    # suffix: no ',' or ':' inside one, so spacing the bytes is exact.
    return [util.upstream_spacing(part) for part in parts]


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


def _log_why_empty(req, ctx, query):
    """One INFO line saying why the answer is empty, for the operator who
    greps the request id of Nova's "No valid host". Computed only for an
    empty answer; a failure here never fails the request.
    """
    request_id = req.environ.get(errors.REQUEST_ID_KEY)
    try:
        why = candidate_explain.summary(ctx, query,
                                        solver_options(ctx.config))
    except Exception:
        LOG.debug('Could not explain the empty answer of %s', request_id,
                  exc_info=True)
        return
    LOG.info('No allocation candidates for request %s: %s', request_id,
             why)


@microversion.since('1.10')
@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_allocation_candidates(req):
    """GET /allocation_candidates."""
    ctx = util.context(req)
    ctx.authorize(policies.LIST)
    mv = util.version(req)
    params = util.validate_query(req, schema.GET_SCHEMA.at(mv))
    query = querystring.parse_candidate_query(params, mv)
    with ac_obj.no_cyclic_gc():
        result = _find(ctx, query, mv)
        if not result.candidates:
            _log_why_empty(req, ctx, query)
        resp = util.order_headers(util.encoded_json_response(
            req, mv, _render(result, mv, querystring.listing_order(params))),
            util.ORDER_CACHE_FIRST)
        # Freed before the collector resumes: otherwise its next pass
        # walks every object of the answer (~0.6 ms for 250 candidates).
        del result
    return resp
