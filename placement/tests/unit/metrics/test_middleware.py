"""The cause label of a 503."""
import unittest

from placement import exception
from placement.metrics import middleware
from placement import observe


class UnavailableCauseTest(unittest.TestCase):

    def cause(self, exc=None, dispatched=True):
        environ = {}
        if dispatched:
            observe.route(environ, '/resource_providers')
        if exc is not None:
            observe.unavailable(environ, exc)
        return middleware.unavailable_cause(environ)

    def test_the_database_failure_that_ran_out_of_budget(self):
        self.assertEqual('lost_connection', self.cause(
            exception.DatabaseUnavailable(reason='lost connection: (2003)')))
        self.assertEqual('node_not_ready', self.cause(
            exception.DatabaseUnavailable(reason='node not ready: 1047')))

    def test_a_commit_whose_outcome_is_unknown(self):
        self.assertEqual('commit_outcome_unknown', self.cause(
            exception.CommitOutcomeUnknown(reason='COMMIT outcome unknown')))

    def test_an_unknown_reason_is_other(self):
        self.assertEqual('other', self.cause(
            exception.DatabaseUnavailable(reason='something else')))

    def test_before_dispatch_it_is_auth(self):
        self.assertEqual('auth', self.cause(dispatched=False))
        self.assertEqual('other', self.cause())

    def test_every_cause_is_declared(self):
        for exc in (exception.DatabaseUnavailable(reason='lost connection'),
                    exception.CommitOutcomeUnknown(reason='x')):
            self.assertIn(self.cause(exc), middleware.UNAVAILABLE_CAUSES)
