"""placement-manage: schema and data migrations for operators.

    placement-manage [--config-file PATH] [--config-dir DIR] db sync
    placement-manage ... db version
    placement-manage ... db stamp REVISION
    placement-manage ... db online_data_migrations [--max-count N]
    placement-manage ... allocation_candidates explain QUERY [...]
    placement-manage ... audit [--format table|json] [--fix]
    placement-manage ... capacity [SHAPE ...] [--query QUERY] [...]

Configuration comes from ``/etc/placement/placement.conf`` unless
``--config-file`` / ``--config-dir`` say otherwise (the WSGI app's
``OS_PLACEMENT_CONFIG_DIR`` does not apply here). With no
``[placement_database] connection`` configured, the commands use the
embedded database of ``placement-api``, ``./placement.sqlite`` (``db sync``
creates it; the others need it to exist). Exit codes of
online_data_migrations: 0 nothing left, 1 ``--max-count`` made progress
(run again), 2 a migration failed, 127 bad input.
"""
import argparse
import collections
import os
import sys

from oslo_config import cfg
from oslo_log import log as logging
import prettytable
import sqlalchemy as sa

from placement.cmd import explain as explain_cmd
from placement.cmd import audit as audit_cmd
from placement.cmd import capacity as capacity_cmd
from placement import conf as placement_conf
from placement.conf import paths
from placement.db import api as db_api
from placement.db import migration
from placement import exception
from placement.objects import data_migration
from placement.objects import standards

LOG = logging.getLogger(__name__)

DEFAULT_CONFIG_FILE = '/etc/placement/placement.conf'
DEFAULT_BATCH = 50
EXIT_OK, EXIT_MORE, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2, 127


class CommandError(Exception):
    """A failure to report in one line, without a traceback."""


def _set_root_provider_ids(db, conf, count):
    return data_migration.set_root_provider_ids(db, count)


def _create_incomplete_consumers(db, conf, count):
    return data_migration.create_incomplete_consumers(
        db, count, conf.placement.incomplete_consumer_project_id,
        conf.placement.incomplete_consumer_user_id)


# In order: consumers may depend on providers being complete.
ONLINE_MIGRATIONS = (
    ('set_root_provider_ids', _set_root_provider_ids),
    ('create_incomplete_consumers', _create_incomplete_consumers),
)


def _run_batch(db, conf, max_count):
    """One pass over the migrations, at most ``max_count`` rows in all.

    Returns ({name: (found, done)}, whether any migration raised).
    """
    results = collections.OrderedDict()
    failed = False
    ran = 0
    for name, migrate in ONLINE_MIGRATIONS:
        try:
            found, done = migrate(db, conf, max_count - ran)
        except Exception:
            LOG.exception('Error attempting to run %s', name)
            found = done = 0
            failed = True
        if found:
            print('%d %s matched query %s, %d migrated'
                  % (found, _plural(found, 'row', 'rows'), name, done))
        results[name] = (found, done)
        ran += done
        if ran >= max_count:
            break
    return results, failed


def _print_table(totals):
    table = prettytable.PrettyTable(['Migration', 'Total Found',
                                     'Completed'])
    for name, (found, done) in totals.items():
        table.add_row([name, found, done])
    print(table)


def _parse_max_count(value):
    if value is None:
        return None
    try:
        count = int(value)
    except ValueError:
        return -1
    return count


def online_data_migrations(db, conf, max_count=None):
    """Run the online migrations; return the documented exit code."""
    limited = max_count is not None
    count = _parse_max_count(max_count)
    if limited and count < 1:
        print('Must supply a positive value for max_count')
        return EXIT_BAD_INPUT
    if not limited:
        count = DEFAULT_BATCH
        print('Running batches of %d until complete' % count)
    totals = collections.OrderedDict()
    while True:
        results, failed = _run_batch(db, conf, count)
        ran = 0
        for name, (found, done) in results.items():
            old_found, old_done = totals.get(name, (0, 0))
            totals[name] = (max(old_found, found), old_done + done)
            ran += done
        if limited or not ran:
            break
    _print_table(totals)
    if failed and not (limited and ran):
        print('Some migrations failed unexpectedly. Check log for details.')
        return EXIT_FAILED
    return EXIT_MORE if ran else EXIT_OK


def pending_revisions(db):
    """(current revision or None, [(revision, description)] that an
    upgrade to head applies, oldest first)."""
    current = migration.version(db)
    script = migration.script_directory()
    found = [(rev.revision, (rev.doc or '').strip().splitlines()[0]
              if rev.doc else '')
             for rev in script.iterate_revisions('heads', current or 'base')]
    return current, found[::-1]


def db_sync(db, conf, args):
    """Upgrade to head, saying which revisions run; then write the
    standard classes and traits, as the service does when it starts."""
    current, pending = pending_revisions(db)
    head = migration.head_revision()
    if not pending:
        print('The database is already at head (%s): nothing to upgrade.'
              % head)
    else:
        print('Upgrading the database from %s to %s (head):' % (
            current or 'an empty schema', head))
        for revision, description in pending:
            print('  %s  %s' % (revision, description))
        sys.stdout.flush()
    try:
        migration.upgrade(db, 'head')
        standards.sync(db)
    except Exception as exc:
        LOG.debug('db sync failed', exc_info=True)
        raise CommandError('db sync failed: %s' % exc)
    if pending:
        print('Done: the database is at %s; %d %s applied.' % (
            head, len(pending), _plural(len(pending), 'revision',
                                        'revisions')))
    return EXIT_OK


def _plural(count, one, many):
    return one if count == 1 else many


def db_version(db, conf, args):
    print(migration.version(db))
    return EXIT_OK


def db_stamp(db, conf, args):
    try:
        migration.stamp(db, args.version)
    except Exception as exc:
        raise CommandError('db stamp failed: %s' % exc)
    return EXIT_OK


def db_online_data_migrations(db, conf, args):
    return online_data_migrations(db, conf, args.max_count)


def _parser():
    parser = argparse.ArgumentParser(
        prog='placement-manage',
        description='Administrative tasks for the placement service.')
    parser.add_argument('--config-file', action='append', metavar='PATH',
                        help='Configuration file (default %s); may be '
                             'repeated.' % DEFAULT_CONFIG_FILE)
    parser.add_argument('--config-dir', metavar='DIR',
                        help='Directory of *.conf files read after the '
                             'configuration files.')
    categories = parser.add_subparsers(title='categories', dest='category',
                                       metavar='<category>')
    db_parser = categories.add_parser('db', help='Database commands.')
    commands = db_parser.add_subparsers(title='commands', dest='command',
                                        metavar='<command>')
    commands.add_parser(
        'sync', help='Upgrade the database schema to the most recent '
                     'version.').set_defaults(func=db_sync)
    commands.add_parser(
        'version', help='Print the current database version.'
    ).set_defaults(func=db_version)
    stamp = commands.add_parser(
        'stamp', help="Stamp the revision table with the given revision; "
                      "don't run any migrations.")
    stamp.add_argument('version', help='The revision id to record.')
    stamp.set_defaults(func=db_stamp)
    online = commands.add_parser(
        'online_data_migrations',
        help='Perform data migration to update all live data.')
    online.add_argument('--max-count', metavar='<number>', dest='max_count',
                        help='Maximum number of objects to migrate; '
                             'default: batches of %d until complete.'
                             % DEFAULT_BATCH)
    online.set_defaults(func=db_online_data_migrations)
    explain_cmd.register(categories)
    audit_cmd.register(categories)
    capacity_cmd.register(categories)
    return parser, db_parser


def load_config(config_files, config_dir):
    """A ConfigOpts from the given files (else the default file)."""
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    args = []
    for path in config_files or ():
        args += ['--config-file', path]
    if config_dir:
        args += ['--config-dir', config_dir]
    defaults = [DEFAULT_CONFIG_FILE] if os.path.exists(
        DEFAULT_CONFIG_FILE) else []
    try:
        conf(args, project='placement', default_config_files=defaults)
    except cfg.Error as exc:
        raise CommandError(str(exc))
    return conf


def no_database_message(conf):
    """What to do when ``[placement_database] connection`` is not set and
    there is no embedded database here."""
    read = ', '.join(conf.config_file or ()) or 'none (%s does not exist)' % (
        DEFAULT_CONFIG_FILE)
    return ('no database configured: [placement_database] connection is '
            'not set, and there is no embedded database %s here (the file '
            'placement-api uses without a connection). Give a '
            'configuration file that sets it with --config-file PATH (files '
            'read: %s), set the environment variable '
            'OS_PLACEMENT_DATABASE__CONNECTION to the database URL, or run '
            'this where placement-api ran' % (
                paths.embedded_database_path(), read))


def use_embedded_database(conf, prog, create=False):
    """Without ``[placement_database] connection``, point ``conf`` at
    placement-api's embedded SQLite file, saying so on stderr; a
    CommandError when that file does not exist (unless ``create``)."""
    if conf.placement_database.connection:
        return
    path = paths.embedded_database_path()
    if not create and not os.path.exists(path):
        raise CommandError(no_database_message(conf))
    conf.set_override('connection', paths.embedded_database_url(),
                      group='placement_database')
    print('%s: no [placement_database] connection configured: using the '
          'embedded database %s' % (prog, path), file=sys.stderr)


def open_database(conf):
    """The Database of ``conf`` (see ``use_embedded_database``)."""
    try:
        return db_api.create_database(conf)
    except exception.ConfigError as exc:
        raise CommandError(str(exc))


def check_schema(db):
    """CommandError unless the schema is at head (the commands outside
    ``db`` read today's tables). A schema without alembic's version
    table but with the tables (made from the models) passes."""
    current, pending = pending_revisions(db)
    if current is None and not sa.inspect(db.writer).has_table(
            'resource_providers'):
        raise CommandError('the database has no placement tables yet: run '
                           '"placement-manage db sync" first')
    if current is not None and pending:
        raise CommandError(
            'the database schema is at %s, behind this release (%s): run '
            '"placement-manage db sync" first' % (current, pending[-1][0]))


def _execute(args):
    conf = load_config(args.config_file, args.config_dir)
    logging.setup(conf, 'placement')
    if not conf.debug:
        # Keep `db version` output to the revision alone.
        logging.getLogger('alembic').logger.setLevel(logging.WARNING)
    use_embedded_database(conf, 'placement-manage',
                          create=getattr(args, 'func', None) is db_sync)
    db = open_database(conf)
    try:
        if args.category != 'db':
            check_schema(db)
        return args.func(db, conf, args)
    finally:
        db.dispose()


def main(argv=None):
    """Entry point of ``placement-manage``; returns the exit code."""
    parser, db_parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.category is None:
        parser.print_help()
        return 1
    if getattr(args, 'func', None) is None:
        getattr(args, 'category_parser', db_parser).print_help()
        return 1
    try:
        return _execute(args)
    except CommandError as exc:
        print('placement-manage: error: %s' % exc, file=sys.stderr)
        return 1
