"""A repeated candidates query reads its lookups and its providers in one
statement (objects.candidate_lookups), on every backend; and when what
was looked up changed since (a tree became nested, a trait was made
again), the answer is the one a first request gives.
"""
import unittest
import uuid

import sqlalchemy as sa

from placement.objects import provider_state
from placement.tests.functional import test_candidate_memory
from placement.tests.functional.fixtures import app as app_fixture

QUERY = 'resources=VCPU:1&required=CUSTOM_A'


class TestRepeatedQuery(unittest.TestCase):

    def test_one_statement_then_a_stale_hint_is_not_used(self):
        app_fixture.on_each_backend(self, self._check)

    def _check(self, placement):
        client = test_candidate_memory._Client(placement.app)
        client.call('PUT', '/traits/CUSTOM_A')
        first, second = self._provider(client), self._provider(client)
        self._traits(client, first, ['CUSTOM_A'])
        statements = []
        sa.event.listen(placement.db.reader, 'after_cursor_execute',
                        lambda *args: statements.append(args[2]))
        self.assertEqual([first], self._roots(client.candidates(QUERY)))
        del statements[:]
        self.assertEqual([first], self._roots(client.candidates(QUERY)))
        # The lookups (every class, among others) came with the usage.
        lookups = [text for text in statements if 'resource_classes' in text]
        self.assertEqual(1, len(lookups), statements)
        self.assertIn('allocations', lookups[0])

        # A nested tree: the hinted statement (every provider its own
        # root) is no longer the right one.
        child = self._provider(client, parent=second)
        self._traits(client, child, ['CUSTOM_A'])
        self._assert_as_first_request(placement, client, {first, child})

        # The trait made again has another id.
        client.call('DELETE', '/resource_providers/' + child)
        self._traits(client, first, [])
        client.call('DELETE', '/traits/CUSTOM_A')
        client.call('PUT', '/traits/CUSTOM_A')
        self._traits(client, first, ['CUSTOM_A'])
        self._assert_as_first_request(placement, client, {first})

    def _assert_as_first_request(self, placement, client, providers):
        answer = client.candidates(QUERY)
        self.assertEqual(providers, {
            rp_uuid for request in answer['allocation_requests']
            for rp_uuid in request['allocations']})
        provider_state.store_for(placement.db).hints.clear()
        self.assertEqual(answer, client.candidates(QUERY))

    @staticmethod
    def _roots(answer):
        return sorted(rp_uuid for request in answer['allocation_requests']
                      for rp_uuid in request['allocations'])

    @staticmethod
    def _provider(client, parent=None):
        rp_uuid = str(uuid.uuid4())
        body = {'name': rp_uuid, 'uuid': rp_uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        client.call('POST', '/resource_providers', body)
        client.call('PUT', '/resource_providers/%s/inventories' % rp_uuid, {
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 4}}})
        return rp_uuid

    @staticmethod
    def _traits(client, rp_uuid, names):
        client.call('PUT', '/resource_providers/%s/traits' % rp_uuid, {
            'resource_provider_generation': client.generation(rp_uuid),
            'traits': names})
