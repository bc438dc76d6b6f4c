"""placement-status upgrade check: is this deployment ready to upgrade?

The checks (oslo.upgradecheck prints them as a table):

- Missing Root Provider IDs: Failure while any provider lacks one;
- Incomplete Consumers: Warning while allocations lack a consumer record;
- Resource Providers Over Capacity: Warning while any provider uses more
  of a class than its capacity (an inventory shrunk below its usage);
- Policy File JSON to YAML Migration: Failure for a JSON policy file.

Return codes: 0 all passed, 1 a warning, 2 a failure, 255 an unexpected
error. Configuration as for placement-manage (``--config-file``,
``--config-dir``, default ``/etc/placement/placement.conf``; without a
database connection, placement-api's embedded ``./placement.sqlite``).
"""
import os
import sys

from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from placement.cmd import manage
from placement import conf as placement_conf
from placement.db import api as db_api
from placement import exception
from placement.objects import audit
from placement.objects import data_migration
from placement import policy

DEFAULT_CONFIG_FILE = '/etc/placement/placement.conf'
_RUN_ONLINE = ('Run the "placement-manage db online_data_migrations" '
               'command.')


# Indexed by "is there only one".
_OVER_CAPACITY = (
    '%s whose usage exceeds their capacity, after an inventory was reduced '
    'below its usage: no new allocations of that class fit on them until '
    'usage drops. Run "placement-manage audit" for the details.',
    '%s whose usage exceeds its capacity, after an inventory was reduced '
    'below its usage: no new allocations of that class fit on it until '
    'usage drops. Run "placement-manage audit" for the details.')


def _there_are(count, one, many):
    if count == 1:
        return 'There is 1 %s' % one
    return 'There are %d %s' % (count, many)


class Checks(upgradecheck.UpgradeCommands):
    """The release's upgrade checks, against the configured database."""

    def __init__(self, conf):
        self.conf = conf
        self._db = None

    def _database(self):
        if self._db is None:
            self._db = db_api.create_database(self.conf)
        return self._db

    def _check_root_provider_ids(self):
        if data_migration.count_missing_root_provider_ids(self._database()):
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                'There is at least one resource provider table record '
                'which misses its root provider id. ' + _RUN_ONLINE)
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_incomplete_consumers(self):
        missing = data_migration.count_incomplete_consumers(self._database())
        if missing:
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                '%s for existing allocations. %s' % (_there_are(
                    missing, 'incomplete consumers table record',
                    'incomplete consumers table records'), _RUN_ONLINE))
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_over_capacity(self):
        count = audit.count_providers_over_capacity(self._database())
        if count:
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                _OVER_CAPACITY[count == 1] % _there_are(
                    count, 'resource provider', 'resource providers'))
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_policy_json(self):
        return common_checks.check_policy_json(self, self.conf)

    _upgrade_checks = (
        ('Missing Root Provider IDs', _check_root_provider_ids),
        ('Incomplete Consumers', _check_incomplete_consumers),
        ('Resource Providers Over Capacity', _check_over_capacity),
        ('Policy File JSON to YAML Migration', _check_policy_json),
    )


def _default_files():
    return [DEFAULT_CONFIG_FILE] if os.path.exists(
        DEFAULT_CONFIG_FILE) else []


def main(argv=None):
    """Entry point of ``placement-status``; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    policy.register_opts(conf)
    checks = Checks(conf)
    upgradecheck.register_cli_options(conf, checks)
    try:
        conf(argv, project='placement', default_config_files=_default_files())
    except cfg.Error as exc:
        print('placement-status: error: %s' % exc, file=sys.stderr)
        return 255
    try:
        manage.use_embedded_database(conf, 'placement-status')
        # Opened now, so that a configuration the engine refuses (driver
        # timeouts longer than the retry budget allows) is one line, not
        # a traceback from inside the first check.
        checks._database()
    except (manage.CommandError, exception.ConfigError) as exc:
        print('placement-status: error: %s' % exc, file=sys.stderr)
        return 255
    try:
        return upgradecheck.run(conf)
    finally:
        if checks._db is not None:
            checks._db.dispose()
