"""The [workarounds] group."""
from oslo_config import cfg

GROUP = cfg.OptGroup(
    'workarounds', title='Workaround options',
    help='Options that switch behaviour for specific deployment '
         'situations. They may be removed once no longer needed.')

OPTS = [
    cfg.BoolOpt(
        'optimize_for_wide_provider_trees',
        default=False,
        help='Prune partial candidates that already exceed capacity while '
             'generating allocation candidates. The candidate search here '
             'always prunes early, so this option is accepted for '
             'compatibility and changes nothing.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
