"""The tree links of resource providers, checked in memory.

Pure functions over ``(id, uuid, parent_id, root_id)`` tuples; no SQL
here. The rules the stored links must obey (spec/DATABASE.md):

- every provider has a root id (never NULL);
- a provider without a parent is its own root;
- a child has the same root as its parent, and its parent exists;
- following parent links from any provider ends at a root (no cycle).

When the first three hold for every provider and there is no cycle, each
provider's stored root is the top of its chain of parents, so these
local checks are all that is needed.
"""
import typing

ROOT_MISSING = 'root_provider_missing'
ROOT_NOT_OWN_ROOT = 'root_not_own_root'
PARENT_MISSING = 'parent_missing'
PARENT_IN_OTHER_TREE = 'parent_in_other_tree'
CYCLE = 'tree_cycle'


class Link(typing.NamedTuple):
    id: int
    uuid: str
    parent_id: typing.Optional[int]
    root_id: typing.Optional[int]


class TreeProblem(typing.NamedTuple):
    """One broken link: the check's name, the provider, the facts."""

    check: str
    uuid: str
    details: dict


def _uuid_of(by_id, provider_id):
    """The uuid of ``provider_id``, or None when there is no such row."""
    link = by_id.get(provider_id)
    return link.uuid if link else None


def _link_problem(link, by_id):
    """The first broken rule of one provider's own links, or None."""
    if link.root_id is None:
        return TreeProblem(ROOT_MISSING, link.uuid, {})
    if link.parent_id is None:
        if link.root_id != link.id:
            return TreeProblem(ROOT_NOT_OWN_ROOT, link.uuid, {
                'root_provider_uuid': _uuid_of(by_id, link.root_id),
                'root_provider_id': link.root_id})
        return None
    parent = by_id.get(link.parent_id)
    if parent is None:
        return TreeProblem(PARENT_MISSING, link.uuid, {
            'parent_provider_id': link.parent_id})
    if parent.root_id is not None and parent.root_id != link.root_id:
        return TreeProblem(PARENT_IN_OTHER_TREE, link.uuid, {
            'parent_provider_uuid': parent.uuid,
            'root_provider_uuid': _uuid_of(by_id, link.root_id),
            'parent_root_provider_uuid': _uuid_of(by_id, parent.root_id)})
    return None


def _cycles(by_id):
    """Each cycle of parent links once, as a list of ids in walk order,
    starting from its smallest id.

    Every provider is walked up at most once: a walk stops at a root, a
    missing parent, or a provider an earlier walk already visited.
    """
    walked_by = {}
    cycles = []
    for start in sorted(by_id):
        path = []
        node = start
        while node in by_id and node not in walked_by:
            walked_by[node] = start
            path.append(node)
            node = by_id[node].parent_id
        if node in by_id and walked_by[node] == start:
            cycle = path[path.index(node):]
            first = cycle.index(min(cycle))
            cycles.append(cycle[first:] + cycle[:first])
    return cycles


def find_problems(links: typing.Iterable[Link]) -> typing.List[TreeProblem]:
    """Every broken link among ``links`` (all providers), in id order,
    then one problem per cycle (reported on its smallest id)."""
    by_id = {link.id: link for link in links}
    problems = []
    for provider_id in sorted(by_id):
        problem = _link_problem(by_id[provider_id], by_id)
        if problem is not None:
            problems.append(problem)
    for cycle in _cycles(by_id):
        problems.append(TreeProblem(CYCLE, by_id[cycle[0]].uuid, {
            'cycle': [by_id[node].uuid for node in cycle]}))
    return problems
