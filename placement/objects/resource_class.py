"""Resource classes: name and id lookups.

Standard class ids are their index in ``os_resource_classes.STANDARDS``;
custom classes get ids from 10000 upwards.
"""
import sqlalchemy as sa

from placement.db import models
from placement import exception

CUSTOM_ID_START = 10000


def fetch_ids_by_name(conn, names) -> dict:
    """{name: id} for ``names``; raise ResourceClassNotFound for any
    missing one (the first, alphabetically, named in the message).
    """
    names = set(names)
    if not names:
        return {}
    rc = models.resource_classes
    rows = conn.execute(sa.select(rc.c.name, rc.c.id)
                        .where(rc.c.name.in_(sorted(names))))
    found = {row.name: row.id for row in rows}
    missing = sorted(names - set(found))
    if missing:
        raise exception.ResourceClassNotFound(name=missing[0])
    return found


def fetch_names_by_id(conn) -> dict:
    """{id: name} of every resource class."""
    rc = models.resource_classes
    return {row.id: row.name
            for row in conn.execute(sa.select(rc.c.id, rc.c.name))}
