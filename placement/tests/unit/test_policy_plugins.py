"""oslo.policy's plugin checks (http:, https:) load only when a check
string uses them, and then behave as oslo.policy's own loading makes
them."""
import subprocess
import sys

import testtools

_PROBE = """
import sys
from oslo_policy import _parser
from placement import policies
policies.list_rules()
print('requests' in sys.modules)
checks = [_parser.parse_rule(rule) for rule in (
    'role:admin', 'rule:admin_api', 'http://127.0.0.1:1/check',
    'https://127.0.0.1:1/check')]
print(','.join(type(check).__name__ for check in checks))
print('requests' in sys.modules)
"""


class PluginChecksTest(testtools.TestCase):

    def test_loaded_on_first_use(self):
        out = subprocess.run([sys.executable, '-c', _PROBE],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual(
            ['False', 'RoleCheck,RuleCheck,HttpCheck,HttpsCheck', 'True'],
            out.stdout.split())
