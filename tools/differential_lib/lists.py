"""Which lists of an answer have an order the contract holds, and which
are compared as multisets.

The contract (issue 23) holds a list's order only where it carries
meaning: a documented order, an order clients act on, or a simple stable
order upstream always gives, whatever its database's plan or its Python
hash seed. Every other list is compared as a multiset: the same items,
each as a JSON value, as often, in any order. ``LISTS`` names every list
of the API, by method, route and path inside the body; a list it does not
name is compared in order (so a new list is strict until declared).

A path is a dotted walk from the body's top: a member name, ``*`` for
every member of an object, ``[]`` for every item of a list, e.g.
``provider_summaries.*.traits`` or ``allocation_requests[].mappings.*``.
Stdlib only: loaded on its own by the unit tests and the doc page.
"""
import collections
import re

ORDERED = 'ordered'
MULTISET = 'multiset'

ListRule = collections.namedtuple(
    'ListRule', 'methods route path order ours upstream')

# route: the URL path with {name} for a path segment. ours: the order we
# give; upstream: the order upstream gives (on MariaDB / PostgreSQL).
LISTS = (
    ListRule('GET', '/', 'versions', ORDERED, 'one item', 'one item'),
    ListRule('GET', '/', 'versions[].links', ORDERED, 'one item',
             'one item'),
    ListRule('*', '*', 'errors', ORDERED, 'one item', 'one item'),
    ListRule('GET', '/resource_providers', 'resource_providers',
             MULTISET, 'by provider id (creation order)',
             'by id on MariaDB; on PostgreSQL as its plan reads the table '
             '(heap order, or as a hash join returns the matches)'),
    ListRule('*', '*', 'links', ORDERED,
             "a provider's: self, inventories, usages, aggregates, traits, "
             "allocations (those of the version); a class's: self",
             'the same, always'),
    ListRule('GET', '/resource_providers', 'resource_providers[].links',
             ORDERED, 'as above', 'the same, always'),
    ListRule('GET', '/resource_classes', 'resource_classes', MULTISET,
             'by class id (standard classes in library order, then custom '
             'ones in creation order)',
             'by id on MariaDB; in heap order on PostgreSQL (a renamed '
             'class moves last)'),
    ListRule('GET', '/resource_classes', 'resource_classes[].links',
             ORDERED, 'self', 'self'),
    ListRule('GET', '/traits', 'traits', MULTISET,
             'by trait id',
             'on MariaDB by id, by name with a name filter, by the first '
             'provider having each trait with associated=true; in heap '
             'order on PostgreSQL'),
    ListRule('GET', '/resource_providers/{uuid}/traits', 'traits',
             MULTISET, 'by trait id',
             'by trait id on MariaDB; on PostgreSQL in the order the links '
             'were written'),
    ListRule('PUT', '/resource_providers/{uuid}/traits', 'traits',
             MULTISET, 'by trait id',
             'by name on MariaDB; in heap order of the traits on '
             'PostgreSQL'),
    ListRule('GET', '/resource_providers/{uuid}/aggregates', 'aggregates',
             MULTISET, 'by aggregate id (the order first stored)',
             'the order its Python process iterated a set of them when '
             'they were stored: changes with the hash seed'),
    ListRule('PUT', '/resource_providers/{uuid}/aggregates', 'aggregates',
             ORDERED, "the request's order", "the request's order, always"),
    ListRule('GET', '/allocation_candidates', 'allocation_requests',
             MULTISET, 'the solver\'s (documented as "deterministic but '
             'undefined")', 'changes with its hash seed'),
    ListRule('GET', '/allocation_candidates',
             'allocation_requests[].allocations', ORDERED,
             'before 1.12, the provider of the first group (and class) '
             'the query names first', 'the same, whatever the seed'),
    ListRule('GET', '/allocation_candidates',
             'allocation_requests[].mappings.*', MULTISET,
             'by provider uuid', 'changes with its hash seed'),
    ListRule('GET', '/allocation_candidates', 'provider_summaries.*.traits',
             MULTISET, 'by trait id',
             'by trait id on MariaDB; on PostgreSQL in the order the links '
             'were written'),
)


def _route_re(route):
    if route == '*':
        return re.compile('.*')
    parts = [re.escape(part) for part in route.split('*')]
    pattern = '[^?]*'.join(parts)
    pattern = re.sub(r'\\\{[a-z_]+\\\}', '[^/?]+', pattern)
    return re.compile('^%s$' % pattern)


_COMPILED = [(rule, _route_re(rule.route)) for rule in LISTS]


def rules_for(method, path):
    """{list path: order} of the rules that apply to ``method path`` (the
    URL path, no query string)."""
    found = {}
    for rule, route in _COMPILED:
        if rule.methods in ('*', method) and route.match(path):
            found.setdefault(rule.path, rule.order)
    return found


def _steps(path):
    """'a[].b.*' -> ('a', '[]', 'b', '*')."""
    steps = []
    for part in path.split('.'):
        name = part.rstrip('[]')
        if name:
            steps.append(name)
        steps.extend(['[]'] * ((len(part) - len(name)) // 2))
    return tuple(steps)


def order_of(rules, at):
    """The order of the list at ``at`` (a tuple of steps from the top,
    member names and '[]') under ``rules`` (of ``rules_for``)."""
    for path, order in rules.items():
        steps = _steps(path)
        if len(steps) == len(at) and all(
                step == '*' and name != '[]' or step == name
                for step, name in zip(steps, at)):
            return order
    return ORDERED
