"""Which providers the provider_summaries of a response list.

From 1.29 every provider of every tree a returned candidate touches
(allocations or mappings); before 1.29 only the providers the returned
allocation requests use. Pure.
"""
import dataclasses
import typing

from placement.solver import model


class ProviderSummary(typing.NamedTuple):
    """One provider_summaries entry, before rendering (a named tuple: a
    large answer makes one per provider, and a frozen dataclass costs
    several times more to build).

    resources: {class name: (capacity, used)} of every class it has (a
    Resources: alike providers share one, and its key); traits: its
    trait names, in the order they are listed (alike providers share
    an equal tuple).
    """

    id: int
    uuid: str
    parent_uuid: typing.Optional[str]
    root_uuid: str
    resources: typing.Mapping[str, typing.Tuple[int, int]]
    traits: typing.Tuple[str, ...]


class Resources(dict):
    """A summary's {class name: (capacity, used)}, with ``key``: equal
    keys for equal mappings (a renderer encodes each key once)."""

    __slots__ = ('key',)

    def __init__(self, mapping, key):
        super().__init__(mapping)
        self.key = key


@dataclasses.dataclass(frozen=True)
class Scope:
    """Either whole trees (root_ids) or single providers (provider_ids)."""

    root_ids: frozenset = frozenset()
    provider_ids: frozenset = frozenset()


def scope(candidates, root_of, nested_aware):
    """The Scope of the summaries for the kept ``candidates``;
    ``root_of`` maps provider id -> root id.
    """
    used = set()
    # An anchor's alike candidates (model.Alike) share their ids (and
    # come one after the other unless shuffled): their shapes are listed
    # per ids, after the ids, and the ranks of each set of shapes
    # gathered once (see _ranks).
    by_ids, ranks_of = {}, {}
    alike, last_ids, shapes = model.Alike, None, None
    add = used.add
    for candidate in candidates:
        if candidate.__class__ is alike:
            if len(candidate.ids) == 1:  # a flat deployment's candidates
                add(candidate.ids[0])
                continue
            if candidate.ids is not last_ids:
                last_ids = candidate.ids
                shapes = by_ids.get(last_ids)
                if shapes is None:
                    shapes = by_ids[last_ids] = [last_ids]
            shapes.append(candidate.shape)
        else:
            used.update(candidate.used_ids(nested_aware))
    for shapes in by_ids.values():
        used.update(map(shapes[0].__getitem__,
                        _ranks(ranks_of, shapes[1:], nested_aware)))
    if not nested_aware:
        return Scope(provider_ids=frozenset(used))
    return Scope(root_ids=frozenset(map(root_of.__getitem__, used)))


def _ranks(ranks_of, shapes, nested_aware):
    """The ranks the ``shapes`` (model.Shape) use between them, found
    once per set of shapes in ``ranks_of``."""
    if len(shapes) == 1:
        key = shapes[0].key
    else:
        key = frozenset([shape.key for shape in shapes])
    ranks = ranks_of.get(key)
    if ranks is None:
        ranks = ranks_of[key] = set().union(*[
            shape.ranks if nested_aware else shape.alloc_ranks
            for shape in shapes])
    return ranks


def restrict_classes(summary, classes):
    """A copy listing only ``classes`` (versions before 1.27); the same
    key (every summary is restricted to the same classes)."""
    resources = summary.resources
    return summary._replace(resources=Resources({
        rc: value for rc, value in resources.items()
        if rc in classes}, resources.key))
