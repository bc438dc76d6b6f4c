"""Post-conditions: did a write whose COMMIT was lost take effect?

When the connection drops while COMMIT is in flight, the transaction may
or may not have committed. Each write operation states, inside its
transaction, how to recognise its own write afterwards
(``db_api.on_commit_lost``); the retry policy runs that check on a new
connection and answers the operation's result if the write is there, or
runs the operation again if it is not. A transaction is atomic, so one
fact unique to it is enough: the generation it set on a consumer or a
provider, together with the content it wrote there.

Functions here build those checks; they never open a transaction.
"""
import math
import typing

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import consumer as consumer_obj

NOT_LANDED = db_api.NOT_LANDED


def _allocations_by_consumer(conn, uuids):
    """{consumer uuid: sorted [(provider uuid, class name, used)]}."""
    a = models.allocations
    rp = models.resource_providers
    rc = models.resource_classes
    rows = conn.execute(
        sa.select(a.c.consumer_id, rp.c.uuid, rc.c.name, a.c.used)
        .select_from(a.join(rp, rp.c.id == a.c.resource_provider_id)
                     .join(rc, rc.c.id == a.c.resource_class_id))
        .where(a.c.consumer_id.in_(sorted(uuids))))
    found = {}
    for row in rows:
        found.setdefault(row[0], []).append(tuple(row[1:]))
    return {uuid: sorted(items) for uuid, items in found.items()}


def expect_consumers(wanted: typing.Dict[str, tuple]) -> None:
    """Register: each consumer holds exactly what this write gave it.

    ``wanted`` maps a consumer uuid to (generation, resources) as the
    write left it, resources being (provider uuid, class, amount)
    triples; (None, ()) for a consumer the write removed.
    """
    expected = {uuid: (generation, sorted(resources))
                for uuid, (generation, resources) in wanted.items()}

    def check(conn):
        stored = consumer_obj.fetch_consumers_by_uuid(conn, list(expected))
        allocations = _allocations_by_consumer(conn, list(expected))
        for uuid, (generation, resources) in expected.items():
            consumer = stored.get(uuid)
            found = consumer.generation if consumer else None
            if (found, allocations.get(uuid, [])) != (generation,
                                                      resources):
                return NOT_LANDED
        return None
    db_api.on_commit_lost(check)


def expect_consumer_gone(consumer_uuid: str,
                         consumer_id: typing.Optional[int]) -> None:
    """Register: the consumer row this delete removed is gone.

    Its absence is the proof: a consumer written again after the delete
    is a new row with a new id.
    """
    c = models.consumers
    a = models.allocations

    def check(conn):
        if consumer_id is not None:
            still = conn.execute(sa.select(c.c.id).where(
                c.c.id == consumer_id)).first()
        else:
            still = conn.execute(sa.select(a.c.id).where(
                a.c.consumer_id == consumer_uuid).limit(1)).first()
        return NOT_LANDED if still is not None else None
    db_api.on_commit_lost(check)


def expect_provider(provider_uuid: str, generation: int, matches) -> None:
    """Register: the provider has the generation this write set and
    ``matches(conn, provider)`` finds the content it wrote (``provider``
    has id, uuid and generation).

    ``matches`` returns NOT_LANDED or the operation's result.
    """
    rp = models.resource_providers

    def check(conn):
        provider = conn.execute(
            sa.select(rp.c.id, rp.c.uuid, rp.c.generation)
            .where(rp.c.uuid == provider_uuid)).first()
        if provider is None or provider.generation != generation:
            return NOT_LANDED
        return matches(conn, provider)
    db_api.on_commit_lost(check)


def expect_row(column, value, present: bool, result=lambda conn: None
               ) -> None:
    """Register: a row with ``column`` = ``value`` is there (``present``)
    or gone; the answer is then ``result(conn)``.

    For writes that create, rename or delete one named row, where that
    row's presence or absence is the write's own effect.
    """
    def check(conn):
        found = conn.execute(sa.select(sa.literal(1)).where(
            column == value).limit(1)).first() is not None
        return result(conn) if found == present else NOT_LANDED
    db_api.on_commit_lost(check)


def same_values(stored: dict, wanted: dict) -> bool:
    """The stored fields equal the written ones (floats to 1e-6)."""
    if stored.keys() != wanted.keys():
        return False
    for key, value in wanted.items():
        if isinstance(value, float):
            if not math.isclose(stored[key], value, rel_tol=1e-6):
                return False
        elif stored[key] != value:
            return False
    return True
