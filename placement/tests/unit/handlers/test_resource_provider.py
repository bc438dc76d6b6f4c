"""Pure pieces of the provider handlers: links per version, the query
uuid check, the list filter."""
import datetime
import json
import unittest

import webob
import webob.exc

from placement.handlers import resource_provider as handler
from placement import microversion
from placement.objects import resource_provider as rp_obj
from placement import util

V = microversion.parse_version
UUID = 'aaaaaaaa-0000-4000-8000-000000000001'


def _provider(**kwargs):
    values = dict(id=1, uuid=UUID, name='cn1', generation=3,
                  parent_provider_id=None, root_provider_id=1,
                  parent_provider_uuid=None, root_provider_uuid=UUID,
                  created_at=datetime.datetime(2020, 1, 1),
                  updated_at=None)
    values.update(kwargs)
    return rp_obj.Provider(**values)


class RenderTest(unittest.TestCase):

    def render(self, mv, script_name=''):
        req = webob.Request.blank('/', environ={'SCRIPT_NAME': script_name})
        return handler._render_provider(req, V(mv), _provider())

    def rels(self, mv):
        return [link['rel'] for link in self.render(mv)['links']]

    def test_links_grow_with_the_version(self):
        self.assertEqual(['self', 'inventories', 'usages'], self.rels('1.0'))
        self.assertEqual(['self', 'inventories', 'usages', 'aggregates'],
                         self.rels('1.1'))
        self.assertNotIn('traits', self.rels('1.5'))
        self.assertIn('traits', self.rels('1.6'))
        self.assertNotIn('allocations', self.rels('1.10'))
        self.assertEqual('allocations', self.rels('1.11')[-1])

    def test_links_carry_the_script_name(self):
        links = self.render('1.39', script_name='/placement')['links']
        self.assertEqual('/placement/resource_providers/%s' % UUID,
                         links[0]['href'])
        self.assertEqual('/placement/resource_providers/%s/traits' % UUID,
                         links[4]['href'])

    def test_tree_fields_from_1_14(self):
        self.assertNotIn('root_provider_uuid', self.render('1.13'))
        body = self.render('1.14')
        self.assertIsNone(body['parent_provider_uuid'])
        self.assertEqual(UUID, body['root_provider_uuid'])

    def test_modified_prefers_updated_at(self):
        later = datetime.datetime(2021, 1, 1)
        self.assertEqual(later, handler._modified(_provider(
            updated_at=later)))
        self.assertEqual(datetime.datetime(2020, 1, 1),
                         handler._modified(_provider()))


class ListedProviderTest(unittest.TestCase):
    """A listed row renders as _render_provider renders the provider,
    whatever the names, uuids and SCRIPT_NAME hold."""

    NAMES = ['cn1', 'caf\u00e9 \U0001f600', 'quote " back \\ slash',
             'ctl \x01\n\t', '100% %(u)s %s {x}: a, b', '/x/', '']

    def _rows(self):
        rows = []
        for i, name in enumerate(self.NAMES):
            rp = 'aaaaaaaa-0000-4000-8000-%012d' % i
            parent = None if i % 2 else UUID
            rows.append((rp, name, i if i % 3 else None, parent,
                         parent or rp, None))
        # A row without a root (written by other means) shows null.
        rows.append((UUID, 'rootless', 1, None, None, None))
        return rows

    def test_rows_render_as_providers(self):
        for script_name in ('', '/placement', '/p%20l\u00e4"ce'):
            req = webob.Request.blank(
                '/', environ={'SCRIPT_NAME': script_name})
            for mv in ('1.0', '1.1', '1.6', '1.11', '1.13', '1.14', '1.39'):
                rows = self._rows()
                expected = {'resource_providers': [
                    handler._render_provider(req, V(mv), _provider(
                        uuid=row[0], name=row[1], generation=row[2] or 0,
                        parent_provider_uuid=row[3],
                        root_provider_uuid=row[4])) for row in rows]}
                self.assertEqual(expected, json.loads(util.render_json(
                    handler._render_provider_list(req, V(mv), rows))),
                    (script_name, mv))

    def test_a_long_list_renders_the_same(self):
        # Past util.EAGER_ITEMS each provider is filled as the encoder
        # reaches it.
        req = webob.Request.blank('/')
        rows = [('aaaaaaaa-0000-4000-8000-%012d' % i, 'n%d' % i, i, None,
                 'aaaaaaaa-0000-4000-8000-%012d' % i)
                for i in range(util.EAGER_ITEMS + 1)]
        listed = json.loads(util.render_json(
            handler._render_provider_list(req, V('1.39'), rows)))
        self.assertEqual(len(rows), len(listed['resource_providers']))
        self.assertEqual(handler._render_provider(req, V('1.39'), _provider(
            uuid=rows[-1][0], name=rows[-1][1], generation=rows[-1][2],
            parent_provider_uuid=None, root_provider_uuid=rows[-1][4])),
            listed['resource_providers'][-1])

    def test_uuids_that_need_escaping_render_as_values(self):
        # Stored by other means than the API: the list does not put them
        # in a text as they are.
        req = webob.Request.blank('/')
        for odd in ('a"b', 'a\\b', 'a\x01b'):
            rows = [(odd, 'n', 1, None, odd), (UUID, 'm', 2, odd, odd)]
            listed = json.loads(util.render_json(
                handler._render_provider_list(req, V('1.39'), rows)))
            self.assertEqual([odd, UUID], [
                p['uuid'] for p in listed['resource_providers']])
            self.assertEqual(
                '/resource_providers/' + odd + '/traits',
                listed['resource_providers'][0]['links'][4]['href'])
            self.assertEqual(odd, listed['resource_providers'][1][
                'parent_provider_uuid'])

    def test_a_prefix_holding_a_slot_marker_renders_as_values(self):
        req = webob.Request.blank(
            '/', environ={'SCRIPT_NAME': '/p\x01l\x02'})
        rows = self._rows()
        listed = json.loads(util.render_json(
            handler._render_provider_list(req, V('1.39'), rows)))
        self.assertEqual(
            '/p\x01l\x02/resource_providers/' + rows[0][0],
            listed['resource_providers'][0]['links'][0]['href'])

    def test_empty_list(self):
        req = webob.Request.blank('/')
        self.assertEqual(b'{"resource_providers":[]}', util.render_json(
            handler._render_provider_list(req, V('1.39'), [])))


class QueryUuidTest(unittest.TestCase):
    """Query-string uuids need their dashes (jsonschema's own format, as
    the reference service checks them); bodies take any uuid-like."""

    def _validate(self, query):
        return util.validate_query(
            webob.Request.blank('/resource_providers?' + query),
            handler.LIST_SCHEMA.at(V('1.39')))

    def test_dashed_passes(self):
        self.assertEqual({'uuid': [UUID]}, self._validate('uuid=' + UUID))

    def test_dashless_is_400_with_the_report(self):
        with self.assertRaisesRegex(
                webob.exc.HTTPBadRequest,
                "Invalid query string parameters: '%s' is not a 'uuid'\n\n"
                "Failed validating 'format' in schema\\['properties'\\]"
                "\\['in_tree'\\]" % UUID.replace('-', '')):
            self._validate('in_tree=' + UUID.replace('-', ''))

    def test_a_dashless_body_uuid_is_fine(self):
        util.validate({'name': 'x', 'uuid': UUID.replace('-', '')},
                      handler.POST_SCHEMA.at(V('1.39')))


class ListFilterTest(unittest.TestCase):

    def test_empty_name_is_no_filter(self):
        pfilter = handler._parse_list_filter({'name': ['']}, V('1.39'))
        self.assertIsNone(pfilter.name)

    def test_last_value_wins(self):
        pfilter = handler._parse_list_filter(
            {'name': ['a', 'b'], 'resources': ['VCPU:1', 'VCPU:2']},
            V('1.39'))
        self.assertEqual('b', pfilter.name)
        self.assertEqual({'VCPU': 2}, pfilter.resources)

    def test_in_tree_is_looked_up_as_written(self):
        # The collation decides whether it names a provider, as for the
        # reference service.
        pfilter = handler._parse_list_filter({'in_tree': [UUID.upper()]},
                                             V('1.14'))
        self.assertEqual(UUID.upper(), pfilter.in_tree)
