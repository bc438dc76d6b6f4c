"""The registered policy rules, both policy modes, and policy files.

The manual's list (000 seed, "Placement Policies") is written out here as
the reference: names, descriptions, operations. Defaults are the
project-scoped ones (CHECKLIST section 5.3).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

from oslo_config import cfg
import testtools
import yaml

from placement import conf as placement_conf
from placement import context
from placement import exception
from placement import policies
from placement import policy

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..'))
BIN = os.path.dirname(sys.executable)
RP = '/resource_providers/{uuid}'

# (name, description, operations) in the manual's order.
MANUAL = [
    ('placement:resource_providers:list', 'List resource providers.',
     [('GET', '/resource_providers')]),
    ('placement:resource_providers:create', 'Create resource provider.',
     [('POST', '/resource_providers')]),
    ('placement:resource_providers:show', 'Show resource provider.',
     [('GET', RP)]),
    ('placement:resource_providers:update', 'Update resource provider.',
     [('PUT', RP)]),
    ('placement:resource_providers:delete', 'Delete resource provider.',
     [('DELETE', RP)]),
    ('placement:resource_classes:list', 'List resource classes.',
     [('GET', '/resource_classes')]),
    ('placement:resource_classes:create', 'Create resource class.',
     [('POST', '/resource_classes')]),
    ('placement:resource_classes:show', 'Show resource class.',
     [('GET', '/resource_classes/{name}')]),
    ('placement:resource_classes:update', 'Update resource class.',
     [('PUT', '/resource_classes/{name}')]),
    ('placement:resource_classes:delete', 'Delete resource class.',
     [('DELETE', '/resource_classes/{name}')]),
    ('placement:resource_providers:inventories:list',
     'List resource provider inventories.',
     [('GET', RP + '/inventories')]),
    ('placement:resource_providers:inventories:create',
     'Create one resource provider inventory.',
     [('POST', RP + '/inventories')]),
    ('placement:resource_providers:inventories:show',
     'Show resource provider inventory.',
     [('GET', RP + '/inventories/{resource_class}')]),
    ('placement:resource_providers:inventories:update',
     'Update resource provider inventory.',
     [('PUT', RP + '/inventories'),
      ('PUT', RP + '/inventories/{resource_class}')]),
    ('placement:resource_providers:inventories:delete',
     'Delete resource provider inventory.',
     [('DELETE', RP + '/inventories'),
      ('DELETE', RP + '/inventories/{resource_class}')]),
    ('placement:resource_providers:aggregates:list',
     'List resource provider aggregates.', [('GET', RP + '/aggregates')]),
    ('placement:resource_providers:aggregates:update',
     'Update resource provider aggregates.', [('PUT', RP + '/aggregates')]),
    ('placement:resource_providers:usages', 'List resource provider usages.',
     [('GET', RP + '/usages')]),
    ('placement:usages', 'List total resource usages for a given project.',
     [('GET', '/usages')]),
    ('placement:traits:list', 'List traits.', [('GET', '/traits')]),
    ('placement:traits:show', 'Show trait.', [('GET', '/traits/{name}')]),
    ('placement:traits:update', 'Update trait.', [('PUT', '/traits/{name}')]),
    ('placement:traits:delete', 'Delete trait.',
     [('DELETE', '/traits/{name}')]),
    ('placement:resource_providers:traits:list',
     'List resource provider traits.', [('GET', RP + '/traits')]),
    ('placement:resource_providers:traits:update',
     'Update resource provider traits.', [('PUT', RP + '/traits')]),
    ('placement:resource_providers:traits:delete',
     'Delete resource provider traits.', [('DELETE', RP + '/traits')]),
    ('placement:allocations:manage', 'Manage allocations.',
     [('POST', '/allocations')]),
    ('placement:allocations:list', 'List allocations.',
     [('GET', '/allocations/{consumer_uuid}')]),
    ('placement:allocations:update', 'Update allocations.',
     [('PUT', '/allocations/{consumer_uuid}')]),
    ('placement:allocations:delete', 'Delete allocations.',
     [('DELETE', '/allocations/{consumer_uuid}')]),
    ('placement:resource_providers:allocations:list',
     'List resource provider allocations.', [('GET', RP + '/allocations')]),
    ('placement:allocation_candidates:list', 'List allocation candidates.',
     [('GET', '/allocation_candidates')]),
    ('placement:reshaper:reshape', 'Reshape Inventory and Allocations.',
     [('POST', '/reshaper')]),
]

# The base rules the manual documents, with their documented check strings.
MANUAL_BASE = {
    'admin_api': 'role:admin',
    'system_admin_api': 'role:admin and system_scope:all',
    'system_reader_api': 'role:reader and system_scope:all',
    'project_reader_api': 'role:reader and project_id:%(project_id)s',
    'system_or_project_reader':
        'rule:system_reader_api or rule:project_reader_api',
}
NEW_BASE = {
    'service_api': 'role:service',
    'admin_or_service_api': 'role:admin or role:service',
    'admin_or_project_reader_or_service_api':
        'role:admin or rule:project_reader_api or role:service',
}
# Rules of features the manual does not have (issue 24): name -> the
# routes outside the API's route table they guard.
ADDED = {'placement:metrics': [('GET', '/metrics')]}
SPECIAL_DEFAULTS = {
    'placement:usages': 'rule:admin_or_project_reader_or_service_api',
    'placement:reshaper:reshape': 'rule:service_api',
}

PROJECT = 'project-a'
OTHER = 'project-b'
# name: (user, project, roles, system scope)
PERSONAS = {
    'system admin': ('u1', None, ['admin', 'member', 'reader'], 'all'),
    'system reader': ('u2', None, ['reader'], 'all'),
    'project admin': ('u3', PROJECT, ['admin', 'member', 'reader'], None),
    'project member': ('u4', PROJECT, ['member', 'reader'], None),
    'project reader': ('u5', PROJECT, ['reader'], None),
    'service': ('nova', 'service', ['service'], None),
    'other project': ('u6', OTHER, ['member', 'reader'], None),
    'no roles': ('u7', PROJECT, [], None),
}
ADMIN_OR_SERVICE = {
    'legacy': {'system admin', 'project admin', 'service'},
    'secure': {'project admin', 'service'},
}
USAGES = {
    'legacy': {'system admin', 'project admin', 'project member',
               'project reader', 'service'},
    'secure': {'project admin', 'project member', 'project reader',
               'service'},
}
RESHAPE = {
    'legacy': {'system admin', 'project admin', 'service'},
    'secure': {'service'},
}
MODES = {
    # The manual's mode; no longer the default (upstream 16.0.0 runs the
    # secure one), still what an operator gets by setting both False.
    'legacy': {'enforce_scope': False, 'enforce_new_defaults': False},
    'secure': {'enforce_scope': True, 'enforce_new_defaults': True},
}


def make_conf(**policy_overrides):
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf([], project='placement', default_config_files=[])
    policy.register_opts(conf)
    for name, value in policy_overrides.items():
        conf.set_override(name, value, group='oslo_policy')
    return conf


def make_context(conf, enforcer, persona):
    user, project, roles, system = PERSONAS[persona]
    return context.RequestContext(
        user_id=user, project_id=project, roles=roles, system_scope=system,
        config=conf, enforcer=enforcer)


def is_allowed(ctx, rule, target=None):
    try:
        ctx.authorize(rule, target)
    except exception.PolicyNotAuthorized:
        return False
    return True


def expected(mode, rule):
    if rule == 'placement:usages':
        return USAGES[mode]
    if rule == 'placement:reshaper:reshape':
        return RESHAPE[mode]
    return ADMIN_OR_SERVICE[mode]


class PolicyTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        warnings.simplefilter('ignore')
        self.addCleanup(warnings.resetwarnings)
        self.tempdir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tempdir)

    def write(self, name, text):
        path = os.path.join(self.tempdir, name)
        with open(path, 'w') as handle:
            handle.write(text)
        return path

    def enforcer(self, mode='legacy', policy_file=None):
        overrides = dict(MODES[mode])
        if policy_file:
            overrides['policy_file'] = policy_file
        conf = make_conf(**overrides)
        return conf, policy.build_enforcer(conf)

    def allowed_personas(self, conf, enforcer, rule, target=None):
        found = set()
        for persona in PERSONAS:
            ctx = make_context(conf, enforcer, persona)
            rule_target = target
            if rule == 'placement:usages' and target is None:
                rule_target = {'project_id': PROJECT}
            if is_allowed(ctx, rule, rule_target):
                found.add(persona)
        return found


class TestRegisteredRules(PolicyTestCase):

    def rules(self):
        return {rule.name: rule for rule in policies.list_rules()}

    def test_api_rules_are_the_manuals_in_its_order(self):
        api = [rule for rule in policies.list_rules()
               if rule.name.startswith('placement:')
               and rule.name not in ADDED]
        self.assertEqual(
            MANUAL, [(rule.name, rule.description,
                      [(op['method'], op['path']) for op in rule.operations])
                     for rule in api])

    def test_base_rules(self):
        base = {name: rule.check_str for name, rule in self.rules().items()
                if not name.startswith('placement:')}
        self.assertEqual(dict(MANUAL_BASE, **NEW_BASE), base)

    def test_api_rule_defaults(self):
        for name, _description, _ops in MANUAL:
            rule = self.rules()[name]
            self.assertEqual(
                SPECIAL_DEFAULTS.get(name, 'rule:admin_or_service_api'),
                rule.check_str, name)
            self.assertEqual(['project'], rule.scope_types, name)

    def test_api_rules_fall_back_to_role_admin(self):
        for name, _description, _ops in MANUAL:
            deprecated = self.rules()[name].deprecated_rule
            self.assertEqual('role:admin', deprecated.check_str, name)
            self.assertEqual('W', deprecated.deprecated_since, name)
            self.assertTrue(deprecated.deprecated_reason, name)

    def test_reshape_ignores_the_manuals_misspelled_name(self):
        deprecated = self.rules()['placement:reshaper:reshape'].deprecated_rule
        self.assertEqual('placement:reshaper:reshape', deprecated.name)

    def test_rule_names_follow_the_convention(self):
        for name, _description, _ops in MANUAL:
            self.assertRegex(name, r'^placement(:[a-z_]+)+$')

    def test_a_rule_not_registered_is_refused_loudly(self):
        conf, enforcer = self.enforcer()
        ctx = make_context(conf, enforcer, 'project admin')
        self.assertRaises(Exception, ctx.authorize, 'placement:nope')


class TestPolicyModes(PolicyTestCase):

    def check_mode(self, mode):
        conf, enforcer = self.enforcer(mode)
        for name, _description, _ops in MANUAL:
            self.assertEqual(expected(mode, name),
                             self.allowed_personas(conf, enforcer, name),
                             '%s (%s)' % (name, mode))

    def test_legacy_defaults(self):
        self.check_mode('legacy')

    def test_metrics_admins_and_system_readers_in_every_mode(self):
        for mode in MODES:
            conf, enforcer = self.enforcer(mode)
            self.assertEqual(
                {'system admin', 'system reader', 'project admin'},
                self.allowed_personas(conf, enforcer, 'placement:metrics'),
                mode)

    def test_scope_and_new_defaults_enforced(self):
        self.check_mode('secure')

    def test_new_defaults_without_scope(self):
        conf, enforcer = self.enforcer(
            'legacy', None)
        conf.set_override('enforce_new_defaults', True, group='oslo_policy')
        enforcer = policy.build_enforcer(conf)
        self.assertEqual(
            {'system admin', 'project admin', 'service'},
            self.allowed_personas(conf, enforcer,
                                  'placement:resource_providers:list'))
        self.assertEqual(
            {'service'},
            self.allowed_personas(conf, enforcer,
                                  'placement:reshaper:reshape'))

    def test_scope_without_new_defaults(self):
        conf = make_conf(enforce_scope=True, enforce_new_defaults=False)
        enforcer = policy.build_enforcer(conf)
        self.assertEqual(
            {'project admin', 'service'},
            self.allowed_personas(conf, enforcer,
                                  'placement:reshaper:reshape'))

    def test_usages_target_is_the_queried_project(self):
        conf, enforcer = self.enforcer('secure')
        reader = make_context(conf, enforcer, 'project reader')
        self.assertTrue(is_allowed(reader, 'placement:usages',
                                   {'project_id': PROJECT}))
        self.assertFalse(is_allowed(reader, 'placement:usages',
                                    {'project_id': OTHER}))
        self.assertFalse(is_allowed(reader, 'placement:usages',
                                    {'project_id': None}))

    def test_default_options_are_upstreams(self):
        conf = make_conf()
        self.assertTrue(conf.oslo_policy.enforce_scope)
        self.assertTrue(conf.oslo_policy.enforce_new_defaults)
        self.assertEqual('policy.yaml', conf.oslo_policy.policy_file)

    def test_register_opts_twice_is_harmless(self):
        conf = make_conf()
        policy.register_opts(conf)
        self.assertTrue(conf.oslo_policy.enforce_scope)

    def test_list_opts_names_enforce_scope_once(self):
        from oslo_policy import opts as policy_opts
        names = [opt.name for _group, opts in policy_opts.list_opts()
                 for opt in opts]
        names += [opt.name for _group, opts in policy.list_opts()
                  for opt in opts]
        self.assertEqual(1, names.count('enforce_scope'))


class TestGenerators(PolicyTestCase):
    """The oslopolicy-* tools through placement's entry points."""

    def run_tool(self, *args):
        return subprocess.run(
            [os.path.join(BIN, args[0])] + list(args[1:]),
            check=True, capture_output=True, text=True).stdout

    def test_sample_file_loads_back_with_the_same_rules(self):
        path = os.path.join(self.tempdir, 'sample.yaml')
        self.run_tool('oslopolicy-sample-generator', '--namespace',
                      'placement', '--output-file', path)
        for mode in MODES:
            _conf, defaults = self.enforcer(mode)
            _conf, loaded = self.enforcer(mode, path)
            self.assertEqual(
                {name: str(check) for name, check in defaults.rules.items()},
                {name: str(check) for name, check in loaded.rules.items()
                 if name != 'placement:resaper:reshape'})

    def test_uncommented_sample_file_gives_the_new_defaults(self):
        path = os.path.join(self.tempdir, 'sample.yaml')
        self.run_tool('oslopolicy-sample-generator', '--namespace',
                      'placement', '--output-file', path)
        with open(path) as handle:
            text = handle.read().replace('\n#"', '\n"')
        path = self.write('uncommented.yaml', text)
        _conf, defaults = self.enforcer('secure')
        conf, loaded = self.enforcer('legacy', path)
        for name, _description, _ops in MANUAL:
            self.assertEqual(str(defaults.rules[name]),
                             str(loaded.rules[name]), name)

    def test_policy_generator_shows_every_rule(self):
        output = yaml.safe_load(self.run_tool(
            'oslopolicy-policy-generator', '--namespace', 'placement'))
        self.assertEqual('rule:admin_or_service_api',
                         output['placement:resource_providers:list'])
        self.assertEqual({name for name, _desc, _ops in MANUAL} | set(ADDED),
                         {name for name in output
                          if name.startswith('placement:')})

    def test_policy_generator_reads_the_operators_config(self):
        policy_file = self.write('policy.yaml',
                                 '"placement:traits:list": "role:reader"\n')
        config = self.write(
            'placement.conf',
            '[oslo_policy]\npolicy_file = %s\nenforce_new_defaults = True\n'
            % policy_file)
        output = yaml.safe_load(self.run_tool(
            'oslopolicy-policy-generator', '--namespace', 'placement',
            '--config-file', config))
        self.assertEqual('role:reader', output['placement:traits:list'])
        self.assertEqual('rule:admin_or_service_api',
                         output['placement:traits:show'])

    def test_config_file_args(self):
        self.assertEqual(
            ['--config-file', 'a.conf', '--config-dir=d'],
            policy.config_file_args(['--namespace', 'placement',
                                     '--config-file', 'a.conf',
                                     '--output-file', 'x',
                                     '--config-dir=d']))


class TestRoutesAndRules(testtools.TestCase):
    """Each route of the dispatch table is an operation of one rule."""

    def test_every_route_has_exactly_one_rule(self):
        from placement import handler
        operations = {}
        for rule in policies.list_rules():
            for op in getattr(rule, 'operations', []):
                key = (op['method'], op['path'])
                self.assertNotIn(key, operations)
                operations[key] = rule.name
        routes = {(method, template)
                  for template, methods in handler.ROUTE_DECLARATIONS.items()
                  for method in methods if template != '/'}
        routes.update(op for ops in ADDED.values() for op in ops)
        self.assertEqual(routes, set(operations))
