"""Plain data shared by query parsing, the objects layer and the solver.

Frozen dataclasses and named tuples only; no behaviour beyond small pure
helpers.
"""
import dataclasses
import itertools
import typing


@dataclasses.dataclass(frozen=True)
class TraitFilter:
    """required (all of), forbidden (none of), any_of (each: one of)."""

    required: frozenset = frozenset()
    forbidden: frozenset = frozenset()
    any_of: typing.Tuple[frozenset, ...] = ()

    @property
    def names(self):
        """Every trait name the filter mentions."""
        names = set(self.required) | set(self.forbidden)
        for group in self.any_of:
            names |= group
        return frozenset(names)

    def __bool__(self):
        return bool(self.required or self.forbidden or self.any_of)

    def is_satisfied_by(self, traits):
        """True when a set of trait names meets the filter."""
        return (self.required <= traits
                and not (self.forbidden & traits)
                and all(group & traits for group in self.any_of))


@dataclasses.dataclass(frozen=True)
class AggregateFilter:
    """required: each entry is a set of which one must match (AND across
    entries); forbidden: none may match."""

    required: typing.Tuple[frozenset, ...] = ()
    forbidden: frozenset = frozenset()

    def __bool__(self):
        return bool(self.required or self.forbidden)

    def is_satisfied_by(self, aggregates):
        return (all(group & aggregates for group in self.required)
                and not (self.forbidden & aggregates))


def capacity(total, reserved, allocation_ratio):
    """Usable amount of one inventory: int((total - reserved) * ratio).

    The SQL form of the same rule is ``objects._sql.capacity_expr``.
    """
    return int((total - reserved) * allocation_ratio)


@dataclasses.dataclass(frozen=True, slots=True)
class Inventory:
    """One (provider, class) inventory as the solver needs it."""

    capacity: int
    used: int = 0
    min_unit: int = 1
    max_unit: int = 2147483647
    step_size: int = 1

    def fits(self, amount, already=0):
        """True when ``amount`` more (on top of ``already`` requested in
        this candidate) can be allocated from here.

        min_unit and step_size apply to the amount of one group; the
        merged sum is checked against capacity and max_unit only.
        """
        return (self.min_unit <= amount
                and amount % self.step_size == 0
                and already + amount <= self.max_unit
                and self.used + already + amount <= self.capacity)

    @property
    def free(self):
        return self.capacity - self.used

    def meets(self, rule, amount):
        """One rule of ``fits(amount)`` (nothing else requested here):
        'capacity', 'min_unit', 'max_unit' or 'step_size' (RULES).
        ``fits(amount)`` is true exactly when every rule is met; the
        explanation (solver.explain) reports them one at a time.
        """
        if rule == 'capacity':
            return self.used + amount <= self.capacity
        if rule == 'min_unit':
            return self.min_unit <= amount
        if rule == 'max_unit':
            return amount <= self.max_unit
        return amount % self.step_size == 0


RULES = ('capacity', 'min_unit', 'max_unit', 'step_size')


class Provider(typing.NamedTuple):
    """A node of a provider tree (ids are internal integers); a named
    tuple because a request builds one per provider in scope.
    """

    id: int
    uuid: str
    parent_id: typing.Optional[int]
    root_id: int


@dataclasses.dataclass(frozen=True)
class RequestGroup:
    """One request group. ``suffix`` '' is the unsuffixed group.

    resources: ((class name, amount), ...), possibly empty for a
    resourceless suffixed group; in_tree: a provider uuid or None.
    """

    suffix: str = ''
    resources: typing.Tuple[typing.Tuple[str, int], ...] = ()
    traits: TraitFilter = TraitFilter()
    aggregates: AggregateFilter = AggregateFilter()
    in_tree: typing.Optional[str] = None

    @property
    def is_granular(self):
        return self.suffix != ''


class NameCheck(typing.NamedTuple):
    """One step of the checks that the names of a candidates query
    exist, in the reference service's order: the root_required traits
    (suffix None), then group by group in the order the query first
    names each, its classes, then its member_of any-of sets, then its
    traits (required ones, then forbidden ones).

    kind: CLASS or TRAIT (``value`` a name: unknown is a 400), or
    AGGREGATES (``value`` a frozenset of uuids: none known, and nothing
    can match).
    """

    suffix: typing.Optional[str]
    kind: str
    value: typing.Union[str, frozenset]


CLASS, TRAIT, AGGREGATES = 'class', 'trait', 'aggregates'


@dataclasses.dataclass(frozen=True)
class CandidateQuery:
    """Everything a GET /allocation_candidates asks, version resolved.

    nested_aware is False below 1.29: a candidate may then use at most one
    provider of each tree when the deployment has nested providers.
    """

    groups: typing.Tuple[RequestGroup, ...]
    group_policy: typing.Optional[str] = None
    same_subtrees: typing.Tuple[typing.Tuple[str, ...], ...] = ()
    root_traits: TraitFilter = TraitFilter()
    limit: typing.Optional[int] = None
    nested_aware: bool = True
    # The names in the order the reference service checks that they
    # exist (NameCheck, one each); not part of the query's identity.
    name_checks: typing.Tuple['NameCheck', ...] = dataclasses.field(
        default=(), compare=False, repr=False)

    @property
    def resource_classes(self):
        return frozenset(rc for group in self.groups
                         for rc, _ in group.resources)

    @property
    def trait_names(self):
        names = set(self.root_traits.names)
        for group in self.groups:
            names |= group.traits.names
        return frozenset(names)

    @property
    def aggregate_uuids(self):
        uuids = set()
        for group in self.groups:
            uuids |= group.aggregates.forbidden
            for any_of in group.aggregates.required:
                uuids |= any_of
        return frozenset(uuids)

    @property
    def in_tree_uuids(self):
        return frozenset(group.in_tree for group in self.groups
                         if group.in_tree)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The providers a request can use, indexed by integer id.

    inventories: {provider_id: {class name: Inventory}}; traits /
    aggregates: {provider_id: frozenset of names / uuids} (those the query
    mentions suffice); sharing: ids of sharing providers;
    sharing_anchors: {sharing provider id: frozenset of root ids};
    anchors: the root ids to solve for, in order; has_nested: whether the
    deployment has any provider with a parent; inventory_keys: {provider
    id: key}, equal keys for equal inventory mappings (how the solver
    knows alike providers: the objects layer gives one key per distinct
    mapping it builds; when not given, keys are made here by value: a
    copy with other inventories passes inventory_keys=None).
    """

    providers: typing.Mapping[int, Provider]
    inventories: typing.Mapping[int, typing.Mapping[str, Inventory]]
    traits: typing.Mapping[int, frozenset] = dataclasses.field(
        default_factory=dict)
    aggregates: typing.Mapping[int, frozenset] = dataclasses.field(
        default_factory=dict)
    sharing: frozenset = frozenset()
    sharing_anchors: typing.Mapping[int, frozenset] = dataclasses.field(
        default_factory=dict)
    anchors: typing.Tuple[int, ...] = ()
    has_nested: bool = False
    inventory_keys: typing.Optional[typing.Mapping[int, int]] = None

    def __post_init__(self):
        if self.inventory_keys is None:
            object.__setattr__(self, 'inventory_keys',
                               inventory_keys_by_value(self.inventories))


def inventory_keys_by_value(inventories):
    """{provider id: key} of ``inventories`` ({id: {class: Inventory}}),
    equal keys exactly for equal mappings."""
    keys = {}
    return {rp_id: keys.setdefault(tuple(sorted(inventory.items())),
                                   len(keys) + 1)
            for rp_id, inventory in inventories.items()}


@dataclasses.dataclass(frozen=True)
class SolverOptions:
    """Operator settings as plain values.

    max_candidates: -1 for no cap; strategy: 'depth-first' or
    'breadth-first'; rng: a seeded random.Random when randomizing.
    """

    max_candidates: int = -1
    strategy: str = 'depth-first'
    rng: typing.Any = None


class Candidate(typing.NamedTuple):
    """One allocation request.

    allocations: sorted ((provider_id, class, amount), ...);
    mappings: sorted ((suffix, (provider_id, ...)), ...).

    A named tuple: built and hashed (de-duplication) for every candidate,
    at about a third of a frozen dataclass's cost.
    """

    allocations: typing.Tuple[typing.Tuple[int, str, int], ...]
    mappings: typing.Tuple[typing.Tuple[str, typing.Tuple[int, ...]], ...]

    @property
    def provider_ids(self):
        return frozenset(rp_id for rp_id, _, _ in self.allocations)

    @property
    def mapped_ids(self):
        return frozenset(rp_id for _, ids in self.mappings for rp_id in ids)

    def used_ids(self, with_mappings=True):
        """The ids of the providers it allocates from (and, with_mappings,
        those its mappings name), possibly repeated."""
        found = [rp_id for rp_id, _, _ in self.allocations]
        if with_mappings:
            for _, ids in self.mappings:
                found.extend(ids)
        return found


# Keys of shapes: unique in the process.
_SHAPE_KEYS = itertools.count(1)


class Shape(typing.NamedTuple):
    """A Candidate with each provider replaced by a rank (see Alike).

    alloc_ranks: the ranks in allocations; ranks: those and the ranks in
    mappings (each once); key: this shape's own, unique in the process
    (a renderer keeps what it made of a shape by it; comparing the
    shapes themselves would hash their nested tuples).
    """

    allocations: typing.Tuple[typing.Tuple[int, str, int], ...]
    mappings: typing.Tuple[typing.Tuple[str, typing.Tuple[int, ...]], ...]
    alloc_ranks: typing.Tuple[int, ...]
    ranks: typing.Tuple[int, ...]
    key: int = 0

    @classmethod
    def of(cls, allocations, mappings):
        alloc_ranks = tuple(sorted({rank for rank, _, _ in allocations}))
        ranks = set(alloc_ranks)
        for _, mapped in mappings:
            ranks.update(mapped)
        return cls(allocations, mappings, alloc_ranks, tuple(sorted(ranks)),
                   next(_SHAPE_KEYS))


class Alike:
    """A Candidate that is one of many copies up to the providers.

    ``shape`` (a Shape shared by the copies) is the candidate with each
    provider replaced by a rank, ``ids`` gives the provider of each rank.
    The plain Candidate is built only when asked for (allocations,
    mappings, equality, hashing): a renderer can format the shape once
    and fill in the providers, and the summaries need only the ids.
    Equal to, and hashed as, that Candidate.
    """

    __slots__ = ('shape', 'ids', '_candidate')

    def __init__(self, shape, ids, candidate=None):
        self.shape = shape
        self.ids = ids
        self._candidate = candidate

    @property
    def candidate(self):
        found = self._candidate
        if found is None:
            ids = self.ids
            found = self._candidate = Candidate(
                tuple([(ids[rank], rc, amount)
                       for rank, rc, amount in self.shape.allocations]),
                tuple([(suffix, tuple([ids[rank] for rank in ranks]))
                       for suffix, ranks in self.shape.mappings]))
        return found

    allocations = property(lambda self: self.candidate.allocations)
    mappings = property(lambda self: self.candidate.mappings)
    provider_ids = property(lambda self: self.candidate.provider_ids)
    mapped_ids = property(lambda self: self.candidate.mapped_ids)

    def used_ids(self, with_mappings=True):
        """The ids of the providers it allocates from (and, with_mappings,
        those its mappings name)."""
        shape = self.shape
        return list(map(self.ids.__getitem__,
                        shape.ranks if with_mappings else shape.alloc_ranks))

    def __eq__(self, other):
        if isinstance(other, Alike):
            other = other.candidate
        return self.candidate == other

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.candidate)

    def __iter__(self):
        return iter(self.candidate)

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return self.candidate[index]

    def __repr__(self):
        return 'Alike%r' % (tuple(self.candidate),)
