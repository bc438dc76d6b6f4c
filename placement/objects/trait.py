"""Traits: name and id lookups."""
import sqlalchemy as sa

from placement.db import models
from placement import exception


def fetch_ids_by_name(conn, names) -> dict:
    """{name: id} for ``names``; raise TraitNotFound naming the missing."""
    names = set(names)
    if not names:
        return {}
    trait = models.traits
    rows = conn.execute(sa.select(trait.c.name, trait.c.id)
                        .where(trait.c.name.in_(sorted(names))))
    found = {row.name: row.id for row in rows}
    missing = sorted(names - set(found))
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))
    return found
