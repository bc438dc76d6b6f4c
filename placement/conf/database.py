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
