"""A per-process memory of what rarely changes about each provider.

GET /allocation_candidates reads, for every provider it may use, the
provider's inventories and (for the summaries) every trait it has. Both
change only in a write that also bumps the provider's generation (every
inventory and trait write does, in the same transaction), so they can be
remembered under the key (id, uuid, generation): a request reads the
generation of the providers in scope anyway, and reloads only those whose
key it has not seen. Usage, tree links and aggregates are not kept here:
allocation deletions and re-parenting do not bump the generation.

Only on MySQL/MariaDB and PostgreSQL, whose ids are never reused; SQLite
can hand a deleted provider's id to the next one. One store per Database
(a process may serve several), shared by its threads: entries are
immutable tuples replaced whole, so no lock is needed; two threads
missing the same key both load it, and either result is right.
"""
import typing
import weakref

import sqlalchemy as sa

from placement.db import models
from placement.objects import _sql

# Beyond this many providers the store starts over rather than grow.
MAX_ENTRIES = 200000
IN_BATCH = 2000
CACHING_DIALECTS = ('mysql', 'postgresql')

_INV = models.inventories
_RPT = models.resource_provider_traits
_TRAITS = models.traits

_STORES = weakref.WeakKeyDictionary()


class Entry(typing.NamedTuple):
    """What is remembered of one provider at one generation.

    inventories: ((class id, total, reserved, allocation_ratio, min_unit,
    max_unit, step_size), ...); traits: frozenset of trait names;
    listed_traits: the same names in trait id order, as upstream lists
    them in provider_summaries.
    """

    uuid: str
    generation: int
    inventories: tuple
    traits: frozenset
    listed_traits: tuple = ()


class Store:
    """{provider id: Entry}, with equal values shared between entries;
    and ``hints``, candidate_lookups' per query (checked at each use,
    so kept whatever ``enabled`` says).
    """

    def __init__(self, enabled=True):
        self.enabled = enabled
        self.entries = {}
        self._interned = {}
        self.hints = {}

    def intern(self, value):
        """One shared instance per distinct inventory row / trait set
        (none kept by a disabled store, which must not grow).
        """
        if not self.enabled:
            return value
        return self._interned.setdefault(value, value)

    def fresh(self, keys):
        """The entries of ``keys`` ((id, uuid, generation, ...), ...) that
        are remembered; the keys that are not, as a list.
        """
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
        if not self.enabled:
            return
        if len(self.entries) + len(loaded) > MAX_ENTRIES:
            self.entries = {}
            self._interned = {}
        self.entries.update(loaded)


def store_for(db):
    """The Store of ``db`` (a placement.db.api.Database)."""
    store = _STORES.get(db)
    if store is None:
        store = _STORES[db] = Store(db.dialect in CACHING_DIALECTS)
    return store


def entries(conn, store, keys):
    """{provider id: Entry} for ``keys`` ((id, uuid, generation, ...),
    ...: rows whose first three fields are those; more are ignored),
    loading what the store lacks in two queries per batch.

    The generation in each key must have been read no later than the rows
    loaded here, so that a concurrent write at worst labels newer rows
    with an older generation (reloaded next time), never the reverse.
    """
    found, missing = store.fresh(keys)
    if missing:
        loaded = _load(conn, store, missing)
        store.keep(loaded)
        found.update(loaded)
    return found


def _traits_order(dialect):
    """A provider's traits as upstream lists them: by trait id on
    MariaDB, in the order the links were written on PostgreSQL (where its
    plan reads them front to back)."""
    if dialect in _sql.PHYSICAL_ORDER_DIALECTS:
        return _sql.physical_order(_RPT)
    return _RPT.c.trait_id


def _load(conn, store, keys):
    inventories, traits = {}, {}
    for start in range(0, len(keys), IN_BATCH):
        ids = sorted(key[0] for key in keys[start:start + IN_BATCH])
        rows = conn.execute(
            sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                      _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio,
                      _INV.c.min_unit, _INV.c.max_unit, _INV.c.step_size)
            .where(_INV.c.resource_provider_id.in_(ids)))
        for rp_id, *values in rows:
            inventories.setdefault(rp_id, []).append(
                store.intern(tuple(values)))
        rows = conn.execute(
            sa.select(_RPT.c.resource_provider_id, _TRAITS.c.name)
            .select_from(_RPT.join(_TRAITS, _TRAITS.c.id == _RPT.c.trait_id))
            .where(_RPT.c.resource_provider_id.in_(ids))
            .order_by(_traits_order(conn.dialect.name)))
        for rp_id, name in rows:
            traits.setdefault(rp_id, []).append(name)
    empty = ()
    return {
        key[0]: Entry(key[1], key[2],
                      store.intern(tuple(sorted(inventories.get(key[0], ())))),
                      store.intern(frozenset(traits.get(key[0], empty))),
                      store.intern(tuple(traits.get(key[0], empty))))
        for key in keys}
