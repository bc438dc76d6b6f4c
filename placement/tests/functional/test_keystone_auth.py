"""auth_strategy = keystone, without a Keystone server.

keystonemiddleware's own AuthTokenFixture stands in for token validation:
tokens registered with it are "valid" and auth_token sets the identity
headers from them as it would for a real Keystone. The request context
placement builds from those headers, and the policy answers, are checked.
"""
import uuid

from keystoneauth1 import fixture as ks_fixture
from keystoneauth1 import loading as ks_loading
from keystonemiddleware import auth_token
from keystonemiddleware import fixture as ksm_fixture
from oslo_middleware import request_id
import testtools
import webob

from placement import auth
from placement import deploy
from placement import exception
from placement.testing import app as app_fixture
from placement.testing import backends
from placement import policy

KEYSTONE = 'https://keystone.example.com/identity'
PROJECT = uuid.uuid4().hex
OTHER_PROJECT = uuid.uuid4().hex


def register_keystone_options(conf):
    """[keystone_authtoken] as a deployment sets it: the password plugin
    of a service user (never used: the fixture validates the tokens)."""
    for group, options in auth_token.list_opts():
        conf.register_opts(options, group=group)
    conf.register_opts(ks_loading.get_auth_plugin_conf_options('password'),
                       group=auth.KEYSTONE_GROUP)
    for name, value in (('www_authenticate_uri', KEYSTONE),
                        ('auth_type', 'password'), ('auth_url', KEYSTONE),
                        ('username', 'placement'), ('password', 'secret'),
                        ('project_name', 'service')):
        conf.set_override(name, value, group=auth.KEYSTONE_GROUP)


class _Capture:
    """The innermost app: keeps the RequestContext it is given."""

    def __init__(self):
        self.ctx = None

    def __call__(self, environ, start_response):
        self.ctx = environ['placement.context']
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']


class KeystoneTestCase(testtools.TestCase):

    policy_overrides = {}

    def setUp(self):
        super().setUp()
        self.tokens = self.useFixture(ksm_fixture.AuthTokenFixture())
        self.placement = app_fixture.PlacementApp(backends.BACKENDS['sqlite'])
        self.addCleanup(self.placement.cleanup)
        # [oslo_policy] exists once the app is built; [keystone_authtoken]
        # is registered here (keystone needs it at start): set them, then
        # build the app again, with keystone.
        conf = self.placement.conf
        register_keystone_options(conf)
        conf.set_override('auth_strategy', 'keystone', group='api')
        for name, value in self.policy_overrides.items():
            conf.set_override(name, value, group='oslo_policy')
        self.placement.app = deploy.loadapp(conf, db=self.placement.db)
        self.capture = _Capture()
        self.enforcer = policy.build_enforcer(conf)
        self.context_app = request_id.RequestId(auth.keystone_filter(
            auth.PlacementContext(self.capture, conf, None, self.enforcer),
            conf))

    def token(self, roles, project_id=PROJECT, system=False, domain=None):
        token = ks_fixture.V3Token(
            user_id='user-' + '-'.join(roles), user_name='someone',
            user_domain_id='udom')
        if system:
            token.set_system_scope()
        elif domain:
            token.set_domain_scope(id=domain, name='a domain')
        else:
            token.set_project_scope(id=project_id, name='a project',
                                    domain_id='pdom')
        for role in roles:
            token.add_role(name=role)
        return self.tokens.add_token(token)

    def request(self, path, token=None, app=None, method='GET', body=None,
                **headers):
        req = webob.Request.blank(path, headers=headers, method=method)
        if body is not None:
            req.body = body.encode()
            req.content_type = 'application/json'
        req.headers['OpenStack-API-Version'] = 'placement latest'
        if token:
            req.headers['X-Auth-Token'] = token
        return req.get_response(app or self.placement.app)

    def context_for(self, token, **headers):
        response = self.request('/resource_providers', token,
                                app=self.context_app, **headers)
        self.assertEqual(200, response.status_int)
        return self.capture.ctx


class TestKeystoneAuthentication(KeystoneTestCase):

    def test_root_needs_no_token(self):
        self.assertEqual(200, self.request('/').status_int)

    def test_no_token_is_401(self):
        response = self.request('/resource_providers')
        self.assertEqual(401, response.status_int)
        self.assertEqual('Keystone uri="%s"' % KEYSTONE,
                         response.headers['WWW-Authenticate'])

    def test_an_unknown_token_is_401(self):
        response = self.request('/resource_providers', uuid.uuid4().hex)
        self.assertEqual(401, response.status_int)

    def test_project_token_context(self):
        ctx = self.context_for(self.token(['reader', 'member']))
        self.assertEqual('user-reader-member', ctx.user_id)
        self.assertEqual(PROJECT, ctx.project_id)
        self.assertEqual(['reader', 'member'], ctx.roles)
        self.assertEqual('udom', ctx.user_domain_id)
        self.assertEqual('pdom', ctx.project_domain_id)
        self.assertIsNone(ctx.system_scope)
        self.assertTrue(ctx.request_id.startswith('req-'))

    def test_system_token_context(self):
        ctx = self.context_for(self.token(['admin'], system=True))
        self.assertEqual('all', ctx.system_scope)
        self.assertIsNone(ctx.project_id)
        self.assertEqual(['admin'], ctx.roles)

    def test_domain_token_context(self):
        ctx = self.context_for(self.token(['admin'], domain='dom1'))
        self.assertEqual('dom1', ctx.domain_id)
        self.assertIsNone(ctx.project_id)

    def test_empty_candidates_log_why_after_the_body(self):
        """Through auth_token's webob stack too, the reason of an empty
        answer is logged once the body is read, with its request id.
        """
        logger = 'placement.handlers.allocation_candidate'
        with self.assertLogs(logger, level='INFO') as logs:
            response = self.request('/allocation_candidates?resources=VCPU:1',
                                    self.token(['admin']))
            self.assertEqual(200, response.status_int)
            # Nothing yet: the body is not sent.
            self.assertEqual([], logs.records)
            self.assertEqual([], response.json['allocation_requests'])
        self.assertEqual(
            ['No allocation candidates for request %s: 0 candidates: '
             'there are no resource providers'
             % response.headers['x-openstack-request-id']],
            [r.getMessage() for r in logs.records])

    def test_global_request_id_is_kept(self):
        global_id = 'req-%s' % uuid.uuid4()
        ctx = self.context_for(self.token(['admin']),
                               **{'X-OpenStack-Request-ID': global_id})
        self.assertEqual(global_id, ctx.global_request_id)
        self.assertNotEqual(global_id, ctx.request_id)

    def test_client_identity_headers_are_not_trusted(self):
        ctx = self.context_for(self.token(['reader']),
                               **{'X-Roles': 'admin',
                                  'X-Project-Id': OTHER_PROJECT,
                                  'OpenStack-System-Scope': 'all'})
        self.assertEqual(['reader'], ctx.roles)
        self.assertEqual(PROJECT, ctx.project_id)
        self.assertIsNone(ctx.system_scope)


class _PolicyAnswers:
    """Policy answers for Keystone tokens that both modes share."""

    def assertStatus(self, status, roles, path='/resource_providers',
                     **scope):
        response = self.request(path, self.token(roles, **scope))
        self.assertEqual(status, response.status_int, response.text)
        return response

    def test_project_admin_passes(self):
        self.assertStatus(200, ['admin', 'member', 'reader'])

    def test_service_passes(self):
        self.assertStatus(200, ['service'])

    def test_project_reader_is_denied_with_json_error(self):
        response = self.assertStatus(403, ['member', 'reader'])
        error = response.json['errors'][0]
        self.assertEqual('placement.undefined_code', error['code'])
        self.assertIn('Policy does not allow placement:resource_providers:'
                      'list to be performed.', error['detail'])

    def test_project_reader_reads_own_usages(self):
        self.assertStatus(200, ['reader'],
                          path='/usages?project_id=%s' % PROJECT)

    def test_project_reader_may_not_read_other_usages(self):
        self.assertStatus(403, ['reader'],
                          path='/usages?project_id=%s' % OTHER_PROJECT)


class TestKeystonePolicyLegacy(_PolicyAnswers, KeystoneTestCase):
    """Legacy policy mode: scope ignored, role:admin ORed into each rule
    (no longer the default: both options set False explicitly)."""

    policy_overrides = {'enforce_scope': False,
                        'enforce_new_defaults': False}

    def test_system_admin_passes_while_scope_is_not_enforced(self):
        # The operator is told that a check string was evaluated for a
        # token outside the rule's scope_types.
        with self.assertWarnsRegex(UserWarning, 'placement:resource_'
                                   'providers:list .* enforce_scope is '
                                   'False'):
            self.assertStatus(200, ['admin', 'reader'], system=True)

    def test_admin_may_reshape(self):
        response = self.request('/reshaper', self.token(['admin']),
                                method='POST', body='{}')
        self.assertEqual(400, response.status_int, response.text)


class TestKeystonePolicySecure(_PolicyAnswers, KeystoneTestCase):
    """With enforce_scope and enforce_new_defaults on."""

    policy_overrides = {'enforce_scope': True, 'enforce_new_defaults': True}

    def test_system_admin_is_refused_on_scope(self):
        response = self.assertStatus(403, ['admin', 'reader'], system=True)
        self.assertIn('placement:resource_providers:list',
                      response.json['errors'][0]['detail'])

    def test_domain_admin_is_refused_on_scope(self):
        self.assertStatus(403, ['admin'], domain='dom1')

    def test_admin_may_not_reshape(self):
        response = self.request('/reshaper', self.token(['admin']),
                                method='POST', body='{}')
        self.assertEqual(403, response.status_int, response.text)

    def test_service_may_reshape(self):
        response = self.request('/reshaper', self.token(['service']),
                                method='POST', body='{}')
        self.assertEqual(400, response.status_int, response.text)


class TestKeystoneOptionsAtStart(testtools.TestCase):
    """keystone without what auth_token needs stops the start, naming it
    (it used to answer each request with a plain-text 500)."""

    def setUp(self):
        super().setUp()
        self.placement = app_fixture.PlacementApp(backends.BACKENDS['sqlite'])
        self.addCleanup(self.placement.cleanup)
        self.conf = self.placement.conf
        self.conf.set_override('auth_strategy', 'keystone', group='api')

    def start(self):
        return deploy.loadapp(self.conf, db=self.placement.db)

    def test_no_auth_type_names_the_options_to_set(self):
        error = self.assertRaises(exception.ConfigError, self.start)
        for name in ('[keystone_authtoken] sets no auth_type', 'auth_url',
                     'username', 'password', 'www_authenticate_uri'):
            self.assertIn(name, str(error))

    def test_a_plugin_short_of_an_option_names_it(self):
        register_keystone_options(self.conf)
        self.conf.clear_override('auth_url', group=auth.KEYSTONE_GROUP)
        error = self.assertRaises(exception.ConfigError, self.start)
        self.assertIn('[keystone_authtoken] lacks auth_url, which auth_type '
                      'password requires', str(error))

    def test_an_unknown_plugin_is_named(self):
        register_keystone_options(self.conf)
        self.conf.set_override('auth_type', 'nonesuch',
                               group=auth.KEYSTONE_GROUP)
        error = self.assertRaises(exception.ConfigError, self.start)
        self.assertIn('nonesuch', str(error))

    def test_complete_options_start(self):
        register_keystone_options(self.conf)
        self.assertIsNotNone(self.start())
