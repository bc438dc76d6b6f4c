"""A per-process memory of the inventories and traits of each provider.

Invariants:

- An entry is read under the key (provider id, uuid, generation). Every
  write of a provider's inventories or traits bumps its generation in
  the same transaction, so an entry whose key matches the provider's
  current row holds its current inventories and traits.
- The generation in a key is read no later than the rows loaded under
  it (fetch reads the providers, then loads what is missing), so a
  concurrent write can at worst label newer rows with an older
  generation (reloaded next time), never the reverse.
- Nothing else is kept: usage, parents, roots and aggregates change
  without a generation bump (deleting allocations, re-parenting) and
  are read by every request.
- Only where ids are never reused (MariaDB/MySQL, PostgreSQL): SQLite
  can give a deleted provider's id to the next one, with generation 0
  again. Elsewhere the store is disabled and keeps nothing.
- One store per engine, shared by its threads: entries are immutable
  tuples replaced whole, so no lock is needed; two threads missing the
  same key both load it, and either result is right. It starts over
  rather than grow past MAX_ENTRIES.

- Equal inventories are one shared tuple with one key (Entry
  .inventories_key, a small int from a process-wide count, never
  reused): the objects layer and the solver tell alike providers by it,
  not by object identity. Equal trait sets are one shared frozenset,
  its own key (its hash is kept by the set, and the shared instance
  makes the comparison an identity check).

Why: a request reads, for every provider in scope, one row (id, uuid,
generation) instead of its inventory and trait rows, three to ten more.
"""
import itertools
import typing
import weakref

import sqlalchemy as sa

from placement.db import backend
from placement.db import in_lists
from placement.db import models

MAX_ENTRIES = 200000
IN_BATCH = 2000

_INV = models.inventories
_RPT = models.resource_provider_traits
_TRAITS = models.traits

_STORES = weakref.WeakKeyDictionary()
# Keys of distinct inventories: unique in the process, so that entries
# loaded before a store started over never share a key with later ones.
_KEYS = itertools.count(1)


class Entry(typing.NamedTuple):
    """One provider at one generation.

    inventories: ((class id, total, reserved, allocation_ratio, min_unit,
    max_unit, step_size), ...) in class id order; traits: frozenset of
    trait names; listed_traits: the same names in trait id order (as
    provider_summaries lists them); inventories_key: equal for equal
    inventories (see the module's invariants), 0 for none.
    """

    uuid: str
    generation: int
    inventories: tuple
    traits: frozenset
    listed_traits: tuple = ()
    inventories_key: int = 0


class Store:
    """{provider id: Entry}; equal inventory rows and trait sets are one
    shared instance, and equal inventories one key (so alike providers
    share their values and are known alike)."""

    def __init__(self, enabled=True):
        self.enabled = enabled
        self.entries = {}
        self.interned = {}
        self.keys = {}

    def interner(self):
        """(a function of a value to the one shared instance equal to it,
        a function of an inventories tuple to its key): the store's, or
        when disabled (a disabled store must not grow) one load's own,
        so that alike providers are still known alike within a request
        (without it each SQLite candidate was solved and rendered on
        its own; nested two FPGA groups, 3,000 candidates, 546 M
        instructions a request, 290 M shared)."""
        interned = self.interned if self.enabled else {}
        keys = self.keys if self.enabled else {}
        setdefault = interned.setdefault

        def key_of(inventories):
            found = keys.get(inventories)
            if found is None:
                found = keys[inventories] = next(_KEYS)
            return found
        return (lambda value: setdefault(value, value)), key_of

    def fresh(self, keys):
        """({id: Entry} of the ``keys`` ((id, uuid, generation, ...),
        ...) remembered, [the keys that are not])."""
        found, missing = {}, []
        entries = self.entries
        for key in keys:
            entry = entries.get(key[0])
            if (entry is not None and entry.generation == key[2]
                    and entry.uuid == key[1]):
                found[key[0]] = entry
            else:
                missing.append(key)
        return found, missing

    def keep(self, loaded):
        """Remember ``loaded`` ({id: Entry})."""
        if not self.enabled:
            return
        if len(self.entries) + len(loaded) > MAX_ENTRIES:
            self.entries = {}
            self.interned = {}
            self.keys = {}
        self.entries.update(loaded)


def store_for(engine):
    """The Store of the providers ``engine`` reads (a SQLAlchemy Engine:
    a Database's reader)."""
    store = _STORES.get(engine)
    if store is None:
        store = _STORES[engine] = Store(backend.never_reuses_ids(engine))
    return store


def entries(conn, store, keys):
    """{provider id: Entry} of ``keys`` ((id, uuid, generation, ...), ...:
    rows whose first three fields are those), loading what ``store``
    lacks: two statements per IN_BATCH providers missing.
    """
    found, missing = store.fresh(keys)
    if missing:
        loaded = _load(conn, store, missing)
        store.keep(loaded)
        found.update(loaded)
    return found


def inventories_stmt():
    """SELECT resource_provider_id, resource_class_id, total, reserved,
    allocation_ratio, min_unit, max_unit, step_size FROM inventories
    WHERE resource_provider_id IN (:ids)"""
    return (sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                      _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio,
                      _INV.c.min_unit, _INV.c.max_unit, _INV.c.step_size)
            .where(in_lists.any_of(_INV.c.resource_provider_id, 'ids')))


def traits_stmt():
    """SELECT l.resource_provider_id, t.name
    FROM resource_provider_traits l JOIN traits t ON t.id = l.trait_id
    WHERE l.resource_provider_id IN (:ids) ORDER BY l.trait_id"""
    return (sa.select(_RPT.c.resource_provider_id, _TRAITS.c.name)
            .select_from(_RPT.join(_TRAITS, _TRAITS.c.id == _RPT.c.trait_id))
            .where(in_lists.any_of(_RPT.c.resource_provider_id, 'ids'))
            .order_by(_RPT.c.trait_id))


_INVENTORIES, _TRAITS_OF = inventories_stmt(), traits_stmt()


def _load(conn, store, keys):
    intern, key_of = store.interner()
    inventories, traits = {}, {}
    for start in range(0, len(keys), IN_BATCH):
        ids = {'ids': sorted(key[0] for key in keys[start:start + IN_BATCH])}
        for rp_id, *values in conn.execute(_INVENTORIES, ids):
            inventories.setdefault(rp_id, []).append(
                intern(tuple(values)))
        for rp_id, name in conn.execute(_TRAITS_OF, ids):
            traits.setdefault(rp_id, []).append(name)
    empty, loaded = (), {}
    for key in keys:
        rows = tuple(sorted(inventories.get(key[0], empty)))
        loaded[key[0]] = Entry(
            key[1], key[2], intern(rows),
            intern(frozenset(traits.get(key[0], empty))),
            intern(tuple(traits.get(key[0], empty))),
            key_of(rows) if rows else 0)
    return loaded
