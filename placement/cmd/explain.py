"""placement-manage allocation_candidates explain: why a candidates query
gives what it gives.

    placement-manage allocation_candidates explain 'QUERY STRING'
        [--microversion 1.39] [--provider UUID ...] [--format table|json]

The query string is parsed and validated as GET /allocation_candidates
does (the same 400 messages, printed, exit code 1), with the same
[placement] options and solver, over the configured database in one
read transaction (objects.candidates.explain). Exit code 0 otherwise.
"""
import sys

import orjson
import os_resource_classes
import os_traits
import webob
import webob.exc

from placement import exception
from placement.handlers import allocation_candidate as ac_handler
from placement.handlers import querystring
from placement import microversion
from placement.objects.candidates import explain as candidate_explain
from placement.schemas import allocation_candidate as schema
from placement.solver import reasons
from placement import util

EXIT_OK, EXIT_BAD_QUERY = 0, 1
FORMAT_VERSION = 1


def register(categories):
    """Add the allocation_candidates category to placement-manage's
    argparse ``categories``; returns its parser."""
    parser = categories.add_parser(
        'allocation_candidates', help='Allocation candidate commands.')
    commands = parser.add_subparsers(title='commands', dest='command',
                                     metavar='<command>')
    explain = commands.add_parser(
        'explain', help='Explain the answer of GET /allocation_candidates '
                        'for a query string: how many candidates, and '
                        'which checks removed which providers.')
    explain.add_argument('query', metavar='QUERY',
                         help="The query string, e.g. "
                              "'resources=VCPU:2&required=HW_CPU_X86_AVX2'.")
    explain.add_argument('--microversion', default='1.39',
                         metavar='X.Y', help='The microversion to ask '
                         'at (default 1.39, at least 1.10).')
    explain.add_argument('--provider', action='append', default=[],
                         metavar='UUID', help='Explain this provider (and '
                         'its tree, for a root); may be repeated.')
    explain.add_argument('--format', choices=('table', 'json'),
                         default='table', help='Output format.')
    explain.set_defaults(func=run)
    parser.set_defaults(category_parser=parser)
    return parser


class BadQuery(Exception):
    """A query the API would answer with this 400 message."""


def parse(query_string, version_text):
    """(CandidateQuery, Version) of a query string, or BadQuery with the
    API's message."""
    try:
        mv = microversion.parse_version(version_text)
    except Exception:
        mv = None
    if mv is None or not (microversion.ALLOCATION_CANDIDATES <= mv
                          <= microversion.MAX_VERSION):
        raise BadQuery('--microversion must be between %s and %s, got %s'
                       % (microversion.ALLOCATION_CANDIDATES,
                          microversion.MAX_VERSION, version_text))
    req = webob.Request.blank('/allocation_candidates?' + query_string)
    try:
        params = util.validate_query(req, schema.GET_SCHEMA.at(mv))
        return querystring.parse_candidate_query(
            params, mv, util.query_pairs(req)), mv
    except webob.exc.HTTPException as exc:
        raise BadQuery(api_detail(exc))


def api_detail(exc):
    """The message of ``exc`` as the API's JSON error body spells it: the
    error formatter strips tags and turns line breaks into spaces."""
    return webob.exc.strip_tags(exc.detail)


def run(db, conf, args):
    """The command: print the explanation; the exit code."""
    try:
        query, mv = parse(args.query, args.microversion)
        uuids = [_provider_uuid(value) for value in args.provider]
        result = candidate_explain.explain(
            db, query, ac_handler.solver_options(conf), uuids)
    except (exception.ResourceClassNotFound, exception.TraitNotFound) as exc:
        return _bad(api_detail(ac_handler.unknown_name_error(exc))
                    + _standard_names_hint(exc))
    except BadQuery as exc:
        return _bad(str(exc))
    write(to_document(result, args.query, mv, args.provider), args.format,
          to_table)
    return EXIT_OK


def write(document, fmt, table):
    """``document`` on stdout: indented JSON for ``fmt`` 'json', else
    ``table(document)`` (the admin commands' two formats)."""
    if fmt == 'json':
        sys.stdout.write(orjson.dumps(
            document, option=orjson.OPT_INDENT_2).decode() + '\n')
    else:
        sys.stdout.write(table(document))


def _provider_uuid(value):
    if not util.is_uuid_like(value):
        raise BadQuery('--provider expects a provider uuid, got %s' % value)
    return util.normalize_uuid(value)


_NO_STANDARD_ROWS = (
    ' %s is standard, but this database has no row for it yet: the '
    'placement service writes the standard resource classes and traits '
    'when it starts, and so does "placement-manage db sync" (run it once).')


def _standard_names_hint(exc):
    """Why a standard class or trait is unknown (a database synced by an
    older db sync and never served), or ''."""
    names = exc.kwargs.get('names') or exc.kwargs.get('name') or ''
    known = set(os_resource_classes.STANDARDS) | set(os_traits.get_traits())
    standard = [name for name in str(names).replace(',', ' ').split()
                if name in known]
    return _NO_STANDARD_ROWS % ', '.join(standard) if standard else ''


def _bad(message):
    print('400 Bad Request: %s' % message, file=sys.stderr)
    return EXIT_BAD_QUERY


# --- the document ----------------------------------------------------------

def _plain(value):
    if isinstance(value, (tuple, list, frozenset)):
        return [_plain(v) for v in value]
    return value


def _step(result, with_providers=True):
    step = result.step
    item = {'step': step.kind, 'label': reasons.label(step)}
    if step.subject is not None:
        item['subject'] = _plain(step.subject)
    if step.amount is not None:
        item['amount'] = step.amount
    if with_providers:
        item['providers'] = result.providers
        item['providers_removed'] = result.providers_removed
    item['trees'] = result.trees
    item['trees_removed'] = result.trees_removed
    if result.most_free is not None:
        item['most_free'] = result.most_free
    return item


def _cross_step(result):
    item = _step(result, with_providers=False)
    if result.step.kind == 'sharing':
        item['trees_reached'] = result.note
    if result.step.kind == 'limit':
        item.update(limit=result.step.subject,
                    candidates_found=result.note,
                    candidates=result.candidates)
        item.pop('subject', None)
    return item


def to_document(result, query_string, mv, asked=()):
    """The explanation as the stable JSON document (doc/source/cli)."""
    explanation = result.explanation
    document = {
        'format_version': FORMAT_VERSION,
        'query': query_string,
        'microversion': str(mv),
        'candidates': explanation.count,
        'root_providers': len(explanation.roots),
        'providers': len(explanation.snapshot.providers),
        'groups': [{'suffix': funnel.group.suffix,
                    'steps': [_step(r) for r in funnel.results]}
                   for funnel in explanation.funnels],
        'across_groups': [_cross_step(r) for r in explanation.cross],
        'reasons': [{'text': text, 'trees': count}
                    for text, count in reasons.reason_counts(explanation)],
        'summary': reasons.summary(explanation),
    }
    if asked:
        document['provider_reports'] = [
            report if report is not None else {
                'uuid': uuid, 'error': 'no resource provider with this uuid'}
            for uuid, report in zip(asked, result.providers)]
    return document


# --- the table ---------------------------------------------------------------

def _n(value):
    return '' if value is None else format(value, ',')


def _count(value, one, many):
    return '%s %s' % (_n(value), one if value == 1 else many)


def _group_title(group):
    parts = []
    suffix = group['suffix']
    for step in group['steps']:
        if step['step'] == 'inventory':
            parts.append('%s:%d' % (step['subject'], step['amount']))
    text = 'resources%s=%s' % (suffix, ','.join(parts)) if parts else (
        'resourceless')
    return 'Group %s: %s' % (suffix or '(unsuffixed)', text)


def to_table(document):
    """The document as text: the count, the funnels, the summary."""
    lines = ['Candidates: %s (what GET /allocation_candidates returns now,'
             ' microversion %s)' % (_n(document['candidates']),
                                    document['microversion']),
             'Providers: %s in %s' % (
                 _n(document['providers']),
                 _count(document['root_providers'], 'tree', 'trees')),
             '']
    row = '  %-52s %10s %9s %9s %9s  %s'
    for group in document['groups']:
        lines.append(_group_title(group))
        lines.append((row % ('step', 'providers', 'removed', 'trees',
                             'removed', '')).rstrip())
        for step in group['steps']:
            extra = ('most free: %s' % _n(step['most_free'])
                     if 'most_free' in step else '')
            lines.append((row % (
                step['label'][:52], _n(step['providers']),
                _n(step['providers_removed']), _n(step['trees']),
                _n(step['trees_removed']), extra)).rstrip())
        lines.append('')
    lines += _cross_lines(document) + ['', 'Summary: ' + document['summary']]
    for report in document.get('provider_reports', ()):
        lines += [''] + _report_lines(report)
    return '\n'.join(lines) + '\n'


def _cross_lines(document):
    row = '  %-52s %10s %9s %9s %9s  %s'
    lines = ['Across the groups', (row % ('step', '', '', 'trees',
                                          'removed', '')).rstrip()]
    for step in document['across_groups']:
        extra = ''
        if step['step'] == 'sharing':
            extra = '%s of them reached through aggregates' % _n(
                step['trees_reached'])
        if step['step'] == 'limit':
            extra = 'candidates: %s of %s found (cap: %s)' % (
                _n(step['candidates']), _n(step['candidates_found']),
                'none' if step['limit'] is None else _n(step['limit']))
        lines.append((row % (step['label'][:52], '', '', _n(step['trees']),
                             _n(step['trees_removed']), extra)).rstrip())
    return lines


def _report_lines(report):
    lines = ['Provider %s' % report['uuid']]
    if 'error' in report:
        return lines + ['  ' + report['error']]
    for group in report['groups']:
        name = group['group'] or '(unsuffixed)'
        texts = []
        for check in group['checks']:
            if check['text'] not in texts:
                texts.append(check['text'])
        lines += ['  group %s: %s' % (name, text) for text in texts]
    if report['tree'] is not None:
        lines.append('  tree: %s' % report['tree']['text'])
    lines.append('  appears in %s' % _count(
        report['candidates'], 'candidate', 'candidates'))
    return lines
