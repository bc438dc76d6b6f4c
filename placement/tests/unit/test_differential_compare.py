"""tools/differential's comparison of two answers (differential_lib/compare):
a Content-Length that differs only by the width of a normalised timestamp
is no difference; any other is.
"""
import testtools

from placement.tests.unit import test_differences_doc

compare = test_differences_doc.tool_module('compare')

OURS = '{"detail": "[parameters: {\'created_at\': datetime.datetime(2026, 11, 24, 23, 3, 5)}]"}'  # noqa: E501
UPSTREAM = '{"detail": "[parameters: {\'created_at\': datetime.datetime(2026, 11, 24, 22, 51, 14, 63969)}]"}'  # noqa: E501


def _answer(body, length=None):
    length = len(body) if length is None else length
    return compare.Answer('409 Conflict', [('content-length', str(length))],
                          body)


class TestContentLength(testtools.TestCase):

    def test_width_of_a_normalised_timestamp_is_no_difference(self):
        self.assertEqual([], compare.differences(
            _answer(OURS), _answer(UPSTREAM), compare.UuidMap()))

    def test_another_length_is_a_difference(self):
        found = compare.differences(
            _answer(OURS), _answer(UPSTREAM, len(UPSTREAM) + 1),
            compare.UuidMap())
        self.assertEqual(['header content-length value'],
                         [kind for kind, _ in found])
