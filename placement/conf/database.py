"""The [placement_database] group."""
from oslo_config import cfg

GROUP = cfg.OptGroup(
    'placement_database', title='Placement API database options',
    help='The *Placement API Database* is the database used with the '
         'placement service. If the connection option is not set, the '
         'placement service will not start.')

OPTS = [
    cfg.StrOpt(
        'connection',
        secret=True,
        help='The SQLAlchemy connection string to use to connect to the '
             'database.'),
    cfg.StrOpt(
        'connection_parameters',
        default='',
        help='Optional URL parameters to append onto the connection URL at '
             'connect time; specify as param1=value1&param2=value2&...'),
    cfg.BoolOpt(
        'sqlite_synchronous',
        default=True,
        help='If True, SQLite uses synchronous mode.'),
    cfg.StrOpt(
        'slave_connection',
        secret=True,
        help='The SQLAlchemy connection string to use to connect to the '
             'slave database.'),
    cfg.StrOpt(
        'mysql_sql_mode',
        default='TRADITIONAL',
        help='The SQL mode to be used for MySQL sessions. This option, '
             'including the default, overrides any server-set SQL mode. To '
             'use whatever SQL mode is set by the server configuration, set '
             'this to no value. Example: mysql_sql_mode='),
    cfg.IntOpt(
        'connection_recycle_time',
        default=3600,
        help='Connections which have been present in the connection pool '
             'longer than this number of seconds will be replaced with a '
             'new one the next time they are checked out from the pool.'),
    cfg.IntOpt(
        'max_pool_size',
        help='Maximum number of SQL connections to keep open in a pool. '
             'Setting a value of 0 indicates no limit.'),
    cfg.IntOpt(
        'max_retries',
        default=10,
        help='Maximum number of database connection retries during '
             'startup. Set to -1 to specify an infinite retry count.'),
    cfg.IntOpt(
        'retry_interval',
        default=10,
        help='Interval between retries of opening a SQL connection.'),
    cfg.IntOpt(
        'max_overflow',
        help='If set, use this value for max_overflow with SQLAlchemy.'),
    cfg.IntOpt(
        'connection_debug',
        default=0,
        min=0, max=100,
        help='Verbosity of SQL debugging information: 0=None, '
             '100=Everything.'),
    cfg.BoolOpt(
        'connection_trace',
        default=False,
        help='Add Python stack traces to SQL as comment strings.'),
    cfg.IntOpt(
        'pool_timeout',
        help='If set, use this value for pool_timeout with SQLAlchemy.'),
    cfg.FloatOpt(
        'retry_budget',
        default=30.0,
        min=0,
        help='Seconds one API operation may take in all when its '
             'attempts fail for a reason a new attempt can cure. Such a '
             'failure (a deadlock or Galera certification failure, a lock '
             'wait timeout, a serialization failure, a refused, lost or '
             'killed connection, a node that is not ready: MySQL errors '
             '1213, 1205, 2003, 2006, 2013, 1927, 1047, 1053, 1180, '
             'PostgreSQL 40001, 40P01 and connection errors) rolls the '
             'transaction back, discards a broken connection and runs the '
             'whole operation again on a new connection. Attempts may '
             'start during the first part of the budget; the last part, '
             'half of it or read_timeout if that is less, is kept for a '
             'COMMIT in flight (Galera holds commits while it evicts a '
             'dead node) and for finding out whether a COMMIT whose answer '
             'was lost took effect. The driver timeouts below must each '
             'be at most half the budget (never less than 1 s), so that '
             'a frozen server holds a request no longer than the budget '
             '(MySQL; see read_timeout for PostgreSQL): one left at its '
             'default is lowered to fit, one set longer stops the service '
             'at start with an error naming it. When the attempts run out '
             'on a lost race '
             'the answer is 409 placement.concurrent_update; when no '
             'database server could serve the request it is 503 '
             'placement.database.unavailable with a Retry-After header. '
             '0 disables retries (the driver timeouts apply as they are). '
             'The default suits a Galera cluster with its default evs '
             'timeouts: behind HAProxy a request caught by a dead or '
             'frozen node waits for the cluster to evict it (6.1 to 8.4 s '
             'measured under load), which must fit in the attempts (15 s '
             'of the 30) and in the COMMIT reserve (15 s); with 4 s such '
             'requests got 503, with 7 s they just passed. An API host '
             'pinned to a dead node answers 503 after the attempts, about '
             '15 s.'),
    cfg.FloatOpt(
        'retry_backoff',
        default=0.05,
        min=0,
        help='Base of the pause, in seconds, before running an operation '
             'again after a connection failure: the pause before retry n '
             'is random between 0 and retry_backoff * 2**n, at most '
             'retry_backoff_max. Lost races start from a tenth of it.'),
    cfg.FloatOpt(
        'retry_backoff_max',
        default=0.5,
        min=0,
        help='Longest pause, in seconds, between two attempts of one '
             'operation. It bounds how late the API notices that a '
             'database server is back.'),
    cfg.IntOpt(
        'connect_timeout',
        default=5,
        min=1,
        help='Seconds to wait for a new database connection (TCP connect '
             'and handshake). Passed as connect_timeout to PyMySQL and '
             'psycopg; only used with mysql and postgresql URLs. At most '
             'half of retry_budget (see there).'),
    cfg.IntOpt(
        'read_timeout',
        default=15,
        min=1,
        help='Seconds to wait for a MySQL server to answer one statement '
             '(PyMySQL read_timeout) before the connection is treated as '
             'lost and the operation retried. Keep it above the time a '
             'Galera cluster takes to evict a dead node (about 7 s with '
             'the default evs timeouts), during which the other nodes '
             'hold commits. On PostgreSQL the TCP keepalive detects a '
             'dead server after about this long. Only used with mysql and '
             'postgresql URLs. At most half of retry_budget (see there).'),
    cfg.IntOpt(
        'write_timeout',
        default=15,
        min=1,
        help='Seconds to wait for a MySQL server to accept a statement '
             '(PyMySQL write_timeout). Only used with mysql URLs. At most '
             'half of retry_budget (see there).'),
    cfg.IntOpt(
        'mysql_wsrep_sync_wait',
        default=0,
        min=0,
        max=15,
        help='If not 0, the wsrep_sync_wait session value set on every '
             'MySQL/MariaDB connection, so that reads wait until the '
             'Galera node has applied every write the cluster committed '
             'before them (1: reads, 3: reads, updates and deletes, see '
             'the Galera documentation). Needed for read-your-writes when '
             'API hosts use different Galera nodes. Ignored with other '
             'databases; a server without the variable logs a warning.'),
    cfg.BoolOpt(
        'sync_on_startup',
        default=False,
        help='If True, database schema migrations will be attempted when '
             'the web service starts.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
