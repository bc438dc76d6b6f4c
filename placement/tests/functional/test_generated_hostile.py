"""Hostile requests to every route of the live service (testing/hostile).

Odd microversion, Accept and Content-Type headers, missing or non-admin
tokens, bad unicode in paths and query strings, repeated query
parameters, bodies nested thousands deep, huge, not UTF-8, or valid
bodies with one value replaced. Every answer must have the properties of
``answer_checks`` and a 4xx must change no row. Seeded and bounded (see
testing/generated_settings).
"""
import hypothesis

from placement.tests.functional import generated_base
from placement.testing import generated_settings
from placement.testing import hostile

EXAMPLES = generated_settings.examples(200)


class _HostileRequests(generated_base.GeneratedCase):

    def test_hostile_requests_get_a_clean_answer(self):
        @hypothesis.seed(generated_settings.SEED)
        @generated_settings.settings(EXAMPLES)
        @hypothesis.given(hostile.requests(self.known))
        def check(request):
            self.send_and_check(request)
        check()


generated_base.for_each_backend(_HostileRequests, globals())
