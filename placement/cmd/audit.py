"""placement-manage audit: report (and with --fix, repair) stored data.

    placement-manage ... audit [--format table|json] [--fix]

The checks, their severities and repairs are declared in
``objects.audit``; this module only registers the command, runs the
operations and renders what they return. Exit status, as
placement-status: 0 nothing found (or all repaired), 1 warnings remain,
2 failures remain, 255 the audit could not run.
"""
import json
import sys

from oslo_log import log as logging
import prettytable

from placement.objects import audit

LOG = logging.getLogger(__name__)

EXIT_CLEAN, EXIT_WARNING, EXIT_FAILURE, EXIT_ERROR = 0, 1, 2, 255
REPAIRED, SKIPPED, FAILED = 'repaired', 'skipped', 'failed'
# Long details wrap in the table (the JSON keeps them whole).
DETAILS_WIDTH = 60


def _plural(count, noun):
    return '%d %s%s' % (count, noun, '' if count == 1 else 's')


def _over_capacity(d):
    return ('%(resource_class)s: %(used)d used > capacity %(capacity)d = '
            '(%(total)d - %(reserved)d) x %(allocation_ratio)s' % d)


def _consumer_list(uuids, shown=3):
    more = len(uuids) - shown
    return ', '.join(uuids[:shown]) + (' and %d more' % more
                                       if more > 0 else '')


def _without_inventory(d):
    if 'missing_provider_id' in d:
        where = 'provider row %d does not exist' % d['missing_provider_id']
    else:
        where = 'the provider has no %s inventory' % d['resource_class']
    return '%d %s used by %s (%s), but %s' % (
        d['used'], d['resource_class'],
        _plural(len(d['consumers']), 'consumer'),
        _consumer_list(d['consumers']), where)


def _generation(d):
    if d['generation'] < 0:
        return 'generation %d is negative' % d['generation']
    if 'proof' in d:
        return 'generation %d, but its %s prove a bump (minimum %d)' % (
            d['generation'], ' and '.join(d['proof']), d['minimum'])
    return ('generation %d, but an allocation created %s after the '
            'consumer (%s) proves a bump (minimum %d)' % (
                d['generation'], d['last_allocation_created_at'],
                d['created_at'], d['minimum']))


MESSAGES = {
    'over_capacity': _over_capacity,
    'allocation_without_inventory': _without_inventory,
    'empty_consumer': lambda d: (
        'no allocations (generation %(generation)s, project %(project_id)s, '
        'user %(user_id)s)' % d),
    'incomplete_consumer': lambda d: '%s on %s, no consumer record' % (
        _plural(d['allocations'], 'allocation'),
        _plural(d['resource_providers'], 'provider')),
    'consumer_project_missing': lambda d: (
        'project row %(project_internal_id)s does not exist' % d),
    'consumer_user_missing': lambda d: (
        'user row %(user_internal_id)s does not exist' % d),
    'root_provider_missing': lambda d: 'root_provider_id is NULL',
    'root_not_own_root': lambda d: 'no parent, but its root is %s' % (
        d['root_provider_uuid'] or 'row %s' % d['root_provider_id']),
    'parent_missing': lambda d: (
        'parent row %(parent_provider_id)s does not exist' % d),
    'parent_in_other_tree': lambda d: (
        'root %(root_provider_uuid)s, but its parent %(parent_provider_uuid)s'
        ' has root %(parent_root_provider_uuid)s' % d),
    'tree_cycle': lambda d: 'parent links form a cycle: %s' % ' -> '.join(
        d['cycle'] + d['cycle'][:1]),
    'provider_generation_null': lambda d: (
        'generation is NULL: every write to it fails with a conflict'),
    'provider_generation_backwards': _generation,
    'consumer_generation_backwards': _generation,
}


def _repair_message(finding, result, owner):
    kind = audit.CHECK_BY_NAME[finding.check]
    if result == REPAIRED and kind.repair == 'remove_consumer':
        return 'Removed empty consumer %s.' % finding.subject
    if result == REPAIRED:
        return 'Created consumer record for %s (project %s, user %s).' % (
            finding.subject, owner.project_id, owner.user_id)
    if result == SKIPPED:
        return 'Skipped %s %s: it changed since the audit.' % (
            finding.check, finding.subject)
    return 'Failed to repair %s %s; see the log.' % (
        finding.check, finding.subject)


def _repair(db, finding, owner):
    """Run one repair in its own transaction; its result name."""
    try:
        return REPAIRED if audit.repair(db, finding, owner) else SKIPPED
    except Exception:
        LOG.exception('Repair of %s %s failed', finding.check,
                      finding.subject)
        return FAILED


def _entry(finding):
    """The JSON form of one finding (before any repair)."""
    kind = audit.CHECK_BY_NAME[finding.check]
    return {'check': finding.check, 'severity': kind.severity,
            'subject_type': kind.subject_type, 'subject': finding.subject,
            'message': MESSAGES[finding.check](finding.details),
            'details': finding.details,
            'repairable': kind.repair is not None, 'repair': None}


def _summary(entries):
    left = [entry for entry in entries
            if (entry['repair'] or {}).get('result') != REPAIRED]
    return {
        'failures': sum(entry['severity'] == audit.FAILURE for entry in left),
        'warnings': sum(entry['severity'] == audit.WARNING for entry in left),
        'repaired': len(entries) - len(left),
    }


def exit_code(summary):
    """0 clean, 1 warnings remain, 2 failures remain."""
    if summary['failures']:
        return EXIT_FAILURE
    return EXIT_WARNING if summary['warnings'] else EXIT_CLEAN


def _print_table(entries):
    table = prettytable.PrettyTable(['Severity', 'Check', 'Subject',
                                     'Details'])
    table.align = 'l'
    table.max_width['Details'] = DETAILS_WIDTH
    for entry in entries:
        table.add_row([entry['severity'], entry['check'],
                       entry['subject'] or '-', entry['message']])
    print(table)


def _summary_line(summary, repairable, fixed):
    text = '%s, %s' % (_plural(summary['failures'], 'failure'),
                       _plural(summary['warnings'], 'warning'))
    if fixed:
        return 'Repaired %d of %d; remaining: %s.' % (
            summary['repaired'], repairable, text)
    if repairable:
        return '%s (%d can be repaired with --fix).' % (text, repairable)
    return text + '.'


def _gone_with_removed_consumers(entries):
    """Mark the other findings about a consumer that a repair removed
    (a missing project row, say) as repaired: their subject is gone."""
    removed = {entry['subject'] for entry in entries
               if entry['check'] == 'empty_consumer'
               and (entry['repair'] or {}).get('result') == REPAIRED}
    for entry in entries:
        if (entry['repair'] is None and entry['subject'] in removed
                and entry['subject_type'] == audit.CONSUMER):
            entry['repair'] = {'result': REPAIRED, 'message': (
                'Gone with the removed consumer %s.' % entry['subject'])}


def _fix(db, conf, findings, entries, show):
    """Repair each fixable finding in its own transaction, in order,
    calling ``show`` with one line per repair."""
    owner = audit.IncompleteOwner(
        conf.placement.incomplete_consumer_project_id,
        conf.placement.incomplete_consumer_user_id)
    for finding, entry in zip(findings, entries):
        if not entry['repairable']:
            continue
        result = _repair(db, finding, owner)
        entry['repair'] = {'result': result, 'message': _repair_message(
            finding, result, owner)}
        show(entry['repair']['message'])
    _gone_with_removed_consumers(entries)


def _line(text):
    print(text)
    sys.stdout.flush()


def run(db, conf, args):
    """The ``audit`` command: report, maybe repair; the exit status."""
    try:
        findings = audit.audit(db)
    except Exception as exc:
        LOG.debug('audit failed', exc_info=True)
        print('placement-manage: error: audit failed: %s'
              % (str(exc).splitlines() or [type(exc).__name__])[0],
              file=sys.stderr)
        return EXIT_ERROR
    entries = [_entry(finding) for finding in findings]
    as_table = args.format == 'table'
    if as_table and entries:
        _print_table(entries)
    if args.fix:
        _fix(db, conf, findings, entries,
             _line if as_table else lambda text: None)
    summary = _summary(entries)
    code = exit_code(summary)
    if not as_table:
        print(json.dumps({'findings': entries, 'summary': summary,
                          'exit_code': code}, indent=2))
    elif not entries:
        print('No inconsistencies found.')
    else:
        repairable = sum(entry['repairable'] for entry in entries)
        print(_summary_line(summary, repairable, args.fix))
    return code


def register(categories):
    """Add the ``audit`` command to placement-manage's categories."""
    parser = categories.add_parser(
        'audit', help='Report inconsistent stored data; --fix repairs what '
                      'is safe.',
        description='List what is inconsistent in the stored data. Exit '
                    'status: 0 clean, 1 warnings, 2 failures, 255 the '
                    'audit could not run.')
    parser.add_argument('--format', choices=('table', 'json'),
                        default='table', help='Output format (default: '
                                              'table).')
    parser.add_argument('--fix', action='store_true',
                        help='Repair what is safe (remove empty consumers, '
                             'create missing consumer records), each in '
                             'its own transaction.')
    parser.set_defaults(func=run)
