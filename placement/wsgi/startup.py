"""Building the application for an entry point (``placement-api``, the
WSGI module), with a start that cannot succeed reported in one line.

A database without placement's tables (never synced, or a URL naming the
wrong database) would fail the first statement the start runs, with a
driver traceback (and, on PostgreSQL, oslo.db logging one more before
it). Unless ``[placement_database] sync_on_startup`` is to create them,
``build`` first asks the database whether the tables are there, on an
engine of its own that connects once, without oslo.db's start-up retries
(a database that does not answer is left to the start's own handling),
and raises ``exception.ConfigError`` naming the database and the two
ways to create them. The cost: one connection more per process start.
"""
from oslo_db.sqlalchemy import engines
from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import driver
from placement.db import engine as db_engine
from placement import exception
from placement import wsgi

# The first table the start reads (the standard resource classes).
FIRST_TABLE = 'resource_classes'


def missing_schema_message(url, table=FIRST_TABLE):
    """One line: the database at ``url`` (password hidden) lacks
    ``table``."""
    shown = sa.engine.make_url(url).render_as_string(hide_password=True)
    return ('the database %s has no placement tables (table %s does not '
            'exist): create them with "placement-manage db sync", or set '
            '[placement_database] sync_on_startup = True to create them '
            'when the service starts' % (shown, table))


def _lacks_schema(group):
    """True when the database answers and has no FIRST_TABLE."""
    arguments = dict(db_engine.oslo_db_arguments(group), max_retries=0)
    engine = engines.create_engine(group.connection, **arguments)
    driver.add_events(engine, db_engine.timeouts_from(group))
    try:
        return not sa.inspect(engine).has_table(FIRST_TABLE)
    except Exception:  # no answer, no rights: the start itself will tell
        return False
    finally:
        engine.dispose()


def build(conf=None):
    """``wsgi.init_application(conf)``, after the schema check of the
    module docstring (ConfigError, one line for the operator)."""
    if conf is None:
        conf = wsgi.load_config()
    # (Again in init_application; here so that a failed check is logged
    # where the operator configured the log.)
    logging.setup(conf, 'placement')
    group = conf.placement_database
    if group.connection and not group.sync_on_startup and _lacks_schema(
            group):
        raise exception.ConfigError(
            message=missing_schema_message(group.connection))
    return wsgi.init_application(conf)
