"""The "Differences from upstream" page matches the allowlist it is made
from (tools/differential-allowlist.yaml), and the allowlist holds only
what issue 15 allows: cases where upstream answers 500, over-commits or
leaves a stray row.
"""
import os
import tempfile

import testtools

from tools.differential_lib import allowlist

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


class TestDifferencesPage(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.allowlist = allowlist
        self.entries = self.allowlist.load()

    def test_page_is_rendered_from_the_allowlist(self):
        with open(self.allowlist.DOC_PATH) as handle:
            page = handle.read()
        self.assertEqual(
            self.allowlist.render(self.entries), page,
            'doc page out of date: run tools/differential --write-doc')

    def test_page_is_in_the_toctree(self):
        with open(os.path.join(ROOT, 'doc', 'source', 'index.rst')) as f:
            self.assertIn('admin/differences-from-upstream', f.read())

    def test_only_allowed_categories(self):
        for entry in self.entries:
            self.assertIn(entry['category'], self.allowlist.CATEGORIES)

    def test_a_bad_category_is_refused(self):
        path = self._tempfile(
            '- {title: t, file: f, test: t, kind: k, category: nicer,'
            ' reason: r}\n')
        self.assertRaises(ValueError, self.allowlist.load, path)

    def test_match_by_file_test_and_kind(self):
        entries = [{'file': 'allocation-*.yaml', 'test': 'bad *',
                    'kind': 'status', 'category': 'stray-row'}]
        match = self.allowlist.match
        self.assertIs(entries[0], match(entries, 'allocation-post.yaml',
                                        'bad claim', 'status'))
        self.assertIsNone(match(entries, 'allocation-post.yaml',
                                'bad claim', 'body content'))
        self.assertIsNone(match(entries, 'inventory-put.yaml',
                                'bad claim', 'status'))

    def test_an_upstream_500_entry_needs_upstream_500(self):
        entries = [{'file': '*', 'test': '*', 'kind': '*',
                    'request': 'GET /usages?*', 'category': 'upstream-500'}]
        match = self.allowlist.match
        self.assertIsNotNone(match(entries, 'f.yaml', 't', 'status', '',
                                   'GET /usages?project_id=x',
                                   '500 Internal Server Error'))
        self.assertIsNone(match(entries, 'f.yaml', 't', 'status', '',
                                'GET /usages?project_id=x', '200 OK'))
        self.assertIsNone(match(entries, 'f.yaml', 't', 'status', '',
                                'GET /traits', '500 Internal Server Error'))

    def test_stray_rows_only(self):
        entries = [{'file': '*', 'test': '*', 'kind': 'rows *',
                    'category': 'stray-row', 'stray_rows_only': True}]
        match = self.allowlist.match
        self.assertIsNotNone(match(entries, 'f.yaml', 't', 'rows consumers',
                                   'only upstream: uuid=1'))
        self.assertIsNone(match(entries, 'f.yaml', 't', 'rows consumers',
                                'only ours:     uuid=1\n'
                                'only upstream: uuid=2'))

    def _tempfile(self, text):
        handle, path = tempfile.mkstemp(suffix='.yaml')
        with os.fdopen(handle, 'w') as out:
            out.write(text)
        self.addCleanup(os.unlink, path)
        return path
