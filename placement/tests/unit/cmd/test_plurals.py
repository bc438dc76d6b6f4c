"""Counts in the command-line outputs agree with their nouns."""
import unittest

from placement.cmd import explain
from placement.cmd import manage
from placement.cmd import status


def _document(providers, roots):
    return {'candidates': 0, 'microversion': '1.39', 'providers': providers,
            'root_providers': roots, 'groups': [], 'across_groups': [],
            'summary': '0 candidates'}


class PluralTest(unittest.TestCase):

    def test_explain_counts_trees(self):
        self.assertIn('Providers: 1 in 1 tree\n',
                      explain.to_table(_document(1, 1)))
        self.assertIn('Providers: 3 in 2 trees\n',
                      explain.to_table(_document(3, 2)))
        self.assertIn('Providers: 0 in 0 trees\n',
                      explain.to_table(_document(0, 0)))

    def test_status_there_is_one_there_are_two(self):
        self.assertEqual('There is 1 resource provider', status._there_are(
            1, 'resource provider', 'resource providers'))
        self.assertEqual('There are 2 resource providers', status._there_are(
            2, 'resource provider', 'resource providers'))

    def test_manage_plural(self):
        self.assertEqual(['row', 'rows', 'rows'], [
            manage._plural(n, 'row', 'rows') for n in (1, 2, 0)])
