"""The request context: who is asking, plus the app's db and policy.

Built once per request by the context middleware from the identity headers
(set by keystonemiddleware or noauth2), exactly as oslo.context reads them:
user, project, roles, system scope, domain and request ids. No WebOb or
database access here.
"""
from oslo_context import context

from placement import policy


def _clean_roles(roles):
    """Drop the empty names a header like ``X-Roles: ,`` would give."""
    return [role for role in roles if role]


class RequestContext(context.RequestContext):
    """oslo.context's context plus the application's shared parts."""

    def __init__(self, *args, config=None, db=None, enforcer=None,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self.roles = _clean_roles(self.roles)
        self.config = config
        self.db = db
        self.enforcer = enforcer

    def authorize(self, action, target=None):
        """Raise PolicyNotAuthorized unless policy allows ``action``.

        The default target is the caller's own project and user.
        """
        if target is None:
            target = {'project_id': self.project_id,
                      'user_id': self.user_id}
        policy.authorize(self, action, target)
