"""The allowlist of deliberate differences, and the doc page made from it.

The allowlist (tools/differential-allowlist.yaml) is a YAML list; each
entry names where the difference shows and why we keep it:

- ``title``: one line for the doc page;
- ``file``: a glob for the gabbi file; ``test``: a glob for the test
  name; ``kind``: a glob for the difference kind (``status``, ``body
  content``, ``rows allocations``...); each may be a list of globs;
- ``category``: why upstream's answer is not followed, one of
  ``CATEGORIES``;
- ``reason``: the explanation (reStructuredText) for the doc page;
- ``request`` (optional): a glob for the request line (``GET /usages*``);
- ``stray_rows_only`` (optional, for ``rows ...`` kinds): allow only
  rows that upstream has and we do not, never a row that differs.

An ``upstream-500`` entry allows a difference only where upstream's
answer was a 500, so a broad pattern cannot hide anything else.

``render`` makes doc/source/admin/differences-from-upstream.rst, with
the table of list orders of ``lists``; a unit test checks that the page
in the tree is what it renders.
"""
import fnmatch
import os

import yaml

from tools.differential_lib import lists

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PATH = os.path.join(ROOT, 'tools', 'differential-allowlist.yaml')
DOC_PATH = os.path.join(ROOT, 'doc', 'source', 'admin',
                        'differences-from-upstream.rst')
CATEGORIES = {
    'upstream-500': 'upstream answers 500 Internal Server Error',
    'over-commit': 'upstream over-commits a provider',
    'stray-row': 'upstream leaves a stray row in the database',
    'body-limit': 'upstream reads a request body of any size',
    'driver-text': "upstream's detail quotes its own database driver",
}
FIELDS = ('title', 'file', 'test', 'kind', 'category', 'reason')


def load(path=PATH):
    with open(path) as handle:
        entries = yaml.safe_load(handle) or []
    for number, entry in enumerate(entries, 1):
        missing = [field for field in FIELDS if field not in entry]
        if missing:
            raise ValueError('allowlist entry %d lacks %s'
                             % (number, ', '.join(missing)))
        if entry['category'] not in CATEGORIES:
            raise ValueError('allowlist entry %d: category %r is not one '
                             'of %s' % (number, entry['category'],
                                        ', '.join(sorted(CATEGORIES))))
    return entries


def match(entries, file, test, kind, detail='', request='',
          upstream_status=''):
    """The first entry that allows this difference, or None."""
    for entry in entries:
        if entry.get('stray_rows_only') and 'only ours' in detail:
            continue
        if (entry['category'] == 'upstream-500'
                and not upstream_status.startswith('500')):
            continue
        if not fnmatch.fnmatchcase(request, entry.get('request', '*')):
            continue
        if (_any(file, entry['file']) and _any(test, entry['test'])
                and _any(kind, entry['kind'])):
            return entry
    return None


def _globs(value):
    return [value] if isinstance(value, str) else list(value)


def _any(text, patterns):
    return any(fnmatch.fnmatchcase(text, p) for p in _globs(patterns))


INTRO = """\
=========================
Differences from upstream
=========================

.. This page is generated from tools/differential-allowlist.yaml and
   tools/differential_lib/lists.py by ``tools/differential --write-doc``;
   edit those, not this page.

This service answers every request as the upstream Placement release
does, so that it can replace upstream, and upstream can replace it again,
on the same database. "As upstream does" means:

- the same status;
- the same set of headers with the same values (their order is not part
  of it);
- the body equal as a JSON value: the order of the members of an object
  and whitespace are not part of it (``Content-Length`` differs with the
  whitespace);
- the same error title, code and detail text;
- the same rows and generations in the database;
- the order of a list where the order carries meaning: documented orders,
  orders clients act on, and simple stable orders upstream always gives.

An order that depends on which plan upstream's database picks (the
heap's order, a hash join, an index) or on the string hash seed of its
Python process is not part of it: this service gives a stable order
instead, and ``tools/differential``, which replays the whole functional
test suite against both services and compares every answer and every
table, compares such lists as multisets (the same items, in any order).
The lists, one by one:

"""

LISTS_END = """
Under a ``limit`` (or ``[placement] max_allocation_candidates``) which
candidates upstream returns follows its hash seed too: there N of the
candidates upstream gives without the limit, with the provider summaries
of those, are accepted.

A GET ``/allocation_candidates`` naming several unknown traits in one
``required=in:`` list (or several forbidden ones) is refused with one of
them named, and which one upstream names follows its hash seed as well;
this service names the first written. Elsewhere both name the same
unknown class or trait: the first in the order upstream checks them
(``root_required``, then group by group in the order the query first
names each group, a group's classes before its traits), and both answer
empty, not 400, when a group checked before the unknown name matches
nothing.

It differs on purpose only where upstream answers ``500 Internal Server
Error``, over-commits a provider or leaves a stray row behind. Those cases
are listed here.
"""


def render_lists(rules):
    """The reStructuredText table of ``lists.LISTS``."""
    rows = [('Request', 'List', 'Compared', 'Ours', 'Upstream')]
    for rule in rules:
        if rule.route == '*':
            request = 'every answer'
        else:
            request = '%s ``%s``' % (
                'any' if rule.methods == '*' else rule.methods, rule.route)
        rows.append((request, '``%s``' % rule.path,
                     'in order' if rule.order == lists.ORDERED
                     else 'as a multiset', rule.ours, rule.upstream))
    lines = ['.. list-table::', '   :header-rows: 1', '']
    for row in rows:
        lines.append('   * - %s' % row[0])
        lines.extend('     - %s' % cell for cell in row[1:])
    return '\n'.join(lines) + '\n'


def render(entries):
    """The reStructuredText of the doc page."""
    parts = [INTRO, render_lists(lists.LISTS), LISTS_END]
    if not entries:
        parts.append('\nThere are none at present: every request of the '
                     'functional test suite\ngets the same answer from '
                     'both services.\n')
    for entry in entries:
        title = entry['title'].strip()
        parts.append('\n%s\n%s\n\n' % (title, '-' * len(title)))
        parts.append('*Why:* %s.\n\n' % CATEGORIES[entry['category']])
        parts.append(entry['reason'].strip() + '\n')
        if entry.get('request'):
            parts.append('\n*Requests:* ``%s``\n' % entry['request'])
        parts.append('\n*Seen in* %s, tests:\n\n' % ', '.join(
            '``%s``' % name for name in _globs(entry['file'])))
        parts.extend('- %s\n' % test for test in _globs(entry['test']))
    return ''.join(parts)
