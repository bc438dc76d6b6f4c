"""Every function of objects/ (its subpackages included) that opens a
transaction or a reader runs under the one retry policy: it is
decorated with ``db_api.operation``.
A new operation without it would answer 500 on a deadlock or a dead
node; this test names it instead.
"""
import ast
import pathlib

import testtools

import placement.objects

OPENERS = ('db_api.transaction(', 'db_api.reader(')


def _is_operation(decorator):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) == 'db_api.operation'


def _modules():
    """(dotted name under objects, path) of every module of objects/ and
    of its subpackages."""
    root = pathlib.Path(placement.objects.__file__).parent
    for path in sorted(root.rglob('*.py')):
        yield '.'.join(path.relative_to(root).with_suffix('').parts), path


def _unguarded():
    for name, path in _modules():
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            body = '\n'.join(ast.unparse(stmt) for stmt in node.body)
            if any(opener in body for opener in OPENERS) and not any(
                    _is_operation(dec) for dec in node.decorator_list):
                yield '%s.%s' % (name, node.name)


class OperationPolicyTest(testtools.TestCase):

    def test_every_transaction_runs_under_the_retry_policy(self):
        self.assertEqual([], list(_unguarded()))

    def test_the_check_reads_subpackages(self):
        # objects/candidates/ opens readers too (listing, explain).
        names = [name for name, _ in _modules()]
        self.assertIn('candidates.listing', names)
        self.assertIn('candidates.explain', names)

    def test_the_check_sees_operations(self):
        self.assertTrue(_is_operation(ast.parse(
            '@db_api.operation\ndef f(): pass').body[0].decorator_list[0]))
        self.assertTrue(_is_operation(ast.parse(
            "@db_api.operation(on_duplicate='retry')\ndef f(): pass"
        ).body[0].decorator_list[0]))
