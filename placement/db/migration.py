"""Schema migrations: upgrade, version, stamp.

Interim implementation that creates the head schema from the models; the
alembic chain with the deployed revision ids replaces it.
"""
from placement.db import models


def upgrade(db, revision='head'):
    """Bring the schema to ``revision``."""
    models.metadata.create_all(db.writer)


def version(db):
    """The current revision id, or None for an empty database."""
    return None


def stamp(db, revision):
    """Record ``revision`` without running migrations."""
    raise NotImplementedError()
