"""db.retry: which driver errors are retried, and the retry loop itself.

Errors are the drivers' own exception classes wrapped as SQLAlchemy and
oslo.db wrap them; the loop runs plain functions (no database).
"""
import contextlib
import sqlite3
import time

from oslo_config import cfg
from oslo_db import exception as db_exc
import psycopg
import psycopg2
import pymysql
import sqlalchemy as sa
import testtools

from placement import conf as placement_conf
from placement.db import api as db_api
from placement.db import driver
from placement.db import engine as db_engine
from placement.db import retry
from placement import exception

F = retry.Failure


def mysql_error(code, message='x', cls=pymysql.err.OperationalError):
    return sa.exc.OperationalError('SELECT 1', {}, cls(code, message))


class _PgError(psycopg2.Error):
    """A psycopg2 error with the SQLSTATE the server would have sent
    (psycopg2 only sets ``pgcode`` from C)."""

    def __init__(self, pgcode):
        super().__init__('server said %s' % pgcode)
        self._code = pgcode

    @property
    def pgcode(self):
        return self._code


def pg_error(pgcode):
    return sa.exc.OperationalError('SELECT 1', {}, _PgError(pgcode))


def sqlite_error(code):
    """A sqlite3 OperationalError with the result code ``code``, wrapped
    as SQLAlchemy wraps it."""
    error = sqlite3.OperationalError('database is locked')
    error.sqlite_errorcode = code
    return sa.exc.OperationalError('UPDATE x', {}, error)


class ClassifyTest(testtools.TestCase):

    def test_mysql_error_table(self):
        for code, failure in (
                (1213, F.RACE), (1205, F.RACE), (1467, F.RACE),
                (2003, F.DISCONNECT), (2006, F.DISCONNECT),
                (2013, F.DISCONNECT), (1927, F.DISCONNECT),
                (1047, F.NOT_READY), (1053, F.NOT_READY), (1180, F.NOT_READY),
                (1062, None), (1064, None), (1146, None)):
            with self.subTest(code=code):
                self.assertIs(failure, retry.classify(mysql_error(code)))

    def test_oslo_wrappers_are_seen_through(self):
        self.assertIs(F.RACE, retry.classify(
            db_exc.DBDeadlock(mysql_error(1213))))
        self.assertIs(F.NOT_READY, retry.classify(
            db_exc.DBConnectionError(mysql_error(1047))))
        self.assertIs(F.DISCONNECT, retry.classify(
            db_exc.DBConnectionError(Exception('gone'))))
        self.assertIs(F.DUPLICATE, retry.classify(
            db_exc.DBDuplicateEntry(['name'], mysql_error(1062))))
        self.assertIsNone(retry.classify(
            db_exc.DBError(mysql_error(1146))))

    def test_postgresql_sqlstates(self):
        for pgcode, failure in (
                ('40001', F.RACE), ('40P01', F.RACE), ('55P03', F.RACE),
                ('57P01', F.DISCONNECT), ('08006', F.DISCONNECT),
                ('08001', F.DISCONNECT), ('57P03', F.NOT_READY),
                ('26000', F.NOT_READY), ('42P05', F.NOT_READY),
                ('0A000', None),
                ('23505', None), ('42P01', None), ('22003', None)):
            with self.subTest(pgcode=pgcode):
                self.assertIs(failure, retry.classify(pg_error(pgcode)))

    def test_prepared_statement_whose_columns_changed_is_rerun(self):
        error = _PgError('0A000')
        error.args = ('cached plan must not change result type',)
        self.assertIs(F.NOT_READY, retry.classify(
            sa.exc.NotSupportedError('SELECT x', {}, error)))
        # On a new connection: this one keeps the stale statement.
        self.assertTrue(retry.is_unprepared(error))

    def test_lost_prepared_statements_discard_the_connection(self):
        for pgcode, unprepared in (('26000', True), ('42P05', True),
                                   ('0A000', False), ('40001', False)):
            with self.subTest(pgcode=pgcode):
                self.assertIs(unprepared,
                              retry.is_unprepared(_PgError(pgcode)))

    def test_psycopg_errors_are_told_by_their_sqlstate(self):
        for pgcode, failure in (('40001', F.RACE), ('40P01', F.RACE),
                                ('57P01', F.DISCONNECT),
                                ('26000', F.NOT_READY), ('23505', None)):
            with self.subTest(pgcode=pgcode):
                error = psycopg.errors.lookup(pgcode)('server said')
                self.assertIs(failure, retry.classify(
                    sa.exc.OperationalError('SELECT 1', {}, error)))
        refused = psycopg.OperationalError('connection refused')
        self.assertIs(F.DISCONNECT, retry.classify(
            sa.exc.OperationalError('SELECT 1', {}, refused)))

    def test_libpq_failure_without_sqlstate_is_a_lost_connection(self):
        refused = sa.exc.OperationalError(
            'SELECT 1', {}, psycopg2.OperationalError('Connection refused'))
        self.assertIs(F.DISCONNECT, retry.classify(refused))

    def test_invalidated_connection_is_a_lost_connection(self):
        error = sa.exc.DBAPIError('SELECT 1', {}, Exception('closed'),
                                  connection_invalidated=True)
        self.assertIs(F.DISCONNECT, retry.classify(error))

    def test_sqlite_busy_and_locked_are_a_busy_database(self):
        for code in (5, 6, 517):  # BUSY, LOCKED, BUSY_SNAPSHOT
            self.assertIs(F.BUSY, retry.classify(sqlite_error(code)))
        self.assertIsNone(retry.classify(sqlite_error(1)))  # SQLITE_ERROR

    def test_other_exceptions_are_not_retried(self):
        for error in (ValueError('x'), exception.NotFound(),
                      exception.ConcurrentUpdateDetected()):
            self.assertIsNone(retry.classify(error))


class _Script:
    """A function failing with each of ``errors`` in turn, then
    returning 'done'."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return 'done'


@contextlib.contextmanager
def _no_connection():
    yield None


FAST = retry.RetryPolicy(budget=0.5, backoff=0.001, backoff_max=0.002,
                         race_backoff=0.001, duplicate_retries=2)


class RunTest(testtools.TestCase):

    def _run(self, func, policy=FAST, **kwargs):
        return retry.run(policy, func, (), {}, **kwargs)

    def test_retryable_failures_are_run_again(self):
        func = _Script(mysql_error(1213), mysql_error(2013),
                       pg_error('40001'), mysql_error(1047))
        self.assertEqual('done', self._run(func))
        self.assertEqual(5, func.calls)

    def test_other_errors_are_raised_at_once(self):
        func = _Script(exception.InvalidInput('bad'))
        self.assertRaises(exception.InvalidInput, self._run, func)
        self.assertEqual(1, func.calls)

    def test_lost_connection_past_the_budget_is_unavailable(self):
        func = _Script(*[mysql_error(2003)] * 10000)
        error = self.assertRaises(exception.DatabaseUnavailable,
                                  self._run, func)
        self.assertIn('lost connection', error.reason)
        self.assertEqual(5, error.retry_after)
        self.assertGreater(func.calls, 2)

    def test_busy_sqlite_past_the_budget_is_unavailable(self):
        func = _Script(*[sqlite_error(5)] * 10000)
        error = self.assertRaises(exception.DatabaseUnavailable,
                                  self._run, func)
        self.assertIn('database busy', error.reason)

    def test_race_past_the_budget_is_a_conflict(self):
        func = _Script(*[mysql_error(1213)] * 10000)
        self.assertRaises(exception.ConcurrentUpdateDetected,
                          self._run, func)

    def test_zero_budget_tries_once(self):
        func = _Script(mysql_error(2006))
        self.assertRaises(exception.DatabaseUnavailable, self._run, func,
                          policy=retry.RetryPolicy(budget=0))
        self.assertEqual(1, func.calls)

    def test_zero_budget_leaves_the_driver_timeouts_alone(self):
        seen = []

        def func():
            # Neither deadline (the attempts', the whole budget's) is set.
            seen.append(retry.DEADLINE.get())
            return 'done'
        self._run(func, policy=retry.RetryPolicy(budget=0))
        self.assertEqual([(None, None)], seen)

    def test_commit_reserve_is_half_the_budget_or_the_commit_wait(self):
        self.assertEqual(15.0, retry.RetryPolicy().commit_reserve)
        self.assertEqual(30.0, retry.RetryPolicy().budget)
        self.assertEqual(2.0, retry.RetryPolicy(
            budget=4, commit_wait=15).commit_reserve)
        self.assertEqual(5.0, retry.RetryPolicy(
            budget=60, commit_wait=5).commit_reserve)

    def test_attempts_end_before_the_commit_reserve(self):
        policy = retry.RetryPolicy(budget=1.0, commit_wait=0.5,
                                   backoff=0.001, backoff_max=0.002)
        seen, started = [], []

        def func():
            # (end of the attempts, end of the budget): exact, unlike two
            # readings of the clock.
            seen.append(retry.DEADLINE.get())
            started.append(time.monotonic())
            raise mysql_error(2003)
        self.assertRaises(exception.DatabaseUnavailable, self._run, func,
                          policy=policy)
        self.assertGreater(len(seen), 1)
        (attempts_end, budget_end), = set(seen)
        self.assertAlmostEqual(0.5, budget_end - attempts_end, places=6)
        # The attempts stopped at the reserve, not at the budget's end:
        # each attempt but the last was followed by another only when it
        # ended before the end of the attempts (an order of events, true
        # however slow the machine; the last may begin a backoff later).
        self.assertLess(max(started[:-1]), attempts_end)

    def test_a_lost_commit_is_checked_within_the_whole_budget(self):
        policy = retry.RetryPolicy(budget=0.4, commit_wait=0.2)
        seen = []

        def verify(lost):
            seen.append(retry.DEADLINE.get())
            return 'stored'
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'))
        self.assertEqual('stored', self._run(
            func, policy=policy,
            verify=lambda lost: retry.verify_with(
                policy, _no_connection, lambda conn: verify(lost))))
        (attempts_end, budget_end), = seen
        # The check may use the whole budget: no reserve held back.
        self.assertEqual(attempts_end, budget_end)

    def test_a_lost_commit_not_checkable_in_time_says_so(self):
        # A budget long enough for several checks on a busy machine.
        policy = retry.RetryPolicy(budget=1.0, backoff=0.001,
                                   backoff_max=0.002, commit_wait=0.5)
        calls = []

        def unreachable(conn):
            calls.append(1)
            raise mysql_error(2003)
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'))
        exc = self.assertRaises(
            exception.CommitOutcomeUnknown, self._run, func, policy=policy,
            verify=lambda lost: retry.verify_with(
                policy, _no_connection, unreachable))
        # Still the 503 of a database that is down, saying what is known.
        self.assertIsInstance(exc, exception.DatabaseUnavailable)
        self.assertIn('whether it took effect', str(exc))
        self.assertIn('COMMIT outcome unknown', exc.reason)
        self.assertEqual(1, func.calls)
        self.assertGreater(len(calls), 1)

    def test_duplicates_by_mode(self):
        dup = db_exc.DBDuplicateEntry(['uuid'], mysql_error(1062))
        self.assertRaises(db_exc.DBDuplicateEntry, self._run, _Script(dup))
        self.assertRaises(exception.ConcurrentUpdateDetected, self._run,
                          _Script(dup), on_duplicate='conflict')
        self.assertEqual('done', self._run(_Script(dup, dup),
                                           on_duplicate='retry'))
        func = _Script(dup, dup, dup, dup)
        self.assertRaises(exception.ConcurrentUpdateDetected, self._run,
                          func, on_duplicate='retry')
        self.assertEqual(3, func.calls)

    def test_nested_operation_leaves_retries_to_the_outer_one(self):
        inner = _Script(mysql_error(1213))

        def outer():
            self.assertIsNotNone(retry.remaining_for_commit())
            return self._run(inner)
        self.assertEqual('done', self._run(outer))
        self.assertEqual(2, inner.calls)
        self.assertIsNone(retry.remaining_for_commit())

    def test_lost_commit_that_landed_answers_the_check(self):
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'))
        seen = []

        def verify(lost):
            seen.append(lost.check)
            return 'stored'
        self.assertEqual('stored', self._run(func, verify=verify))
        self.assertEqual((['check'], 1), (seen, func.calls))

    def test_lost_commit_that_did_not_land_is_run_again(self):
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'))
        self.assertEqual('done', self._run(
            func, verify=lambda check: retry.NOT_LANDED))
        self.assertEqual(2, func.calls)

    def test_lost_commit_that_lands_late_answers_as_landed(self):
        # Judged absent, it lands before the next attempt, which then
        # finds its work done (a DELETE's 404, a new consumer's 409).
        verdicts = [retry.NOT_LANDED, 'stored']
        seen = []

        def verify(lost):
            seen.append(lost.check)
            return verdicts.pop(0)
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'),
                       exception.NotFound('gone already'))
        self.assertEqual('stored', self._run(func, verify=verify))
        self.assertEqual((['check', 'check'], 2), (seen, func.calls))

    def test_a_later_error_stands_when_the_lost_commit_stays_absent(self):
        seen = []

        def verify(lost):
            seen.append(lost.check)
            return retry.NOT_LANDED
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'),
                       exception.NotFound('not there'))
        self.assertRaises(exception.NotFound, self._run, func,
                          verify=verify)
        self.assertEqual(['check', 'check'], seen)

    def test_lost_commit_that_lands_while_the_retries_run_out(self):
        verdicts = [retry.NOT_LANDED, 'stored']
        func = _Script(retry.AmbiguousCommit(mysql_error(2013), 'check'),
                       *[mysql_error(2003)] * 10000)
        self.assertEqual('stored', self._run(
            func, verify=lambda lost: verdicts.pop(0)))
        self.assertGreater(func.calls, 2)

    def test_an_error_without_a_lost_commit_asks_nothing(self):
        func = _Script(mysql_error(1213), exception.NotFound('not there'))
        self.assertRaises(exception.NotFound, self._run, func,
                          verify=lambda lost: self.fail('asked'))

    def test_lost_commit_without_a_check_is_run_again(self):
        func = _Script(retry.AmbiguousCommit(mysql_error(2013)))
        self.assertEqual('done', self._run(func, verify=lambda c: 'x'))
        self.assertEqual(2, func.calls)

    def test_backoff_is_bounded(self):
        policy = retry.RetryPolicy(backoff=0.05, backoff_max=0.5,
                                   race_backoff=0.005)
        for attempt in range(12):
            self.assertLessEqual(
                retry._delay(policy, F.DISCONNECT, attempt),
                min(0.5, 0.05 * 2 ** attempt))
            self.assertLessEqual(retry._delay(policy, F.RACE, attempt),
                                 min(0.5, 0.005 * 2 ** attempt))


class DriverArgsTest(testtools.TestCase):

    def _args(self, url):
        return driver.connect_args(sa.engine.make_url(url),
                                   driver.Timeouts(3, 9, 8))

    def test_pymysql_gets_all_three_timeouts(self):
        self.assertEqual(
            {'connect_timeout': 3, 'read_timeout': 9, 'write_timeout': 8},
            self._args('mysql+pymysql://u@127.0.0.1/db'))

    def test_url_values_win(self):
        self.assertEqual(
            {'connect_timeout': 3, 'write_timeout': 8},
            self._args('mysql+pymysql://u@h/db?read_timeout=60'))

    def test_postgresql_gets_connect_timeout_and_keepalives(self):
        args = self._args('postgresql+psycopg2://u@h/db')
        self.assertEqual(3, args['connect_timeout'])
        self.assertEqual((1, 6), (args['keepalives'],
                                  args['keepalives_idle']))

    def test_sqlite_gets_nothing(self):
        self.assertEqual({}, self._args('sqlite://'))

    def test_psycopg_gets_connect_timeout_and_keepalives(self):
        args = self._args('postgresql+psycopg://u@h/db')
        self.assertEqual((3, 1, 6), (args['connect_timeout'],
                                     args['keepalives'],
                                     args['keepalives_idle']))


class FittedTimeoutsTest(testtools.TestCase):
    """Driver timeouts are fixed, checked against retry_budget once when
    the configuration loads (db.engine.fitted_timeouts)."""

    def _conf(self, **options):
        conf = cfg.ConfigOpts()
        placement_conf.register_opts(conf)
        conf([], project='placement', default_config_files=[])
        for name, value in options.items():
            conf.set_override(name, value, group='placement_database')
        return conf

    def _fitted(self, **options):
        timeouts = db_engine.fitted_timeouts(self._conf(**options))
        return timeouts.connect, timeouts.read, timeouts.write

    def test_the_defaults_fit_the_default_budget(self):
        self.assertEqual((5, 15, 15), self._fitted())

    def test_defaults_are_lowered_to_half_the_budget(self):
        self.assertEqual((5, 10, 10), self._fitted(retry_budget=20))
        self.assertEqual((1, 1, 1), self._fitted(retry_budget=3))
        # Never below a second.
        self.assertEqual((1, 1, 1), self._fitted(retry_budget=1))

    def test_no_budget_takes_the_options_as_they_are(self):
        self.assertEqual((60, 60, 60), self._fitted(
            retry_budget=0, connect_timeout=60, read_timeout=60,
            write_timeout=60))

    def test_options_set_too_long_stop_the_start_naming_them(self):
        error = self.assertRaises(
            exception.ConfigError, self._fitted, retry_budget=3,
            read_timeout=60, write_timeout=1)
        self.assertIn('read_timeout = 60', str(error))
        self.assertNotIn('write_timeout', str(error))
        self.assertIn('retry_budget (3.0 s)', str(error))
        self.assertEqual((2, 7, 7), self._fitted(
            retry_budget=14, connect_timeout=2, read_timeout=7,
            write_timeout=7))

    def test_the_policy_waits_for_a_commit_the_fitted_read_timeout(self):
        conf = self._conf(retry_budget=8)
        self.assertEqual(4, db_api.policy_from(conf).commit_wait)
        self.assertEqual(4, db_api.policy_from(conf).commit_reserve)
