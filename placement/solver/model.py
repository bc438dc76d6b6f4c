"""Plain data shared by query parsing, the objects layer and the solver.

Frozen dataclasses only; no behaviour beyond small pure helpers.
"""
import dataclasses
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
