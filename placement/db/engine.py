"""The engines of [placement_database]: oslo.db's, plus our events.

``create_engine`` hands every option oslo.db knows to oslo.db's own
engine factory (``oslo_db.sqlalchemy.engines.create_engine``), so that
each means exactly what oslo.db makes it mean: pool size, overflow and
timeout, recycle time, SQL mode, SQLite's synchronous mode and BEGIN,
the per-process connection guard, the connect retries at start, the
statement logging and tracing, oslo.db's exception filters.

Two pool settings differ, each bought by a figure (the contributor
guide, "The data layer", has them), and are changed through
SQLAlchemy's public hook for that, a CreateEnginePlugin (``Plugin``)
that oslo.db's factory loads from the URL (``plugin=placement``):

- the pool pings a connection on checkout only when it sat idle for
  IDLE_PING_SECONDS or more (``_add_idle_ping``), where oslo.db pings
  every checkout, a round trip per request, a third of a small read's.
  A connection that died while in use moments ago is still caught: its
  first statement fails as a lost connection, before any COMMIT, and
  the retry policy runs the operation again on a new one;
- on MySQL, the pool sends no ROLLBACK after a COMMIT
  (``pool_reset_on_return=None`` and the reset event of
  ``db.round_trips``).

On MySQL a second engine, ``create_engine(..., alone=True)``, serves the
reads whose statements need no shared snapshot (``db.api.reader(...,
snapshot=False)``): its connections are in autocommit (set once, as each
opens) and SQLAlchemy skips the ROLLBACK that would end a read
(``skip_autocommit_rollback``), so such a read is its statements and
nothing else (``AlonePlugin``). PyMySQL's autocommit is a server
variable: switching it on a pooled connection would cost a round trip
each way, hence a pool of its own.

On top of the engine oslo.db returns go, through SQLAlchemy's public
event API, the options oslo.db does not have: the driver timeouts
(checked against the retry budget once, ``fitted_timeouts``), Galera's
wsrep_sync_wait and the discarding of connections that cannot serve
again (``driver``), and the session variable GET
/allocation_candidates needs on MySQL.
"""
import dataclasses
import time

from oslo_config import cfg
from oslo_db.sqlalchemy import engines
import sqlalchemy as sa
from sqlalchemy import dialects

from placement.db import driver
from placement.db import round_trips
from placement import exception

# A connection back in the pool for this long is pinged before reuse.
IDLE_PING_SECONDS = 1.0
# Bytes a GROUP_CONCAT value may hold (MySQL/MariaDB); the answer is still
# bounded by max_allowed_packet, past which the reader falls back.
GROUP_CONCAT_MAX_LEN = 1 << 30

PLUGIN = 'placement'
ALONE_PLUGIN = 'placement_alone'
_CHECKIN_KEY = 'placement.checked_in_at'


class Plugin(sa.engine.CreateEnginePlugin):
    """The pool setting of the module docstring, for an engine whose URL
    names ``plugin=placement``."""

    def __init__(self, url, kwargs):
        super().__init__(url, kwargs)
        kwargs['pool_pre_ping'] = False
        if url.get_backend_name() == 'mysql':
            kwargs['pool_reset_on_return'] = None

    def update_url(self, url):
        return url

    def engine_created(self, engine):
        if engine.dialect.name != 'sqlite':
            _add_idle_ping(engine)
        if engine.dialect.name == 'mysql':
            round_trips.add_events(engine)


class AlonePlugin(Plugin):
    """``Plugin``, for connections that run each statement on its own
    (MySQL): autocommit, and no ROLLBACK when a read ends or a
    connection goes back to the pool (there is no transaction to end)."""

    def __init__(self, url, kwargs):
        super().__init__(url, kwargs)
        kwargs['isolation_level'] = 'AUTOCOMMIT'
        kwargs['skip_autocommit_rollback'] = True

    def engine_created(self, engine):
        _add_idle_ping(engine)


dialects.plugins.register(PLUGIN, __name__, 'Plugin')
dialects.plugins.register(ALONE_PLUGIN, __name__, 'AlonePlugin')


def timeouts_from(group) -> driver.Timeouts:
    """The driver timeouts of a [placement_database] ``group``, as they
    are (for a connection outside any operation's budget)."""
    return driver.Timeouts(connect=group.connect_timeout,
                           read=group.read_timeout,
                           write=group.write_timeout,
                           wsrep_sync_wait=group.mysql_wsrep_sync_wait)


TIMEOUT_OPTIONS = ('connect_timeout', 'read_timeout', 'write_timeout')


def fitted_timeouts(conf) -> driver.Timeouts:
    """The driver timeouts of ``conf``'s [placement_database], checked
    once against its ``retry_budget``; fixed for every connection.

    Each of TIMEOUT_OPTIONS must be at most half the budget (never less
    than 1 s): the attempts end when the last half of the budget, or
    ``read_timeout`` if less, is left (retry.RetryPolicy.commit_reserve),
    so that one wait for a frozen server, begun by the last attempt,
    ends within the budget. An option left at its default is lowered to
    fit; one the operator set longer is an exception.ConfigError naming
    it. A budget of 0 (no retries) takes the options as they are.
    """
    group = conf.placement_database
    values = {name: getattr(group, name) for name in TIMEOUT_OPTIONS}
    longest = max(int(group.retry_budget / 2), 1)
    too_long = []
    for name, value in values.items():
        if group.retry_budget <= 0 or value <= longest:
            continue
        location = conf.get_location(name, group='placement_database')
        if location is None or location.location is cfg.Locations.opt_default:
            values[name] = longest
        else:
            too_long.append('%s = %s' % (name, value))
    if too_long:
        raise exception.ConfigError(
            reason='[placement_database] %s: longer than half of '
                   'retry_budget (%s s), so a frozen database server could '
                   'hold a request past the budget; set each to %d or less, '
                   'or raise retry_budget.' % (
                       ', '.join(too_long), group.retry_budget, longest))
    return dataclasses.replace(
        timeouts_from(group), connect=values['connect_timeout'],
        read=values['read_timeout'], write=values['write_timeout'])


def oslo_db_arguments(group, plugin=PLUGIN) -> dict:
    """The arguments of oslo.db's engine factory for ``group``: every
    [placement_database] option oslo.db defines, under its oslo.db name,
    and our plugin.

    ``thread_checkin`` (a factory argument, no option) is off: it makes
    every pool checkin call ``time.sleep(0)`` so that an eventlet
    server switches green threads; ours run in OS threads, where it
    only gives the CPU away, 4% of a small GET /allocation_candidates
    under uwsgi (py-spy of the workers, PostgreSQL, 1,000 providers).
    """
    parameters = 'plugin=' + plugin
    if group.connection_parameters:
        parameters += '&' + group.connection_parameters
    return dict(
        mysql_sql_mode=group.mysql_sql_mode,
        connection_recycle_time=group.connection_recycle_time,
        connection_debug=group.connection_debug,
        max_pool_size=group.max_pool_size,
        max_overflow=group.max_overflow,
        pool_timeout=group.pool_timeout,
        sqlite_synchronous=group.sqlite_synchronous,
        connection_trace=group.connection_trace,
        max_retries=group.max_retries,
        retry_interval=group.retry_interval,
        connection_parameters=parameters,
        thread_checkin=False,
        logging_name='placement')


def create_engine(group, url: str, timeouts=None,
                  alone=False) -> sa.engine.Engine:
    """A new Engine on ``url`` for the [placement_database] ``group``,
    its connections opened with ``timeouts`` (driver.Timeouts; default:
    the group's as they are, ``timeouts_from``); ``alone``: in
    autocommit (``AlonePlugin``, for a MySQL URL).

    oslo.db tests the connection (``max_retries``) before the events of
    ``driver`` are in place: the pool is emptied after, so that every
    connection used is opened with them.
    """
    plugin = ALONE_PLUGIN if alone else PLUGIN
    engine = engines.create_engine(url, **oslo_db_arguments(group, plugin))
    driver.add_events(engine, timeouts or timeouts_from(group))
    if engine.dialect.name == 'mysql':
        sa.event.listen(engine, 'connect', _allow_long_group_concat)
    engine.dispose()
    return engine


def _add_idle_ping(engine, idle_seconds=IDLE_PING_SECONDS):
    """Ping a connection on checkout when it sat idle ``idle_seconds``.

    A failed ping discards it and every connection pooled before it
    (they most likely lost the same server), as SQLAlchemy's pre-ping
    does; the pool then connects again.
    """
    dialect = engine.dialect

    @sa.event.listens_for(engine, 'checkin')
    def checkin(dbapi_connection, connection_record):
        if connection_record is not None:
            connection_record.info[_CHECKIN_KEY] = time.monotonic()

    @sa.event.listens_for(engine, 'checkout')
    def ping_if_idle(dbapi_connection, connection_record, connection_proxy):
        since = connection_record.info.pop(_CHECKIN_KEY, None)
        if since is None or time.monotonic() - since < idle_seconds:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise sa.exc.InvalidatePoolError(
                'ping of an idle connection failed: %s' % exc)
        if alive is False:
            raise sa.exc.InvalidatePoolError(
                'ping of an idle connection failed')


def _allow_long_group_concat(dbapi_con, connection_rec):
    # GET /allocation_candidates and GET /resource_providers read their
    # rows packed into one GROUP_CONCAT value (db.packed); the default
    # 1 MB cap would send large deployments back to row by row.
    cursor = dbapi_con.cursor()
    try:
        cursor.execute('SET SESSION group_concat_max_len = %s',
                       [GROUP_CONCAT_MAX_LEN])
    finally:
        cursor.close()
