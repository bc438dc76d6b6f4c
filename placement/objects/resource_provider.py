"""Resource providers: lookups and the generation compare-and-swap.

Queries here take ``conn`` first and never begin or commit.
"""
import dataclasses
import datetime
import typing

import sqlalchemy as sa

from placement.db import models
from placement import exception
from placement.objects import _sql


@dataclasses.dataclass(frozen=True)
class Provider:
    id: int
    uuid: str
    name: typing.Optional[str]
    generation: int
    parent_provider_id: typing.Optional[int]
    root_provider_id: int
    parent_provider_uuid: typing.Optional[str]
    root_provider_uuid: str
    created_at: typing.Optional[datetime.datetime]
    updated_at: typing.Optional[datetime.datetime]


def select_providers_stmt():
    """Providers with their parent and root uuids.

    SELECT rp.*, parent.uuid, root.uuid FROM resource_providers rp
    LEFT JOIN resource_providers parent ON parent.id = rp.parent_provider_id
    LEFT JOIN resource_providers root ON root.id = rp.root_provider_id
    """
    rp = models.resource_providers
    parent = rp.alias('parent')
    root = rp.alias('root')
    return sa.select(
        rp.c.id, rp.c.uuid, rp.c.name, rp.c.generation,
        rp.c.parent_provider_id, rp.c.root_provider_id,
        parent.c.uuid.label('parent_provider_uuid'),
        root.c.uuid.label('root_provider_uuid'),
        rp.c.created_at, rp.c.updated_at,
    ).select_from(
        rp.outerjoin(parent, parent.c.id == rp.c.parent_provider_id)
          .outerjoin(root, root.c.id == rp.c.root_provider_id))


def provider_from_row(row):
    return Provider(
        id=row.id, uuid=row.uuid, name=row.name,
        generation=row.generation or 0,
        parent_provider_id=row.parent_provider_id,
        root_provider_id=row.root_provider_id or row.id,
        parent_provider_uuid=row.parent_provider_uuid,
        root_provider_uuid=row.root_provider_uuid or row.uuid,
        created_at=row.created_at, updated_at=row.updated_at)


def fetch_provider(conn, uuid) -> Provider:
    """The provider with ``uuid``; raise ResourceProviderNotFound."""
    rp = models.resource_providers
    row = conn.execute(
        select_providers_stmt().where(rp.c.uuid == uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return provider_from_row(row)


def fetch_providers_by_uuid(conn, uuids) -> dict:
    """{uuid: Provider} for those of ``uuids`` that exist."""
    if not uuids:
        return {}
    rp = models.resource_providers
    rows = conn.execute(select_providers_stmt().where(
        rp.c.uuid.in_(sorted(set(uuids)))))
    return {row.uuid: provider_from_row(row) for row in rows}


def bump_generation(conn, provider_id, seen_generation) -> int:
    """Compare-and-swap the generation; return the new one.

    UPDATE resource_providers SET generation = :seen + 1
    WHERE id = :id AND generation = :seen

    Raise ResourceProviderGenerationConflict when no row matched: someone
    else changed the provider since ``seen_generation`` was read.
    """
    rp = models.resource_providers
    new_generation = seen_generation + 1
    result = conn.execute(
        rp.update()
        .where(rp.c.id == provider_id)
        .where(rp.c.generation == seen_generation)
        .values(generation=new_generation, updated_at=_sql.utcnow()))
    if result.rowcount != 1:
        raise exception.ResourceProviderGenerationConflict()
    return new_generation
