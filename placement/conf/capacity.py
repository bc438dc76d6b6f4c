"""The [capacity] group: the request shapes whose free capacity is counted.

Each ``shape`` is ``NAME = QUERY``: a name (a flavor's, say) and a query
string of GET /allocation_candidates at the latest microversion. Only
the text is kept here: the shapes are parsed and checked where they are
used (``placement.handlers.capacity_shape``), with the API's own
grammar and messages.
"""
from oslo_config import cfg

GROUP = cfg.OptGroup(
    'capacity', title='Free capacity by request shape',
    help='Request shapes whose free capacity /metrics (when enabled) and '
         '"placement-manage capacity" count: how many more of each '
         'shape fit, tree by tree, claim after claim.')

OPTS = [
    cfg.MultiStrOpt(
        'shape',
        default=[],
        help='A request shape, NAME = QUERY, where QUERY is a query string '
             'of GET /allocation_candidates at the latest microversion '
             '(resources, granular groups, required, member_of, in_tree, '
             'group_policy, same_subtree, root_required), for example '
             '"m1.large = resources=VCPU:4,MEMORY_MB:8192,DISK_GB:80". '
             'Repeat the option for each shape. A shape the API would '
             'answer with a 400 stops the service at start, with the '
             'API\'s message and the shape\'s name.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
