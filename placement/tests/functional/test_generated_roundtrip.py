"""Every value comes back as written (issue 36), proven by generation.

Each example draws a batch of hostile but valid values (provider names
of up to 200 characters heavy on quotes, brackets, backslashes, format
markers, control and 4-byte characters; project and user ids; consumer
types; aggregate uuids; custom class and trait names: testing/hostile),
writes them in adjacent rows through the live service, then reads every
route that returns them (testing/roundtrip_reads) and the JSON output of
``placement-manage explain`` and ``audit`` (testing/roundtrip_cli). The
batches pile up in one database per backend, so later reads see earlier
batches' rows beside their own. Every answer is also checked as in the
other generated tests (no 5xx, the error body, the OpenAPI document).

A value the backend cannot store (beyond U+FFFF on MySQL's ``utf8``,
NUL on PostgreSQL) must be refused with the documented 400; what equals
what is the database's own comparison (testing/roundtrip).
"""
import random
import shutil
import tempfile

import hypothesis

from placement.tests.functional import generated_base
from placement.testing import backends
from placement.testing import generated_settings
from placement.testing import openapi_check
from placement.testing import probe as probe_module
from placement.testing import roundtrip
from placement.testing import roundtrip_cli
from placement.testing import roundtrip_reads

EXAMPLES = generated_settings.examples(10)
# The two names of issue 36, made one after the other (no backslash in
# the batch), with a child under the second.
ISSUE_BATCH = roundtrip.Batch(
    names=['a",["', 'b"],7,8,9],["ffffffff-0000-0000-0000-000000000000",'
           '"fake', 'c'],
    parents=[None, None, 1],
    aggregates=[['aaaaaaaa-0000-4000-8000-000000000000'], [], []],
    resource_class='CUSTOM_ISSUE_36', trait='CUSTOM_ISSUE_36',
    consumers=[('p"],["', 'u",7,["', 'INSTANCE', 0),
               ('p"],["', 'u2', 'MIGRATION', 1)])

# Values that differ only by case, accents or trailing spaces: distinct
# on SQLite and PostgreSQL; on MySQL (utf8_general_ci) the later
# providers are duplicates (409) and the later project and user ids name
# the first ones' rows.
COLLATION_BATCH = roundtrip.Batch(
    names=['Name', 'name ', 'NAME', 'n\u00e0me', 'n\u00c0ME  '],
    parents=[None, 0, None, None, 3],
    aggregates=[['bbbbbbbb-0000-4000-8000-000000000000']] * 5,
    resource_class='CUSTOM_COLLATION', trait='CUSTOM_COLLATION',
    consumers=[('proj', 'user', 'INSTANCE', 0),
               ('PROJ', 'User ', 'INSTANCE', 1),
               ('pr\u00f2j', 'USER', 'MIGRATION', 2),
               ('proj ', 'us\u00e9r', 'INSTANCE', 3)])


class _RoundTrip:

    backend_name = None

    def setUp(self):
        super().setUp()
        backend = backends.BACKENDS[self.backend_name]
        if backend not in backends.available():
            self.skipTest('%s is not available' % self.backend_name)
        metrics_dir = tempfile.mkdtemp(prefix='placement-metrics-')
        self.addCleanup(shutil.rmtree, metrics_dir, True)
        self.probe = probe_module.Probe(
            backend, checker=openapi_check.checker(), **{
                'metrics.enabled': True,
                'metrics.multiprocess_dir': metrics_dir,
                'metrics.capacity_cache_seconds': 0.0})
        self.addCleanup(self.probe.close)
        self.addCleanup(lambda: probe_module.report(self.id(), self.probe))
        self.store = roundtrip.Store(
            self.probe, random.Random(generated_settings.SEED))
        self.addCleanup(self.store.close)
        self.cli = roundtrip_cli.Cli(self.store)
        self.addCleanup(self.cli.close)

    def round_trip(self, batch):
        """Write ``batch``, read it all back; fail on any difference."""
        kept, consumers = self.store.write(batch)
        if consumers:
            self.store.empty(consumers[0])
        roundtrip_reads.Reads(self.store).check(kept, consumers, batch)
        problems = self.cli.explain(batch, kept) + self.cli.audit()
        if problems:
            raise AssertionError('\n'.join(problems))

    def test_values_equal_to_the_database_come_back_as_stored(self):
        self.round_trip(COLLATION_BATCH)

    def test_values_come_back_as_written(self):

        @hypothesis.seed(generated_settings.SEED)
        @generated_settings.settings(EXAMPLES, phases=[
            hypothesis.Phase.explicit, hypothesis.Phase.generate])
        @hypothesis.example(ISSUE_BATCH)
        @hypothesis.given(roundtrip.batches())
        def check(batch):
            self.round_trip(batch)
        check()


generated_base.for_each_backend(_RoundTrip, globals())
