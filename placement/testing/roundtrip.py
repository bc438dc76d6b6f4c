"""Values written through the API and read back: the round-trip tests.

``batches()`` draws one batch of hostile but valid values
(``hostile.provider_names`` and friends): providers made one after the
other (so their rows are adjacent), some nested, in aggregates, with a
custom class and a custom trait of the batch's own, and consumers of
several projects, users and consumer types claiming on them.

``Store`` writes a batch through a ``probe.Probe`` (every answer is
checked there: no 5xx, the error body, the OpenAPI document) and keeps
what it wrote; ``roundtrip_reads`` then has the routes that return those
values read them back (``roundtrip_checks``).

What "as written" means on each backend is asked of the database
itself, never of the service: a MySQL database of the ``utf8`` set
compares text by its collation (``utf8_general_ci``: case, accents and
trailing spaces ignored), so a second provider named ``A`` beside ``a``
is a duplicate (409), and a project id ``A`` beside ``a`` is the same
project, read back as the first one written; the database refuses
characters beyond U+FFFF there, and PostgreSQL refuses NUL, each a 400
(``hostile.storable``). ``Store.stored`` asks the database which
stored value equals a value written.
"""
import dataclasses
import json
import uuid as uuid_module

from hypothesis import strategies as st
import sqlalchemy as sa

from placement.db import models
from placement.testing.generated_request import Request
from placement.testing import hostile
from placement.testing import live_server
from placement.testing import seed_data

VERSION = 'placement 1.39'
HEADERS = seed_data.headers(VERSION)
# The documented 400 for a value the database cannot store (db/api.py).
UNSTORABLE = 'a value the database cannot store'
DUPLICATE = 'placement.duplicate_name'
INVENTORY = {'total': 64, 'max_unit': 64}


@dataclasses.dataclass
class Batch:
    names: list          # provider names, made in this order
    parents: list        # per provider: the index of an earlier one, or None
    aggregates: list     # per provider: aggregate uuids
    resource_class: str  # a custom class every provider has inventory of
    trait: str           # a custom trait every provider has
    consumers: list      # [(project, user, consumer type, provider index)]
    renames: list = ()   # new names for the first providers made (PUT)


@st.composite
def batches(draw, min_providers=3, max_providers=8):
    """A Batch: names unique among themselves (the database may still
    find two equal), half of the batches without any backslash; a third
    start with a ``hostile.forged_pairs`` pair, in an aggregate of
    their own batch."""
    forge = draw(st.integers(0, 2)) == 0
    backslashes = not forge and draw(st.booleans())
    names = draw(st.lists(hostile.provider_names(backslashes),
                          min_size=min_providers, max_size=max_providers,
                          unique=True))
    if forge:
        pair = list(draw(hostile.forged_pairs()))
        names = pair + [name for name in names if name not in pair]
    parents = [None] + [draw(st.one_of(st.none(), st.integers(0, i - 1)))
                        for i in range(1, len(names))]
    pool = draw(st.lists(hostile.aggregate_uuids(), min_size=1, max_size=3,
                         unique=True))
    aggregates = [draw(st.lists(st.sampled_from(pool), max_size=2,
                                unique=True)) for _ in names]
    if forge:
        # The pair alone in a list of no backslash: ?member_of=pool[0].
        for index in (0, 1):
            aggregates[index] = sorted(set(aggregates[index]) | {pool[0]})
    projects = draw(st.lists(hostile.external_ids(), min_size=1,
                             max_size=3, unique=True))
    users = draw(st.lists(hostile.external_ids(), min_size=1, max_size=3,
                          unique=True))
    types = draw(st.lists(hostile.consumer_types(), min_size=1, max_size=3,
                          unique=True))
    consumers = draw(st.lists(st.tuples(
        st.sampled_from(projects), st.sampled_from(users),
        st.sampled_from(types), st.integers(0, len(names) - 1)),
        min_size=2, max_size=6))
    renames = draw(st.lists(hostile.provider_names(backslashes),
                            max_size=2, unique=True))
    return Batch(names, parents, aggregates,
                 draw(hostile.custom_names()), draw(hostile.custom_names()),
                 consumers, renames)


@dataclasses.dataclass
class Provider:
    uuid: str
    name: str
    parent: str
    root: str
    aggregates: list
    resource_class: str
    trait: str


@dataclasses.dataclass
class Consumer:
    uuid: str
    project: str        # as written
    user: str
    consumer_type: str
    provider: str
    resources: dict
    stored_project: str = None   # the stored value the database finds
    stored_user: str = None
    emptied: bool = False        # its allocations removed behind the API


class Store:
    """Writes batches through ``probe``; remembers every value kept."""

    def __init__(self, probe, rand):
        self.probe = probe
        self.backend = probe.backend
        self.rand = rand
        self.engine = sa.create_engine(probe.placement.url)
        self.providers = {}      # uuid -> Provider
        self.consumers = {}      # uuid -> Consumer
        self.refused = {'storable': 0, 'duplicate': 0, 'merged': 0}
        self.answers = []        # every answer's (request, status)

    def close(self):
        self.engine.dispose()

    def uuid(self):
        return str(uuid_module.UUID(int=self.rand.getrandbits(128),
                                    version=4))

    # --- talking -------------------------------------------------------

    def send(self, method, path, body=None, query=(), version=VERSION):
        data = json.dumps(body).encode() if body is not None else b''
        headers = HEADERS if version == VERSION else seed_data.headers(
            version)
        request = Request(method, path, tuple(query), headers, data)
        answer, found = self.probe.send(request)
        if found:
            raise AssertionError(self.probe.failure(request, answer, found))
        self.answers.append((request, answer.status))
        return request, answer

    def scrape(self, path):
        """(status, body) of a GET outside the OpenAPI document
        (/metrics), with the admin token; a 5xx is counted and fails."""
        answer = live_server.send(self.probe.server.port, 'GET', path,
                                  (('x-auth-token', 'admin'),))
        self.probe.sent += 1
        if answer.status >= 500:
            self.probe.server_errors += 1
            raise AssertionError('GET %s answered %d on %s: %s' % (
                path, answer.status, self.backend, answer.body[:600]))
        return answer.status, answer.body

    def expect(self, request, answer, status):
        if answer.status != status:
            raise AssertionError('expected %d on %s, got %d\nrequest: %s\n'
                                 'answer: %s\nas a gabbi test:\n%s' % (
                                     status, self.backend, answer.status,
                                     request.describe(), answer.body[:600],
                                     request.as_gabbi(answer.status)))
        return json.loads(answer.body) if answer.body else None

    def _refused(self, request, answer, text):
        """Whether a 4xx is one the backend must give for ``text``."""
        if not hostile.storable(self.backend, text):
            if answer.status == 400 and UNSTORABLE in answer.body.decode():
                self.refused['storable'] += 1
                return True
            raise AssertionError(
                '%s cannot store %r: expected the documented 400, got %d '
                '%s' % (self.backend, text, answer.status, answer.body[:300]))
        return False

    # --- the database as the oracle of equality ------------------------

    def stored(self, column, value):
        """The stored values of ``column`` the database finds equal to
        ``value`` (its own comparison: a collation on MySQL)."""
        with self.engine.connect() as conn:
            found = [row[0] for row in conn.execute(
                sa.select(column).where(column == value))]
            conn.rollback()
        return found

    def equal_names(self, name):
        rp = models.resource_providers
        with self.engine.connect() as conn:
            found = {row[0] for row in conn.execute(
                sa.select(rp.c.uuid).where(rp.c.name == name))}
            conn.rollback()
        return found

    # --- writing a batch -----------------------------------------------

    def write(self, batch):
        """Make the batch's providers, inventories, traits, aggregates
        and claims; return the providers and consumers kept."""
        self.send('PUT', '/resource_classes/%s' % batch.resource_class)
        self.send('PUT', '/traits/%s' % batch.trait)
        made = []
        for index, name in enumerate(batch.names):
            parent = batch.parents[index]
            parent = made[parent] if parent is not None and parent < len(
                made) and made[parent] is not None else None
            made.append(self._provider(name, parent, batch))
        for provider, aggregates in zip(made, batch.aggregates):
            if provider is not None:
                self._furnish(provider, aggregates, batch)
        kept = [p for p in made if p is not None]
        for provider, name in zip(kept, batch.renames):
            self._rename(provider, name)
        consumers = [self._claim(owner, made) for owner in batch.consumers]
        return kept, [c for c in consumers if c is not None]

    def _provider(self, name, parent, batch):
        rp_uuid = self.uuid()
        body = {'name': name, 'uuid': rp_uuid,
                'parent_provider_uuid': parent.uuid if parent else None}
        request, answer = self.send('POST', '/resource_providers', body)
        if answer.status != 200:
            if self._refused(request, answer, name):
                return None
            if answer.status == 409 and DUPLICATE in answer.body.decode():
                if self.equal_names(name):
                    self.refused['duplicate'] += 1
                    return None
            self.expect(request, answer, 200)
        got = json.loads(answer.body)
        if got['name'] != name:
            raise AssertionError('POST answered name %r for %r' % (
                got['name'], name))
        provider = Provider(rp_uuid, name, parent.uuid if parent else None,
                            parent.root if parent else rp_uuid, [],
                            batch.resource_class, batch.trait)
        self.providers[rp_uuid] = provider
        return provider

    def _rename(self, provider, name):
        request, answer = self.send(
            'PUT', '/resource_providers/%s' % provider.uuid,
            {'name': name, 'parent_provider_uuid': provider.parent})
        if answer.status != 200:
            if self._refused(request, answer, name):
                return
            if answer.status == 409 and DUPLICATE in answer.body.decode():
                if self.equal_names(name) - {provider.uuid}:
                    self.refused['duplicate'] += 1
                    return
            self.expect(request, answer, 200)
        got = json.loads(answer.body)['name']
        if got != name:
            raise AssertionError('PUT answered name %r for %r' % (got, name))
        provider.name = name

    def _furnish(self, provider, aggregates, batch):
        path = '/resource_providers/%s' % provider.uuid
        request, answer = self.send('PUT', path + '/inventories', {
            'resource_provider_generation': 0, 'inventories': {
                'VCPU': INVENTORY, batch.resource_class: INVENTORY}})
        self.expect(request, answer, 200)
        request, answer = self.send('PUT', path + '/traits', {
            'resource_provider_generation': 1, 'traits': [batch.trait]})
        self.expect(request, answer, 200)
        request, answer = self.send('PUT', path + '/aggregates', {
            'resource_provider_generation': 2, 'aggregates': aggregates})
        got = self.expect(request, answer, 200)
        provider.aggregates = list(aggregates)
        if sorted(got['aggregates']) != sorted(aggregates):
            raise AssertionError('PUT aggregates answered %s for %s' % (
                got['aggregates'], aggregates))

    def _claim(self, owner, made):
        project, user, consumer_type, index = owner
        provider = made[index] or next(
            (p for p in made if p is not None), None)
        if provider is None:
            return None
        consumer = Consumer(self.uuid(), project, user, consumer_type,
                            provider.uuid, {'VCPU': 1,
                                            provider.resource_class: 2})
        request, answer = self.send(
            'PUT', '/allocations/%s' % consumer.uuid, {
                'allocations': {provider.uuid: {
                    'resources': consumer.resources}},
                'project_id': project, 'user_id': user,
                'consumer_type': consumer_type, 'consumer_generation': None})
        if answer.status != 204:
            if self._refused(request, answer, project + user):
                return None
            self.expect(request, answer, 204)
        consumer.stored_project = self._one_stored(models.projects, project)
        consumer.stored_user = self._one_stored(models.users, user)
        if (consumer.stored_project, consumer.stored_user) != (project,
                                                               user):
            self.refused['merged'] += 1
        self.consumers[consumer.uuid] = consumer
        return consumer

    def _one_stored(self, table, value):
        found = self.stored(table.c.external_id, value)
        if len(found) != 1:
            raise AssertionError('%s: %d rows equal to %r' % (
                table.name, len(found), value))
        if found[0] != value and self.backend != 'mysql':
            raise AssertionError('%s: stored %r for %r on %s' % (
                table.name, found[0], value, self.backend))
        return found[0]

    def empty(self, consumer):
        """Remove ``consumer``'s allocations behind the API, as a writer
        stopped halfway leaves them: an ``empty_consumer`` for audit."""
        allocations = models.allocations
        with self.engine.begin() as conn:
            conn.execute(sa.delete(allocations).where(
                allocations.c.consumer_id == consumer.uuid))
        consumer.emptied = True
