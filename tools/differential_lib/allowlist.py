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

``render`` makes doc/source/admin/differences-from-upstream.rst; a unit
test checks that the page in the tree is what it renders.
"""
import fnmatch
import os

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PATH = os.path.join(ROOT, 'tools', 'differential-allowlist.yaml')
DOC_PATH = os.path.join(ROOT, 'doc', 'source', 'admin',
                        'differences-from-upstream.rst')
CATEGORIES = {
    'upstream-500': 'upstream answers 500 Internal Server Error',
    'over-commit': 'upstream over-commits a provider',
    'stray-row': 'upstream leaves a stray row in the database',
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

.. This page is generated from tools/differential-allowlist.yaml by
   ``tools/differential --write-doc``; edit the allowlist, not this page.

This service answers every request as the upstream Placement release
does: the same status, headers, body (key order, list order and error
texts included) and the same rows in the database, so that it can replace
upstream, and upstream can replace it again, on the same database.
``tools/differential`` checks this by replaying the whole functional test
suite against both services and comparing every answer and every table.

Two lists have no order to copy: upstream's own order changes with the
string hash seed of its Python process (it differs after a restart, and
repeats when upstream is started twice with the same ``PYTHONHASHSEED``).
They are the ``allocation_requests`` of ``GET /allocation_candidates``
(with the order of the uuids in each ``mappings`` list, and so, under a
``limit``, which candidates come back) and the ``aggregates`` of ``GET
/resource_providers/{uuid}/aggregates``. ``tools/differential`` accepts
for these any answer upstream could give under some seed: the same
candidates or aggregates in any order, each candidate spelled byte for
byte; with ``limit=N``, N of the candidates upstream gives without the
limit, with the provider summaries of those. Nothing else is compared
order-free.

It differs on purpose only where upstream answers ``500 Internal Server
Error``, over-commits a provider or leaves a stray row behind. Those cases
are listed here.
"""


def render(entries):
    """The reStructuredText of the doc page."""
    parts = [INTRO]
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
