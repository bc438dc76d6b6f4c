"""Stateful sequences of claims against the live service.

Providers, inventories, claims (PUT and POST /allocations), moves,
reshapes and deletes in random orders, some with stale generations
(testing/claim_sequences): each answer as the model says, usages equal
to the model after every step, no claim over capacity, and every answer
checked as in the stateless tests. Seeded and bounded (see
testing/generated_settings).
"""
import hypothesis
from hypothesis import stateful

from placement.tests.functional import generated_base
from placement.testing import claim_sequences
from placement.testing import generated_settings

SEQUENCES = generated_settings.sequences(12)


class _ClaimSequences(generated_base.GeneratedCase):

    def test_claim_sequences_keep_the_books(self):
        machine = claim_sequences.bind(self.probe)
        stateful.run_state_machine_as_test(
            hypothesis.seed(generated_settings.SEED)(machine),
            settings=generated_settings.settings(
                SEQUENCES, stateful_step_count=generated_settings.STEPS))


generated_base.for_each_backend(_ClaimSequences, globals())
