"""Provider trees for a move: locking reads of a tree's links, the
subtree of a provider, and the locks two crossing moves take turns on.

A move reads the tree with locking reads only (FOR UPDATE): on MariaDB
at REPEATABLE READ a plain SELECT would read the transaction's snapshot
and miss a move committed while this one waited for its locks.

Queries take ``conn`` first and never begin or commit.
"""
import datetime

import sqlalchemy as sa

from placement.db import backend
from placement.db import models
from placement.objects import _sql


def fetch_tree_row(conn, uuid):
    """(id, parent_provider_id, root_provider_id) of one provider, locked
    FOR UPDATE; None when there is no such provider."""
    rp = models.resource_providers
    return conn.execute(
        sa.select(rp.c.id, rp.c.parent_provider_id, rp.c.root_provider_id)
        .where(rp.c.uuid == uuid).with_for_update()).first()


def fetch_tree_links(conn, root_id) -> dict:
    """{provider id: parent id} for every provider of one tree, locked."""
    rp = models.resource_providers
    rows = conn.execute(sa.select(rp.c.id, rp.c.parent_provider_id)
                        .where(rp.c.root_provider_id == root_id)
                        .order_by(rp.c.id).with_for_update())
    return {row.id: row.parent_provider_id for row in rows}


def subtree_ids(links, top_id) -> set:
    """``top_id`` and all its descendants, from {id: parent id}."""
    children = {}
    for child, parent in links.items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [top_id]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(children.get(current, ()))
    return found


def lock_trees(conn, uuids) -> dict:
    """Lock every provider of the trees holding ``uuids`` (FOR UPDATE);
    {uuid: (created_at, updated_at)} of those providers as they were.

    SELECT rp.uuid, rp.created_at, rp.updated_at FROM resource_providers rp
    WHERE rp.root_provider_id IN (SELECT member.root_provider_id
        FROM resource_providers member WHERE member.uuid IN (:uuids))
    ORDER BY rp.id FOR UPDATE

    Run first in a move, so that two moves touching the same trees take
    turns (or deadlock and retry) and each loop check sees the other's
    result: without it, A under B's child and B under A's child at once
    would make a cycle. A no-op on SQLite, which serializes writers.
    Then, where a lock may hold on one node only (Galera:
    backend.locks_hold_on_one_node), ``_touch_roots``.
    """
    rp = models.resource_providers
    member = rp.alias('member')
    roots = sa.select(member.c.root_provider_id).where(
        member.c.uuid.in_(sorted(set(uuids))))
    locked = conn.execute(
        sa.select(rp.c.uuid, rp.c.created_at, rp.c.updated_at)
        .where(rp.c.root_provider_id.in_(roots))
        .order_by(rp.c.id).with_for_update()).all()
    if backend.locks_hold_on_one_node(conn):
        _touch_roots(conn, sorted(
            {root for root in conn.execute(roots).scalars() if root}))
    return {row.uuid: (row.created_at, row.updated_at) for row in locked}


def _touch_roots(conn, root_ids) -> None:
    """Really change the row of every root in ``root_ids`` (updated_at).

    UPDATE resource_providers SET updated_at = CASE WHEN updated_at = :now
        THEN :now - 1 s ELSE :now END WHERE id IN (:root_ids)

    Galera certifies a transaction against the rows the others *changed*;
    the locks of lock_trees hold only on the node that took them. Two
    crossing moves through two nodes change disjoint rows (each its own
    subtree), so both would commit and build a cycle. Changing the roots
    of both trees in both makes the one certified second fail (1213): it
    runs again and then sees the other's move. MariaDB does not write a
    row an UPDATE leaves as it was, hence the CASE. Only updated_at
    changes, which the API does not show.
    """
    rp = models.resource_providers
    now = _sql.utcnow()
    conn.execute(rp.update().where(rp.c.id.in_(root_ids)).values(
        updated_at=sa.case(
            (rp.c.updated_at == now, now - datetime.timedelta(seconds=1)),
            else_=now)))
