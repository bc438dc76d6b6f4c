"""The [placement] group."""
from oslo_config import cfg

GROUP = cfg.OptGroup('placement', title='Placement options')

_INCOMPLETE_HELP = (
    'Early API microversions (<1.8) allowed creating allocations and not '
    'specifying a project or user identifier for the consumer. In cleaning '
    'up the data modeling, we no longer allow missing project and user '
    'information. If an older client makes an allocation, we\'ll use this '
    'in place of the information it doesn\'t provide.')

OPTS = [
    cfg.BoolOpt(
        'randomize_allocation_candidates',
        default=False,
        help='If True, when limiting allocation candidate results, the '
             'results will be a random sampling of the full result set. If '
             'False, allocation candidates are returned in a deterministic '
             'but undefined order. That is, all things being equal, two '
             'requests for allocation candidates will return the same '
             'results in the same order; but no guarantees are made as to '
             'how that order is determined.'),
    cfg.StrOpt(
        'incomplete_consumer_project_id',
        default='00000000-0000-0000-0000-000000000000',
        help=_INCOMPLETE_HELP),
    cfg.StrOpt(
        'incomplete_consumer_user_id',
        default='00000000-0000-0000-0000-000000000000',
        help=_INCOMPLETE_HELP),
    cfg.IntOpt(
        'allocation_conflict_retry_count',
        default=10,
        help='The number of times to retry, server-side, writing '
             'allocations when there is a resource provider generation '
             'conflict. Raising this value may be useful when many '
             'concurrent allocations to the same resource provider are '
             'expected.'),
    cfg.IntOpt(
        'max_allocation_candidates',
        default=-1,
        help='The maximum number of allocation candidates placement '
             'generates for a single request. This is a global limit to '
             'avoid excessive memory use and query runtime. If set to -1 '
             'it means the number of generated candidates is only limited '
             'by the number and structure of the resource providers and '
             'the content of the allocation_candidates query. Note that '
             'the limit query parameter of the allocation_candidates API '
             'is applied after all the viable candidates are generated; '
             'this config option caps how many are generated in the first '
             'place.'),
    cfg.StrOpt(
        'allocation_candidates_generation_strategy',
        default='depth-first',
        choices=(
            ('depth-first',
             'Generate all candidates of the first viable root provider '
             'tree before moving to the next one.'),
            ('breadth-first',
             'Generate candidates from viable root provider trees in a '
             'round-robin fashion, one candidate from each tree at a '
             'time.'),
        ),
        help='Defines the order in which placement visits the viable root '
             'providers while generating allocation candidates. It only '
             'matters when max_allocation_candidates limits generation.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return {GROUP: OPTS}
