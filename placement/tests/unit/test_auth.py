"""noauth2 and the context middleware (../shared/spec/NOAUTH.md).

The identity a request gets is read back from the RequestContext that the
context middleware hands to the (capturing) inner application.
"""
import testtools
import webob

from placement import auth


class _Capture:

    def __init__(self):
        self.ctx = None

    def __call__(self, environ, start_response):
        self.ctx = environ.get('placement.context')
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']


class TestNoAuth(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.capture = _Capture()
        self.app = auth.NoAuthMiddleware(
            auth.PlacementContext(self.capture, conf=None, db=None,
                                  enforcer=None))

    def context(self, token, path='/resource_providers', **headers):
        if token is not None:
            headers['X-Auth-Token'] = token
        response = webob.Request.blank(path, headers=headers).get_response(
            self.app)
        self.assertEqual(200, response.status_int)
        return self.capture.ctx

    def status(self, path, **headers):
        return webob.Request.blank(path, headers=headers).get_response(
            self.app).status_int

    def test_user_and_project_from_the_token(self):
        ctx = self.context('alice:proj')
        self.assertEqual(('alice', 'proj'), (ctx.user_id, ctx.project_id))

    def test_without_a_colon_the_project_is_the_user(self):
        ctx = self.context('alice')
        self.assertEqual(('alice', 'alice'), (ctx.user_id, ctx.project_id))

    def test_the_project_is_all_after_the_first_colon(self):
        ctx = self.context('alice:proj:x')
        self.assertEqual(('alice', 'proj:x'), (ctx.user_id, ctx.project_id))

    def test_admin_gets_role_admin(self):
        self.assertEqual(['admin'], self.context('admin').roles)
        self.assertEqual(['admin'], self.context('admin:proj').roles)

    def test_another_user_gets_no_roles(self):
        self.assertEqual([], self.context('alice:proj').roles)

    def test_x_roles_as_given(self):
        ctx = self.context('alice:proj', **{'X-Roles': 'admin,member,reader'})
        self.assertEqual(['admin', 'member', 'reader'], ctx.roles)

    def test_x_roles_are_trimmed(self):
        ctx = self.context('alice', **{'X-Roles': ' reader , member'})
        self.assertEqual(['reader', 'member'], ctx.roles)

    def test_empty_x_roles_gives_no_roles_even_to_admin(self):
        self.assertEqual([], self.context('admin', **{'X-Roles': ''}).roles)
        self.assertEqual([], self.context('admin', **{'X-Roles': ' '}).roles)
        self.assertEqual([], self.context('admin', **{'X-Roles': ','}).roles)

    def test_system_scope_sets_no_project(self):
        ctx = self.context('alice:proj', **{'OpenStack-System-Scope': 'all'})
        self.assertEqual('all', ctx.system_scope)
        self.assertIsNone(ctx.project_id)
        self.assertEqual('alice', ctx.user_id)

    def test_x_project_id_takes_part(self):
        ctx = self.context('alice:proj', **{'X-Project-Id': 'other'})
        self.assertEqual('other', ctx.project_id)

    def test_identity_headers_take_part(self):
        ctx = self.context('alice:proj', **{'X-Domain-Id': 'dom',
                                            'X-User-Domain-Id': 'udom'})
        self.assertEqual(('dom', 'udom'), (ctx.domain_id, ctx.user_domain_id))

    def test_the_root_needs_no_token(self):
        self.assertEqual(200, self.status('/'))
        self.assertEqual(200, self.status(''))

    def test_any_other_path_needs_a_token(self):
        self.assertEqual(401, self.status('/resource_providers'))
        self.assertEqual(401, self.status('/nothing'))

    def test_an_empty_token_is_a_user_without_roles(self):
        # Policy refuses it (403), as the reference service does.
        ctx = self.context('')
        self.assertEqual(('', []), (ctx.user_id, ctx.roles))


class TestPlacementContext(testtools.TestCase):

    def test_no_user_is_401_but_for_the_root(self):
        app = auth.PlacementContext(_Capture(), None, None, None)
        self.assertEqual(401, webob.Request.blank(
            '/traits').get_response(app).status_int)
        self.assertEqual(200, webob.Request.blank(
            '/').get_response(app).status_int)
