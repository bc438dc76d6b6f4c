"""Write the policy gabbits: every rule, every persona, both policy modes.

    python tools/policy_gabbits.py   # rewrites gabbits/policy-*.yaml

Each rule gets one request per route it guards. A persona the rule admits
gets the status that proves policy passed (the entity does not exist, or
the body is invalid: policy is checked first); any other persona gets 403.
The personas are noauth2 identities (see ../shared/spec/NOAUTH.md).
The expectations below are the defaults of ``placement/policies``.
"""
import json
import os

GABBITS = os.path.join(os.path.dirname(__file__), '..', 'placement',
                       'tests', 'functional', 'gabbits')

PROJECT = "$ENVIRON['PROJECT_ID']"
RP = "/resource_providers/$ENVIRON['RP_UUID']"

# name: (token, roles, system scoped)
PERSONAS = {
    'system admin': ('sysadmin', 'admin,member,reader', True),
    'system reader': ('sysreader', 'reader', True),
    'project admin': ('padmin:' + PROJECT, 'admin,member,reader', False),
    'project member': ('pmember:' + PROJECT, 'member,reader', False),
    'project reader': ('preader:' + PROJECT, 'reader', False),
    'service': ('nova:service', 'service', False),
    'other project': ("other:$ENVIRON['ALT_PROJECT_ID']", 'member,reader',
                      False),
    'no roles': ('nobody:' + PROJECT, '', False),
}

# Who passes each kind of rule, per mode.
ALLOWED = {
    'legacy': {
        'admin_or_service': {'project admin', 'service'},
        'project_reader': {'project admin', 'project member',
                           'project reader', 'service'},
        'service': {'project admin', 'service'},
    },
    'secure': {
        'admin_or_service': {'project admin', 'service'},
        'project_reader': {'project admin', 'project member',
                           'project reader', 'service'},
        'service': {'service'},
    },
}

# (rule, kind, method, url, body, status when allowed, microversion)
A = 'admin_or_service'
FILES = {
    'resource-provider': [
        ('placement:resource_providers:list', A, 'GET',
         '/resource_providers', None, '200', None),
        ('placement:resource_providers:create', A, 'POST',
         '/resource_providers', {}, '400', None),
        ('placement:resource_providers:show', A, 'GET', RP, None, '404',
         None),
        ('placement:resource_providers:update', A, 'PUT', RP,
         {'name': 'renamed'}, '404 || 400', None),
        ('placement:resource_providers:delete', A, 'DELETE', RP, None,
         '404', None),
        ('placement:resource_providers:inventories:list', A, 'GET',
         RP + '/inventories', None, '404', None),
        ('placement:resource_providers:inventories:create', A, 'POST',
         RP + '/inventories', {}, '404 || 400', None),
        ('placement:resource_providers:inventories:show', A, 'GET',
         RP + '/inventories/VCPU', None, '404', None),
        ('placement:resource_providers:inventories:update', A, 'PUT',
         RP + '/inventories', {}, '404 || 400', None),
        ('placement:resource_providers:inventories:update', A, 'PUT',
         RP + '/inventories/VCPU', {}, '404 || 400', None),
        ('placement:resource_providers:inventories:delete', A, 'DELETE',
         RP + '/inventories', None, '404', None),
        ('placement:resource_providers:inventories:delete', A, 'DELETE',
         RP + '/inventories/VCPU', None, '404', None),
        ('placement:resource_providers:aggregates:list', A, 'GET',
         RP + '/aggregates', None, '404', None),
        ('placement:resource_providers:aggregates:update', A, 'PUT',
         RP + '/aggregates', {'aggregates': [],
                              'resource_provider_generation': 0},
         '404 || 400', None),
        ('placement:resource_providers:usages', A, 'GET', RP + '/usages',
         None, '404', None),
        ('placement:resource_providers:traits:list', A, 'GET',
         RP + '/traits', None, '404', None),
        ('placement:resource_providers:traits:update', A, 'PUT',
         RP + '/traits', {}, '404 || 400', None),
        ('placement:resource_providers:traits:delete', A, 'DELETE',
         RP + '/traits', None, '404', None),
        ('placement:resource_providers:allocations:list', A, 'GET',
         RP + '/allocations', None, '404', None),
    ],
    'resource-class': [
        ('placement:resource_classes:list', A, 'GET', '/resource_classes',
         None, '200', None),
        ('placement:resource_classes:create', A, 'POST',
         '/resource_classes', {}, '400', None),
        ('placement:resource_classes:show', A, 'GET',
         '/resource_classes/CUSTOM_NOT_THERE', None, '404', None),
        ('placement:resource_classes:update', A, 'PUT',
         '/resource_classes/CUSTOM_NOT_THERE', {'name': 'CUSTOM_RENAMED'},
         '404', '1.2'),
        ('placement:resource_classes:update', A, 'PUT',
         '/resource_classes/VCPU', None, '400', None),
        ('placement:resource_classes:delete', A, 'DELETE',
         '/resource_classes/CUSTOM_NOT_THERE', None, '404', None),
    ],
    'trait': [
        ('placement:traits:list', A, 'GET', '/traits', None, '200', None),
        ('placement:traits:show', A, 'GET', '/traits/CUSTOM_NOT_THERE',
         None, '404', None),
        ('placement:traits:update', A, 'PUT', '/traits/NOT_CUSTOM', None,
         '400', None),
        ('placement:traits:delete', A, 'DELETE', '/traits/CUSTOM_NOT_THERE',
         None, '404', None),
    ],
    'allocation': [
        ('placement:allocations:manage', A, 'POST', '/allocations', {},
         '400', None),
        ('placement:allocations:list', A, 'GET',
         "/allocations/$ENVIRON['CONSUMER_UUID']", None, '200', None),
        ('placement:allocations:update', A, 'PUT',
         "/allocations/$ENVIRON['CONSUMER_UUID']", {}, '400', None),
        ('placement:allocations:delete', A, 'DELETE',
         "/allocations/$ENVIRON['CONSUMER_UUID']", None, '404', None),
        ('placement:allocation_candidates:list', A, 'GET',
         '/allocation_candidates?resources=VCPU:1', None, '200', None),
        ('placement:reshaper:reshape', 'service', 'POST', '/reshaper', {},
         '400', None),
        ('placement:usages', 'project_reader', 'GET',
         '/usages?project_id=' + PROJECT, None, '200', None),
    ],
}

HEADER = {
    'legacy': (
        '# Generated by tools/policy_gabbits.py: do not edit by hand.\n'
        '# Every {what} policy rule with each persona, legacy policy mode\n'
        '# ([oslo_policy] enforce_new_defaults False): each rule is its\n'
        '# default OR role:admin; system-scoped tokens are still refused\n'
        '# (scope is checked, as upstream checks it).\n'
        '# Allowed personas get the status that shows policy passed (the\n'
        '# entity does not exist or the body is invalid); others get 403.\n'
        'fixtures:\n    - LegacyPolicyFixture\n'),
    'secure': (
        '# Generated by tools/policy_gabbits.py: do not edit by hand.\n'
        '# Every {what} policy rule with each persona, with [oslo_policy]\n'
        '# enforce_scope and enforce_new_defaults True: project-scoped\n'
        '# defaults only, system-scoped tokens refused.\n'
        '# Allowed personas get the status that shows policy passed (the\n'
        '# entity does not exist or the body is invalid); others get 403.\n'
        'fixtures:\n    - SecureRBACPolicyFixture\n'),
}


def _quote(value):
    return "'%s'" % value.replace("'", "''")


def _test(persona, rule, method, url, body, status, version):
    token, roles, system = PERSONAS[persona]
    verb = '%s %s' % (method, url.split('?')[0].replace(
        "$ENVIRON['RP_UUID']", '{uuid}').replace(
        "$ENVIRON['CONSUMER_UUID']", '{consumer}'))
    lines = ['- name: %s %s %s' % (persona, 'passes' if status != '403'
                                   else 'is denied', verb),
             '  %s: %s' % (method, url),
             '  request_headers:',
             '      x-auth-token: %s' % _quote(token),
             '      x-roles: %s' % _quote(roles)]
    if system:
        lines.append('      openstack-system-scope: all')
    if version:
        lines.append('      openstack-api-version: placement %s' % version)
    if body is not None:
        lines.append('      content-type: application/json')
        lines.append('  data: %s' % json.dumps(body))
    lines.append('  status: %s' % status)
    if status == '403':
        lines.append('  response_json_paths:')
        if not version:  # error codes appear from 1.23
            lines.append('      $.errors[0].code: placement.undefined_code')
        if system:
            # A scope mismatch: upstream's detail is the rule's name.
            lines.append('      $.errors[0].detail: /resource.\\s+%s\\s+$/'
                         % rule)
        else:
            lines.append('      $.errors[0].detail: /Policy does not allow %s'
                         ' to be performed./' % rule)
    return '\n'.join(lines)


def render(what, rows, mode):
    out = [HEADER[mode].format(what=what.replace('-', ' ')),
           'defaults:\n    request_headers:\n'
           '        accept: application/json\n'
           '        openstack-api-version: placement latest\n',
           'tests:\n']
    for rule, kind, method, url, body, ok, version in rows:
        out.append('# %s\n' % rule)
        for persona in PERSONAS:
            allowed = persona in ALLOWED[mode][kind]
            out.append(_test(persona, rule, method, url, body,
                             ok if allowed else '403', version) + '\n')
    return '\n'.join(out)


def main():
    for what, rows in FILES.items():
        for mode, suffix in (('legacy', ''), ('secure', '-secure')):
            path = os.path.join(GABBITS, 'policy-%s%s.yaml' % (what, suffix))
            with open(path, 'w') as handle:
                handle.write(render(what, rows, mode))


if __name__ == '__main__':
    main()
