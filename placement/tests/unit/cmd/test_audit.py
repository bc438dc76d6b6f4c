"""The audit command's rendering: messages, summary, exit status."""
import unittest

from placement.cmd import audit as audit_cmd
from placement.objects import audit


class RenderTests(unittest.TestCase):

    def test_every_check_has_a_message(self):
        self.assertEqual(sorted(check.name for check in audit.CHECKS),
                         sorted(audit_cmd.MESSAGES))

    def test_only_consumer_checks_are_repairable(self):
        self.assertEqual(
            {'empty_consumer': 'remove_consumer',
             'incomplete_consumer': 'create_consumer'},
            {check.name: check.repair for check in audit.CHECKS
             if check.repair})

    def test_allocations_against_a_vanished_provider(self):
        finding = audit.Finding('allocation_without_inventory', None, {
            'resource_class': 'VCPU', 'used': 5, 'missing_provider_id': 7,
            'consumers': ['c1', 'c2', 'c3', 'c4', 'c5']})
        self.assertEqual(
            '5 VCPU used by 5 consumers (c1, c2, c3 and 2 more), but '
            'provider row 7 does not exist',
            audit_cmd._entry(finding)['message'])

    def test_exit_status_follows_the_worst_remaining_finding(self):
        cases = [((0, 0), 0), ((0, 3), 1), ((1, 0), 2), ((2, 5), 2)]
        for (failures, warnings), code in cases:
            self.assertEqual(code, audit_cmd.exit_code(
                {'failures': failures, 'warnings': warnings,
                 'repaired': 0}))

    def test_repaired_findings_no_longer_count(self):
        entries = [
            {'severity': 'warning', 'repair': {'result': 'repaired'}},
            {'severity': 'warning', 'repair': {'result': 'skipped'}},
            {'severity': 'failure', 'repair': None},
        ]
        self.assertEqual({'failures': 1, 'warnings': 1, 'repaired': 1},
                         audit_cmd._summary(entries))

    def test_summary_lines(self):
        summary = {'failures': 1, 'warnings': 2, 'repaired': 0}
        self.assertEqual('1 failure, 2 warnings (2 can be repaired with '
                         '--fix).', audit_cmd._summary_line(summary, 2,
                                                            False))
        self.assertEqual('1 failure, 2 warnings.',
                         audit_cmd._summary_line(summary, 0, False))
        self.assertEqual('Repaired 0 of 2; remaining: 1 failure, 2 '
                         'warnings.',
                         audit_cmd._summary_line(summary, 2, True))
