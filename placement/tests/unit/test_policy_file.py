"""Policy files (YAML and JSON, reloaded when changed), the verdicts
the service remembers, the old option names, and a system-scope file.
Shared personas and helpers: test_policy.
"""
import json
import os
import time

from oslo_config import cfg
import yaml

from placement import conf as placement_conf
from placement import exception
from placement import policy
from placement.tests.unit import test_policy as base


class TestPolicyFile(base.PolicyTestCase):

    LIST = 'placement:resource_providers:list'

    def test_yaml_file_overrides_a_rule(self):
        path = self.write('policy.yaml', '"%s": "role:reader"\n' % self.LIST)
        conf, enforcer = self.enforcer('secure', path)
        self.assertEqual(
            {'project admin', 'project member', 'project reader',
             'other project'},
            self.allowed_personas(conf, enforcer, self.LIST))

    def test_json_file_overrides_a_rule(self):
        path = self.write('policy.json', json.dumps({self.LIST: '@'}))
        conf, enforcer = self.enforcer('secure', path)
        self.assertEqual(
            {'project admin', 'project member', 'project reader',
             'other project', 'service', 'no roles'},
            self.allowed_personas(conf, enforcer, self.LIST))

    def test_a_relative_file_is_found_next_to_the_config_file(self):
        self.write('mypolicy.yaml', '"%s": "!"\n' % self.LIST)
        config = self.write('placement.conf',
                            '[oslo_policy]\npolicy_file = mypolicy.yaml\n')
        conf = cfg.ConfigOpts()
        placement_conf.register_opts(conf)
        conf(['--config-file', config], project='placement',
             default_config_files=[])
        enforcer = policy.build_enforcer(conf)
        self.assertEqual(set(),
                         self.allowed_personas(conf, enforcer, self.LIST))

    def test_a_missing_file_leaves_the_defaults(self):
        conf, enforcer = self.enforcer(
            'secure', os.path.join(self.tempdir, 'absent.yaml'))
        self.assertEqual({'project admin', 'service'},
                         self.allowed_personas(conf, enforcer, self.LIST))

    def test_changes_to_the_file_are_picked_up(self):
        path = self.write('policy.yaml', '"%s": "role:reader"\n' % self.LIST)
        conf, enforcer = self.enforcer('secure', path)
        reader = base.make_context(conf, enforcer, 'project reader')
        self.assertTrue(base.is_allowed(reader, self.LIST))
        self.write('policy.yaml', '"%s": "role:admin"\n' % self.LIST)
        later = time.time() + 5
        os.utime(path, (later, later))
        # Looked at again RELOAD_CHECK_SECONDS after the last look.
        policy._verdicts_of(enforcer).checked_at -= (
            policy.RELOAD_CHECK_SECONDS)
        # The reader's earlier verdict was remembered, and is forgotten
        # with the rules it came from.
        self.assertFalse(base.is_allowed(reader, self.LIST))
        self.assertEqual(0, len(policy._verdicts_of(enforcer).allowed))

    def test_the_manuals_misspelled_reshape_name_is_ignored(self):
        # As upstream: no rule has that name, so the default stays.
        path = self.write('policy.yaml',
                          '"placement:resaper:reshape": "role:reader"\n')
        conf, enforcer = self.enforcer('secure', path)
        self.assertEqual({'service'}, self.allowed_personas(
            conf, enforcer, 'placement:reshaper:reshape'))

    def test_a_file_rule_replaces_the_legacy_fallback(self):
        path = self.write('policy.yaml', '"%s": "role:service"\n' % self.LIST)
        conf, enforcer = self.enforcer('legacy', path)
        self.assertEqual({'service'},
                         self.allowed_personas(conf, enforcer, self.LIST))

    def test_malformed_yaml_is_a_startup_error(self):
        path = self.write('policy.yaml', '"%s": [\n' % self.LIST)
        exc = self.assertRaises(exception.ConfigError, self.enforcer,
                                'legacy', path)
        self.assertIn(path, str(exc))

    def test_the_app_does_not_start_with_a_malformed_file(self):
        from placement import deploy
        path = self.write('policy.yaml', 'x: y: z\n')
        conf = base.make_conf(policy_file=path)
        conf.set_override('connection', 'sqlite://',
                          group='placement_database')
        exc = self.assertRaises(exception.ConfigError, deploy.loadapp, conf)
        self.assertIn('cannot load policy file %s' % path, str(exc))

    def test_a_file_that_is_not_a_mapping_is_a_startup_error(self):
        path = self.write('policy.yaml', '- a\n- b\n')
        self.assertRaises(exception.ConfigError, self.enforcer, 'legacy',
                          path)

    def test_malformed_json_is_a_startup_error(self):
        path = self.write('policy.json', '{"%s": 1}' % self.LIST)
        self.assertRaises(exception.ConfigError, self.enforcer, 'legacy',
                          path)


class TestRememberedVerdicts(base.PolicyTestCase):
    """An allowed question is remembered while the rules stay the same;
    denials, and rules that ask a remote server, never are.
    """

    LIST = TestPolicyFile.LIST

    def test_an_allowed_caller_is_remembered_and_a_denied_one_not(self):
        conf, enforcer = self.enforcer('secure')
        verdicts = policy._verdicts_of(enforcer)
        admin = base.make_context(conf, enforcer, 'project admin')
        reader = base.make_context(conf, enforcer, 'project reader')
        self.assertTrue(base.is_allowed(admin, self.LIST))
        self.assertEqual(1, len(verdicts.allowed))
        self.assertTrue(base.is_allowed(admin, self.LIST))
        self.assertEqual(1, len(verdicts.allowed))
        self.assertFalse(base.is_allowed(reader, self.LIST))
        self.assertFalse(base.is_allowed(reader, self.LIST))
        self.assertEqual(1, len(verdicts.allowed))

    def test_the_target_is_part_of_the_question(self):
        conf, enforcer = self.enforcer('legacy')
        member = base.make_context(conf, enforcer, 'project member')
        usages = 'placement:usages'
        mine, other = {'project_id': base.PROJECT}, {'project_id': 'other'}
        self.assertTrue(base.is_allowed(member, usages, mine))
        self.assertFalse(base.is_allowed(member, usages, other))
        self.assertTrue(base.is_allowed(member, usages, mine))

    def test_rules_with_a_remote_check_are_always_asked(self):
        # The http: check is never evaluated here (another rule has it),
        # but its presence alone turns remembering off.
        path = self.write('policy.yaml', '"%s": "@"\n"other": '
                          '"http://127.0.0.1:9/never"\n' % self.LIST)
        conf, enforcer = self.enforcer('secure', path)
        admin = base.make_context(conf, enforcer, 'project admin')
        self.assertTrue(base.is_allowed(admin, self.LIST))
        self.assertTrue(base.is_allowed(admin, self.LIST))
        self.assertEqual(0, len(policy._verdicts_of(enforcer).allowed))


class TestOldOptionNames(base.PolicyTestCase):
    """Names the manual documents as deprecated variations still work."""

    def conf_from(self, text):
        config = self.write('placement.conf', text)
        conf = cfg.ConfigOpts()
        placement_conf.register_opts(conf)
        conf(['--config-file', config], project='placement',
             default_config_files=[])
        return conf  # [oslo_policy] is registered later, as in the app

    def test_default_policy_file(self):
        path = self.write('old.yaml', '"placement:traits:list": "!"\n')
        conf = self.conf_from('[DEFAULT]\npolicy_file = %s\n' % path)
        enforcer = policy.build_enforcer(conf)
        self.assertEqual(path, conf.oslo_policy.policy_file)
        self.assertEqual('!', str(enforcer.rules['placement:traits:list']))

    def test_oslo_policy_group_wins(self):
        conf = self.conf_from('[DEFAULT]\npolicy_file = old.yaml\n'
                              '[oslo_policy]\npolicy_file = new.yaml\n')
        policy.build_enforcer(conf)
        self.assertEqual('new.yaml', conf.oslo_policy.policy_file)

    def test_default_policy_dirs_and_default_rule(self):
        conf = self.conf_from('[DEFAULT]\npolicy_dirs = a.d\n'
                              'policy_default_rule = fallback\n')
        policy.build_enforcer(conf)
        self.assertEqual(['a.d'], conf.oslo_policy.policy_dirs)
        self.assertEqual('fallback', conf.oslo_policy.policy_default_rule)

    def test_remote_ssl_cert_names(self):
        conf = self.conf_from('[oslo_policy]\n'
                              'remote_ssl_verify_server_cert = True\n'
                              'remote_ssl_ca_cert_file = /ca.pem\n'
                              'remote_ssl_client_cert_file = /client.pem\n')
        policy.build_enforcer(conf)
        group = conf.oslo_policy
        for old, new, value in (
                ('remote_ssl_verify_server_cert',
                 'remote_ssl_verify_server_crt', True),
                ('remote_ssl_ca_cert_file', 'remote_ssl_ca_crt_file',
                 '/ca.pem'),
                ('remote_ssl_client_cert_file', 'remote_ssl_client_crt_file',
                 '/client.pem')):
            self.assertEqual(value, group[new] if new in group
                             else group[old])


class TestSystemScopePolicyFile(base.PolicyTestCase):
    """etc/placement/policy-system-scope.yaml: the Wallaby-Zed defaults."""

    PATH = os.path.join(base.REPO, 'etc', 'placement',
                        'policy-system-scope.yaml')

    def test_it_names_every_api_rule_with_the_older_default(self):
        with open(self.PATH) as handle:
            rules = yaml.safe_load(handle)
        older = {name: 'rule:system_reader_api'
                 if name.split(':')[-1] in ('list', 'show', 'usages')
                 else 'rule:system_admin_api'
                 for name, _description, _ops in base.MANUAL}
        older['placement:usages'] = 'rule:system_or_project_reader'
        self.assertEqual(older, rules)

    def test_new_defaults_with_it_are_the_system_scoped_ones(self):
        conf = base.make_conf(enforce_new_defaults=True,
                              enforce_scope=False, policy_file=self.PATH)
        enforcer = policy.build_enforcer(conf)
        self.assertEqual(
            {'system admin', 'system reader'},
            self.allowed_personas(conf, enforcer,
                                  'placement:resource_providers:list'))
        self.assertEqual(
            {'system admin'},
            self.allowed_personas(conf, enforcer,
                                  'placement:reshaper:reshape'))
        self.assertEqual(
            {'system admin', 'system reader', 'project admin',
             'project member', 'project reader'},
            self.allowed_personas(conf, enforcer, 'placement:usages'))

    def test_legacy_mode_with_it_still_admits_role_admin(self):
        conf = base.make_conf(policy_file=self.PATH, **base.MODES['legacy'])
        enforcer = policy.build_enforcer(conf)
        self.assertEqual(
            {'system admin', 'project admin'},
            self.allowed_personas(conf, enforcer,
                                  'placement:resource_providers:create'))
