"""Requests generated from the OpenAPI document, sent to the live service
at the microversions of testing/document_requests: schemathesis's
positive and negative cases for every operation, and plausible query
strings with a parameter given twice (testing/query_requests). Every
answer must have
the properties of ``answer_checks`` (no 5xx, the documented error body,
an answer the document describes) and a 4xx must change no row. Seeded
and bounded (see testing/generated_settings).
"""
import hypothesis
from hypothesis import strategies as st

from placement.tests.functional import generated_base
from placement.testing import document_requests
from placement.testing import generated_settings
from placement.testing import query_requests

EXAMPLES = generated_settings.examples(300)


class _DocumentRequests(generated_base.GeneratedCase):

    def test_document_requests_get_documented_answers(self):
        @hypothesis.seed(generated_settings.SEED)
        @generated_settings.settings(EXAMPLES)
        @hypothesis.given(st.one_of(
            document_requests.requests(self.known),
            document_requests.requests(self.known),
            query_requests.requests(self.known)))
        def check(request):
            self.send_and_check(request)
        check()


generated_base.for_each_backend(_DocumentRequests, globals())
