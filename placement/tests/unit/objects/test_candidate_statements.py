"""The constants candidates.statements writes into its SQL text: each
checked where it is written to need no quoting."""
import unittest

import sqlalchemy as sa

from placement.objects.candidates import statements


class KindTest(unittest.TestCase):

    def test_a_kind_letter_is_a_constant_of_the_statement(self):
        compiled = str(sa.select(statements._kind('p')).compile(
            compile_kwargs={'literal_binds': True}))
        self.assertIn("'p' AS kind", compiled)

    def test_anything_but_one_lower_case_letter_is_refused(self):
        for odd in ("p'", "'", 'pp', 'P', '', '\\', '%s', 1, None,
                    '\u00e9'):
            with self.assertRaises(ValueError, msg=repr(odd)):
                statements._kind(odd)

    def test_every_kind_the_module_uses_is_a_letter(self):
        for kind in (statements.PROVIDER, statements.USAGE):
            statements._kind(kind)
