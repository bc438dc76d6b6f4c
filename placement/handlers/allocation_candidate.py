"""GET /allocation_candidates: parse, one operation, render.

parse (handlers.querystring) -> gather + solve (objects) -> render here.
"""
import functools
import operator
import random

from oslo_log import log as logging
import orjson
import webob.exc

from placement import errors
from placement import exception
from placement.handlers import json_text
from placement.handlers import querystring
from placement import microversion
from placement import observe
from placement.objects.candidates import explain as candidate_explain
from placement.objects.candidates import listing as ac_obj
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


class _ShapeText:
    """A shape's candidate encoded once (json_text.Text), and what fills
    its slots, in the order of their numbers: a rank (its provider's
    uuid, one slot) or, for a mapping of several providers, a tuple of
    ranks (their uuids sorted, one slot each, in a JSON list)."""

    __slots__ = ('text', 'fills', 'pick')

    def __init__(self, body, fills, plain_seen):
        self.text = json_text.Text(body, plain_seen)
        self.fills = fills
        # Every slot one provider, two slots or more (the common case):
        # the ids of the slots' ranks, picked in C.
        self.pick = (operator.itemgetter(*fills)
                     if len(fills) > 1 and all(
                         fill.__class__ is int for fill in fills)
                     else None)

    def fill(self, uuids, ids):
        """orjson.Fragment of the candidate whose providers are ``ids``
        (rank -> id); ``uuids``: id -> uuid."""
        if self.pick is not None:
            return self.text.fill(list(map(uuids.__getitem__,
                                           self.pick(ids))))
        values = []
        for fill in self.fills:
            if fill.__class__ is int:
                values.append(uuids[ids[fill]])
            else:
                values += sorted([uuids[ids[rank]] for rank in fill])
        return self.text.fill(values)


def _request_body(by_provider, mappings, name, as_dict, with_mappings):
    """The JSON value of one allocation request: ``by_provider`` in
    order ({provider: resources}), ``mappings`` ((suffix, providers)...),
    ``name(provider)`` its uuid (or a slot), ``name`` of a tuple of
    providers the list of a mapping of several."""
    if as_dict:
        allocations = {name(rp): {'resources': resources}
                       for rp, resources in by_provider.items()}
    else:
        allocations = [{'resource_provider': {'uuid': name(rp)},
                        'resources': resources}
                       for rp, resources in by_provider.items()]
    body = {'allocations': allocations}
    if with_mappings:
        body['mappings'] = {
            suffix: [name(rps[0])] if len(rps) == 1 else name(rps)
            for suffix, rps in mappings}
    return body


def _request_renderer(uuids, as_dict, with_mappings, listing,
                      plain_seen):
    """A function rendering one allocation request (a model.Candidate or
    model.Alike) for the version's form. ``uuids``: provider id -> uuid;
    ``plain_seen``: the answer's set of strings its texts found plain
    (json_text.Text).

    The candidates alike up to their providers share a shape
    (model.Alike): it is ordered (_in_group_order) once per answer, and
    past its first few copies encoded once (_ShapeText, kept in a
    json_text.Forms by shape.key): each copy is then that text with its
    providers' uuids filled in.
    """
    orders = {}  # shape.key -> its order
    texts = json_text.Forms()
    text_of = texts.get

    def ordered(shape):
        found = orders.get(shape.key)
        if found is None:
            found = orders[shape.key] = _in_group_order(
                shape.allocations, shape.mappings, listing)
        return found

    def shape_text(shape):
        fills = []

        def slot(ranks):
            # A rank is one uuid; a tuple of ranks, the mapping's list:
            # the slots after those of the fills before it.
            first = sum(1 if fill.__class__ is int else len(fill)
                        for fill in fills)
            fills.append(ranks)
            if ranks.__class__ is int:
                return json_text.slot(first)
            return [json_text.slot(first + at) for at in range(len(ranks))]
        return _ShapeText(_request_body(*ordered(shape), slot, as_dict,
                                        with_mappings), fills, plain_seen)

    def name(rps):
        if rps.__class__ is tuple:
            return sorted(map(uuids.__getitem__, rps))
        return uuids[rps]

    def render(candidate):
        if candidate.__class__ is not model.Alike:
            return _request_body(*_in_group_order(
                candidate.allocations, candidate.mappings, listing), name,
                as_dict, with_mappings)
        shape = candidate.shape
        text = text_of(shape.key) or texts.after_copy(
            shape.key, shape_text, shape)
        if text is not None:
            return text.fill(uuids, candidate.ids)
        ids = candidate.ids

        def by_rank(ranks):
            if ranks.__class__ is tuple:
                return name(tuple([ids[rank] for rank in ranks]))
            return uuids[ids[ranks]]
        return _request_body(*ordered(shape), by_rank, as_dict,
                             with_mappings)
    return render


def _summary_renderer(with_traits, with_tree, plain_seen):
    """A function rendering one provider summary. Alike providers share
    their resources mapping and traits (see the objects layer): past the
    first few of them, their summary is encoded once per answer
    (json_text.Text, kept in a json_text.Forms by the ids of those and
    whether the provider is a root: the summaries outlive this) and
    filled with each one's uuids (an orjson.Fragment)."""
    texts = json_text.Forms()
    text_of = texts.get
    resources_of = {}  # summary.resources.key -> its encoded value

    def body(summary, parent, root):
        resources = resources_of.get(summary.resources.key)
        if resources is None:
            resources = resources_of[summary.resources.key] = (
                orjson.Fragment(orjson.dumps({
                    rc: {'capacity': capacity, 'used': used}
                    for rc, (capacity, used) in summary.resources.items()})))
        found = {'resources': resources}
        if with_traits:
            found['traits'] = summary.traits  # a tuple: a JSON array
        if with_tree:
            found['parent_provider_uuid'] = parent
            found['root_provider_uuid'] = root
        return found

    def summary_text(summary):
        return json_text.Text(body(
            summary, None if summary.parent_uuid is None
            else json_text.slot(0), json_text.slot(1)), plain_seen)

    def render(summary):
        _, _, parent, root, resources, traits = summary
        key = (resources.key, traits, parent is None)
        text = text_of(key) or texts.after_copy(key, summary_text, summary)
        if text is None:
            return body(summary, parent, root)
        # Slot 0 the parent (none in a root's text), 1 the root.
        return text.fill((parent, root))
    return render


def _requests(render, candidates):
    """The rendered candidates: at once those that fill a shape's text
    (a string of a few hundred bytes each); in a large answer the others
    as the encoder reaches them (util.Deferred): 12,500 candidates as
    one tree of dicts would hold some 25 MB."""
    if len(candidates) <= util.EAGER_ITEMS:
        return [render(candidate) for candidate in candidates]
    alike = model.Alike
    return [render(candidate) if candidate.__class__ is alike
            else util.Deferred(render, candidate)
            for candidate in candidates]


def _render(result, mv, listing):
    """The response body. ``listing``: querystring.listing_order of the
    query."""
    plain_seen = set()
    render_request = _request_renderer(
        result.uuids, mv >= microversion.ALLOCATIONS_DICT,
        mv >= microversion.MAPPINGS, listing, plain_seen)
    render_summary = _summary_renderer(
        mv >= microversion.CANDIDATES_TRAITS,
        mv >= microversion.NESTED_CANDIDATES, plain_seen)
    return {
        'allocation_requests': _requests(render_request, result.candidates),
        'provider_summaries': {summary.uuid: render_summary(summary)
                               for summary in result.summaries},
    }


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
    result = _find(ctx, query, mv)
    resp = util.json_response(
        req, mv, _render(result, mv, querystring.listing_order(params)))
    observe.candidates(req.environ, bool(result.candidates))
    if not result.candidates:
        util.after_response(resp, functools.partial(
            _log_why_empty, req.environ.get(errors.REQUEST_ID_KEY),
            ctx, query, observe.observer(req.environ)))
    return resp
