"""placement-manage capacity: how many more of each request shape fit.

    placement-manage capacity [SHAPE ...] [--query 'resources=...' ...]
        [--by-provider] [--top N] [--format table|json]

SHAPE names a ``[capacity] shape`` of the configuration (all of them
by default); ``--query`` adds a shape written on the command line. Each
is parsed as GET /allocation_candidates parses its query string at the
latest microversion (a bad one: the API's 400 message, exit code 1).
The numbers are /metrics' (objects.fill, one read): per tree, how many
times the shape can be claimed in a row, each claim the solver's first
candidate; the providers with the most room first, and on each the
class that ran out first.
"""
import sys

import prettytable

from placement.cmd import explain
from placement.handlers import allocation_candidate as ac_handler
from placement.handlers import capacity_shape
from placement.objects import fill

EXIT_OK, EXIT_BAD_SHAPE = 0, 1
FORMAT_VERSION = 1
DEFAULT_TOP = 5


def register(categories):
    """Add the capacity command to placement-manage's argparse
    ``categories``; returns its parser."""
    parser = categories.add_parser(
        'capacity', help='How many more of each request shape fit, tree '
                         'by tree ([capacity] shape, --query).')
    parser.add_argument('shapes', nargs='*', metavar='SHAPE',
                        help='A shape named in [capacity] shape (default: '
                             'every configured shape).')
    parser.add_argument('--query', action='append', default=[],
                        metavar='QUERY', help="A shape given as a query "
                        "string of GET /allocation_candidates, e.g. "
                        "'resources=VCPU:4,MEMORY_MB:8192'; may be "
                        "repeated.")
    parser.add_argument('--by-provider', action='store_true',
                        help='List every tree with room, not only the '
                             'top ones.')
    parser.add_argument('--top', type=int, default=DEFAULT_TOP,
                        metavar='N', help='How many providers to list per '
                        'shape (default %d).' % DEFAULT_TOP)
    parser.add_argument('--format', choices=('table', 'json'),
                        default='table', help='Output format.')
    parser.set_defaults(func=run, category_parser=parser)
    return parser


def chosen_shapes(conf, names, queries):
    """The Shapes asked for: the configured ones named (all when none is
    named and no --query is given), then the --query ones. Raises
    capacity_shape.ShapeError."""
    configured = capacity_shape.parse_options(conf.capacity.shape)
    by_name = {shape.name: shape for shape in configured}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise capacity_shape.ShapeError(
            'no [capacity] shape named %s (configured: %s)' % (
                ', '.join(unknown), ', '.join(by_name) or 'none'))
    shapes = [by_name[name] for name in names]
    if not names and not queries:
        shapes = list(configured)
    shapes += [capacity_shape.parse_query(text, text) for text in queries]
    if not shapes:
        raise capacity_shape.ShapeError(
            'no shape: configure [capacity] shape or give --query')
    return shapes


def run(db, conf, args):
    """The command: print the counts; the exit code."""
    try:
        shapes = chosen_shapes(conf, args.shapes, args.query)
    except capacity_shape.ShapeError as exc:
        return _bad(str(exc))
    fleet = fill.count_fleet(db, [(s.name, s.query) for s in shapes],
                             with_usage=False)
    for shape in fleet.shapes:
        if shape.error is not None:
            return _bad('shape %s: %s' % (shape.name, capacity_shape
                        .api_detail(ac_handler.unknown_name_error(
                            shape.error))))
    top = None if args.by_provider else max(0, args.top)
    explain.write(to_document(fleet, shapes, top), args.format, to_table)
    return EXIT_OK


def _bad(message):
    print('400 Bad Request: %s' % message, file=sys.stderr)
    return EXIT_BAD_SHAPE


def to_document(fleet, shapes, top):
    """The JSON document: per shape its total, how many trees have room
    and the providers (``top`` of them, None: all) with the most."""
    found = []
    for shape, counted in zip(shapes, fleet.shapes):
        ranked = sorted(counted.trees.items(),
                        key=lambda item: (-item[1].count, item[0]))
        if top is not None:
            ranked = ranked[:top]
        found.append({
            'name': shape.name, 'query': shape.query_string,
            'total': counted.total, 'trees_with_room': len(counted.trees),
            'trees': len(fleet.roots),
            'providers': [{
                'uuid': fleet.roots[root_id].uuid,
                'name': fleet.roots[root_id].name,
                'count': tree.count,
                'runs_out_first': tree.short_class,
            } for root_id, tree in ranked]})
    return {'format_version': FORMAT_VERSION, 'shapes': found}


def to_table(document):
    """The document as text tables, one per shape."""
    parts = []
    for shape in document['shapes']:
        parts.append('%s (%s): %d more fit, on %d of %d trees\n' % (
            shape['name'], shape['query'], shape['total'],
            shape['trees_with_room'], shape['trees']))
        if not shape['providers']:
            continue
        table = prettytable.PrettyTable(
            ['Provider', 'UUID', 'Fit', 'Runs out first'])
        table.align = 'l'
        table.align['Fit'] = 'r'
        for rp in shape['providers']:
            table.add_row([rp['name'], rp['uuid'], rp['count'],
                           rp['runs_out_first']])
        parts.append(table.get_string() + '\n')
    return '\n'.join(parts)
