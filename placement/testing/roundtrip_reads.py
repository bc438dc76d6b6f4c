"""Every route that returns a written value, read back (roundtrip.Store).

``Reads(store).check(kept, consumers, batch)`` reads the provider list
(whole and under each filter: name, uuid, member_of, in_tree, resources,
required), each provider, its aggregates, traits and allocations, each
consumer's allocations, the usages of each project and user (and
consumer type at 1.38), the allocation candidates' provider summaries
and the capacity metrics' labels; it collects every value that does not
come back as written and raises one AssertionError naming them all.
The command line's outputs (``placement-manage explain`` and ``audit``)
are read by ``roundtrip_cli``.
"""
from prometheus_client import parser as prometheus_parser

from placement.testing import roundtrip

USAGES_VERSION = 'placement 1.9'


class Reads:

    def __init__(self, store):
        self.store = store
        self.problems = []

    def get(self, path, query=(), version=roundtrip.VERSION):
        request, answer = self.store.send('GET', path, query=query,
                                          version=version)
        return self.store.expect(request, answer, 200)

    def differ(self, where, got, want):
        if got != want:
            self.problems.append('%s: got %r, wrote %r' % (where, got, want))

    def check(self, kept, consumers, batch):
        self.problems = []
        self.provider_list()
        for provider in kept:
            self.one_provider(provider)
            self.list_filters(provider)
        self.grouped_filters(batch)
        for consumer in consumers:
            self.consumer(consumer)
        self.usages(consumers)
        self.candidates(batch)
        self.metrics()
        if self.problems:
            raise AssertionError('%d values did not come back as written on '
                                 '%s:\n%s' % (len(self.problems),
                                              self.store.backend,
                                              '\n'.join(self.problems)))

    # --- providers -----------------------------------------------------

    @staticmethod
    def _listed(body):
        return {p['uuid']: (p['name'], p['parent_provider_uuid'],
                            p['root_provider_uuid'])
                for p in body['resource_providers']}

    @staticmethod
    def _written(provider):
        return (provider.name, provider.parent, provider.root)

    def provider_list(self):
        listed = self._listed(self.get('/resource_providers'))
        for provider in self.store.providers.values():
            self.differ('GET /resource_providers: %s' % provider.uuid,
                        listed.get(provider.uuid), self._written(provider))

    def _filtered(self, key, value, want_uuids):
        listed = self._listed(self.get('/resource_providers',
                                       ((key, value),)))
        self.differ('GET /resource_providers?%s=%r: uuids' % (key, value),
                    sorted(listed), sorted(want_uuids))
        for rp_uuid, found in listed.items():
            provider = self.store.providers.get(rp_uuid)
            if provider is not None:
                self.differ('GET /resource_providers?%s=%r: %s' % (
                    key, value, rp_uuid), found, self._written(provider))

    def list_filters(self, provider):
        self._filtered('name', provider.name,
                       self.store.equal_names(provider.name))
        self._filtered('uuid', provider.uuid, [provider.uuid])

    def grouped_filters(self, batch):
        providers = self.store.providers.values()
        for aggregate in sorted({a for ags in batch.aggregates
                                 for a in ags}):
            self._filtered('member_of', aggregate, [
                p.uuid for p in providers if aggregate in p.aggregates])
        roots = {p.root for p in providers if p.resource_class ==
                 batch.resource_class}
        for root in sorted(roots):
            self._filtered('in_tree', root, [p.uuid for p in providers
                                             if p.root == root])
        self._filtered('resources', '%s:1' % batch.resource_class, [
            p.uuid for p in providers
            if p.resource_class == batch.resource_class])
        self._filtered('required', batch.trait, [
            p.uuid for p in providers if p.trait == batch.trait])

    def one_provider(self, provider):
        path = '/resource_providers/%s' % provider.uuid
        got = self.get(path)
        self.differ('GET ' + path, (got['name'], got['parent_provider_uuid'],
                                    got['root_provider_uuid']),
                    self._written(provider))
        self.differ('GET %s/aggregates' % path,
                    sorted(self.get(path + '/aggregates')['aggregates']),
                    sorted(provider.aggregates))
        self.differ('GET %s/traits' % path, self.get(path + '/traits')[
            'traits'], [provider.trait])
        want = {c.uuid: c.resources for c in self.store.consumers.values()
                if c.provider == provider.uuid and not c.emptied}
        got = self.get(path + '/allocations')['allocations']
        self.differ('GET %s/allocations' % path, {
            consumer: a['resources'] for consumer, a in got.items()}, want)

    # --- consumers and usages ------------------------------------------

    def consumer(self, consumer):
        if consumer.emptied:
            return
        path = '/allocations/%s' % consumer.uuid
        got = self.get(path)
        self.differ('GET ' + path, (
            got['project_id'], got['user_id'], got['consumer_type'],
            {rp: a['resources'] for rp, a in got['allocations'].items()}), (
            consumer.stored_project, consumer.stored_user,
            consumer.consumer_type, {consumer.provider: consumer.resources}))

    def _sum(self, project, user=None, consumer_type=None):
        """{class: amount} and the consumer count of the live consumers
        the database files under ``project`` (and ``user``, type)."""
        total, count = {}, 0
        for consumer in self.store.consumers.values():
            if consumer.emptied or consumer.stored_project != project or (
                    user is not None and consumer.stored_user != user) or (
                    consumer_type not in (None, consumer.consumer_type)):
                continue
            count += 1
            for rc, amount in consumer.resources.items():
                total[rc] = total.get(rc, 0) + amount
        return total, count

    def usages(self, consumers):
        pairs = sorted({(c.project, c.stored_project, c.user, c.stored_user,
                         c.consumer_type) for c in consumers})
        for project, stored_project, user, stored_user, ctype in pairs:
            query = (('project_id', project), ('user_id', user))
            self.differ('GET /usages?project_id=%r&user_id=%r' % (
                project, user), self.get('/usages', query, USAGES_VERSION)[
                    'usages'], self._sum(stored_project, stored_user)[0])
            self.differ('GET /usages?project_id=%r' % project, self.get(
                '/usages', query[:1], USAGES_VERSION)['usages'],
                self._sum(stored_project)[0])
            total, count = self._sum(stored_project, stored_user, ctype)
            got = self.get('/usages', query + (('consumer_type', ctype),))
            self.differ('GET /usages?project_id=%r&user_id=%r&'
                        'consumer_type=%s' % (project, user, ctype),
                        got['usages'], {ctype: dict(
                            total, consumer_count=count)} if count else {})

    # --- candidates and metrics ----------------------------------------

    def candidates(self, batch):
        query = (('resources', '%s:1' % batch.resource_class),
                 ('required', batch.trait))
        summaries = self.get('/allocation_candidates', query)[
            'provider_summaries']
        for provider in self.store.providers.values():
            if (provider.resource_class, provider.trait) != (
                    batch.resource_class, batch.trait):
                continue
            found = summaries.get(provider.uuid)
            if found is None:
                self.problems.append('GET /allocation_candidates: no '
                                     'summary of %s' % provider.uuid)
                continue
            used = sum(c.resources[batch.resource_class]
                       for c in self.store.consumers.values()
                       if c.provider == provider.uuid and not c.emptied)
            self.differ('GET /allocation_candidates: summary of %s'
                        % provider.uuid, (
                            found['resources'].get(batch.resource_class),
                            batch.trait in found['traits'],
                            found['parent_provider_uuid'],
                            found['root_provider_uuid']),
                        ({'capacity': 64, 'used': used}, True,
                         provider.parent, provider.root))

    def metrics(self):
        """openstack_placement_resource_total{hostname=<name>,
        resourcetype=<class>} for every provider kept."""
        status, body = self.store.scrape('/metrics')
        if status != 200:
            self.problems.append('GET /metrics answered %d' % status)
            return
        totals = {}
        for family in prometheus_parser.text_string_to_metric_families(
                body.decode('utf-8')):
            for sample in family.samples:
                if sample.name == 'openstack_placement_resource_total':
                    key = (sample.labels['hostname'],
                           sample.labels['resourcetype'])
                    totals[key] = sample.value
        for provider in self.store.providers.values():
            for rc in ('VCPU', provider.resource_class):
                self.differ('GET /metrics: total of %r %s' % (
                    provider.name, rc), totals.get((provider.name, rc)),
                    float(roundtrip.INVENTORY['total']))
