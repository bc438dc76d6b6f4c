"""The one retry policy of every database operation.

Which failures are worth running an operation again, decided from the
driver's error (``classify``), and the loop that reruns a whole operation
within a time budget with jittered backoff (``run``). Pure policy: the
engine, the transactions and the operations live in ``db.api`` and
``objects``; nothing here opens a connection.

A failure is retried only when it happened before COMMIT, so the attempt
left nothing behind. A connection lost *during* COMMIT is ambiguous (the
write may have landed): ``db.api.transaction`` raises AmbiguousCommit
for it, and ``run`` asks the operation's own post-condition whether its
write is there before it retries.
"""
import contextvars
import dataclasses
import enum
import random
import time
import typing

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from placement import exception

LOG = logging.getLogger(__name__)


class Failure(enum.Enum):
    """Why an attempt failed, for the failures a rerun can cure."""
    # Deadlock, Galera certification failure, lock wait timeout,
    # serialization failure: another writer won; run again.
    RACE = 'lost race'
    # The connection was refused, lost or killed: run again on a new one.
    DISCONNECT = 'lost connection'
    # The node is up but cannot serve (Galera joining or not in the
    # primary component, server shutting down): run again elsewhere.
    NOT_READY = 'node not ready'
    # A unique key taken by a concurrent creator of the same row; only
    # retried by operations that create rows on demand.
    DUPLICATE = 'duplicate key'
    # SQLite's one writer is busy (another connection of this process or
    # another holds the lock): run again after a pause; when the budget
    # runs out first, the database is unavailable (503), not a race (409).
    BUSY = 'database busy'


# Called with the Failure of each failed attempt that is to be run
# again, just before the backoff wait: how the service metrics count retries
# and notice fail-overs without this package knowing of them. A
# callback must be quick and must not raise.
OBSERVERS = []


def _notify(failure):
    for observer in OBSERVERS:
        observer(failure)


# MySQL / MariaDB error numbers (server and client side).
MYSQL_ERRORS = {
    1205: Failure.RACE,          # Lock wait timeout exceeded
    1213: Failure.RACE,          # Deadlock; Galera certification failure
    # "Failed to read auto-increment value from storage engine": InnoDB's
    # answer when the statement waiting for the table's AUTO-INC lock (an
    # INSERT ... SELECT takes it) is the deadlock victim, e.g. a child's
    # INSERT raced by its parent's DELETE; the transaction is rolled back.
    1467: Failure.RACE,
    1040: Failure.NOT_READY,     # Too many connections
    1047: Failure.NOT_READY,     # WSREP has not yet prepared node
    1053: Failure.NOT_READY,     # Server shutdown in progress
    1180: Failure.NOT_READY,     # Got error during COMMIT (non-primary)
    1927: Failure.DISCONNECT,    # Connection was killed
    2002: Failure.DISCONNECT,    # Can't connect through socket
    2003: Failure.DISCONNECT,    # Can't connect to server
    2006: Failure.DISCONNECT,    # Server has gone away
    2013: Failure.DISCONNECT,    # Lost connection during query
    2014: Failure.DISCONNECT,    # Commands out of sync
    2055: Failure.DISCONNECT,    # Lost connection (system error)
    4031: Failure.DISCONNECT,    # Disconnected for inactivity
}

# PostgreSQL SQLSTATEs: exact codes first, then classes.
POSTGRESQL_ERRORS = {
    '40001': Failure.RACE,       # serialization_failure
    '40P01': Failure.RACE,       # deadlock_detected
    '55P03': Failure.RACE,       # lock_not_available
    '57P01': Failure.DISCONNECT,  # admin_shutdown
    '57P02': Failure.DISCONNECT,  # crash_shutdown
    '57P03': Failure.NOT_READY,  # cannot_connect_now (starting up)
    # The session lost (or already held) a statement psycopg prepared:
    # the connection is discarded (driver) and the retry prepares anew.
    '26000': Failure.NOT_READY,  # invalid_sql_statement_name
    '42P05': Failure.NOT_READY,  # duplicate_prepared_statement
    '08': Failure.DISCONNECT,    # connection_exception (class)
}

# SQLite primary result codes: SQLITE_BUSY, SQLITE_LOCKED ("database is
# locked", "database table is locked"); extended codes keep them in the
# low byte.
SQLITE_BUSY_CODES = frozenset([5, 6])

PLAN_CHANGED = 'cached plan must not change result type'
UNPREPARED_SQLSTATES = frozenset(['26000', '42P05'])

# Codes that mean "this connection should not be used again" although
# the driver does not call them a disconnect.
NOT_READY_MYSQL_CODES = frozenset(
    code for code, failure in MYSQL_ERRORS.items()
    if failure is Failure.NOT_READY)


def _driver_error(exc):
    """The DB-API exception under oslo.db's and SQLAlchemy's wrappers."""
    inner = getattr(exc, 'inner_exception', None) or exc
    return getattr(inner, 'orig', None) or inner


def mysql_code(error) -> typing.Optional[int]:
    """The MySQL error number of a DB-API error, or None."""
    args = getattr(error, 'args', ())
    if args and isinstance(args[0], int):
        return args[0]
    return None


def _sqlite_code(error) -> typing.Optional[int]:
    """The primary SQLite result code of a sqlite3 error, or None."""
    code = getattr(error, 'sqlite_errorcode', None)
    if not isinstance(code, int) or not type(error).__module__.startswith(
            'sqlite3'):
        return None
    return code & 0xff


def _postgresql_failure(error):
    pgcode = getattr(error, 'pgcode', None) or getattr(error, 'sqlstate',
                                                       None)
    if not pgcode:
        # libpq's own failures (refused, closed by the server, timed
        # out) carry no SQLSTATE.
        if (type(error).__module__.startswith('psycopg')
                and type(error).__name__ == 'OperationalError'):
            return Failure.DISCONNECT
        return None
    if pgcode == '0A000' and PLAN_CHANGED in str(error):
        # A prepared statement whose columns a schema change altered:
        # the next attempt runs on a new connection (is_unprepared).
        return Failure.NOT_READY
    return POSTGRESQL_ERRORS.get(pgcode, POSTGRESQL_ERRORS.get(pgcode[:2]))


def is_unprepared(error) -> bool:
    """True when a PostgreSQL DB-API ``error`` says the session lost,
    already holds or can no longer use a statement the driver prepared:
    the connection cannot serve that statement again."""
    pgcode = getattr(error, 'pgcode', None) or getattr(error, 'sqlstate',
                                                       None)
    return pgcode in UNPREPARED_SQLSTATES or (
        pgcode == '0A000' and PLAN_CHANGED in str(error))


def classify(exc: BaseException) -> typing.Optional[Failure]:
    """The Failure ``exc`` stands for, or None when a rerun cannot help."""
    if isinstance(exc, db_exc.DBDuplicateEntry):
        return Failure.DUPLICATE
    if isinstance(exc, db_exc.DBDeadlock):
        return Failure.RACE
    if not isinstance(exc, (db_exc.DBError, sa.exc.DBAPIError)):
        return None
    error = _driver_error(exc)
    code = mysql_code(error)
    if code in MYSQL_ERRORS:
        return MYSQL_ERRORS[code]
    failure = _postgresql_failure(error)
    if failure is not None:
        return failure
    if _sqlite_code(error) in SQLITE_BUSY_CODES:
        return Failure.BUSY
    if isinstance(exc, db_exc.DBConnectionError):
        return Failure.DISCONNECT
    inner = getattr(exc, 'inner_exception', None) or exc
    if getattr(inner, 'connection_invalidated', False):
        return Failure.DISCONNECT
    return None


class AmbiguousCommit(Exception):
    """The connection was lost while COMMIT was in flight.

    ``check`` is the operation's post-condition (see
    ``db.api.on_commit_lost``) or None when it stated none.
    """

    def __init__(self, cause, check=None, server=None):
        super().__init__('connection lost during COMMIT: %s' % cause)
        self.cause = cause
        self.check = check
        # (session id, host, port) of the server session that ran the
        # COMMIT, when known (MySQL).
        self.server = server


# A post-condition returns this when the operation's write is absent.
NOT_LANDED = object()


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How long and how often an operation is run again.

    ``budget`` bounds the whole operation, in seconds. Its attempts end
    ``commit_reserve`` seconds before the budget does (the driver
    timeouts are at most that long: db.engine.fitted_timeouts, so a
    statement that began in the attempts ends in time): the rest is kept
    for a COMMIT in flight, which Galera may hold while it evicts a dead
    node, and for looking up the outcome of a COMMIT whose answer was
    lost. Backoff before retry n is uniform in [0, min(cap, base * 2**n)].
    """
    budget: float = 30.0
    backoff: float = 0.05
    backoff_max: float = 0.5
    race_backoff: float = 0.005
    duplicate_retries: int = 20
    retry_after: int = 5
    # Longest wait for a COMMIT's answer (the driver's read timeout).
    commit_wait: float = 15.0

    @property
    def commit_reserve(self) -> float:
        """Seconds at the end of the budget kept for the COMMIT."""
        return min(self.commit_wait, self.budget / 2)


# The monotonic deadlines of the operation running in this context:
# (end of its attempts, end of its budget), or (None, None) when its
# budget is 0 (no retries, the driver's own timeouts).
DEADLINE = contextvars.ContextVar('placement_db_deadline', default=None)
_NO_BUDGET = (None, None)


def _left(index) -> typing.Optional[float]:
    deadlines = DEADLINE.get()
    if deadlines is None or deadlines[index] is None:
        return None
    return max(deadlines[index] - time.monotonic(), 0.0)


def remaining_for_commit() -> typing.Optional[float]:
    """Seconds left in the current operation's whole budget: what a
    COMMIT in flight and the check of a lost one may take."""
    return _left(1)


def _delay(policy, failure, attempt):
    base = policy.race_backoff if failure in (
        Failure.RACE, Failure.DUPLICATE) else policy.backoff
    return random.uniform(0, min(policy.backoff_max, base * 2 ** attempt))


def give_up(policy: RetryPolicy, failure: Failure, cause) -> Exception:
    """The exception an operation ends with when its retries ran out."""
    if failure in (Failure.RACE, Failure.DUPLICATE):
        # A race lost again and again is still a race: 409, re-read.
        return exception.ConcurrentUpdateDetected()
    return exception.DatabaseUnavailable(
        reason='%s: %s' % (failure.value, _driver_error(cause)),
        retry_after=policy.retry_after)


@dataclasses.dataclass
class _Attempts:
    policy: RetryPolicy
    on_duplicate: typing.Optional[str]
    deadline: float
    count: int = 0
    duplicates: int = 0

    def pause_or_give_up(self, failure, cause):
        """Sleep before the next attempt, or raise the final error."""
        if failure is Failure.DUPLICATE:
            self.duplicates += 1
            if self.on_duplicate != 'retry':
                if self.on_duplicate == 'conflict':
                    raise exception.ConcurrentUpdateDetected() from cause
                raise cause
            if self.duplicates > self.policy.duplicate_retries:
                raise give_up(self.policy, failure, cause) from cause
        delay = _delay(self.policy, failure, self.count)
        if time.monotonic() + delay >= self.deadline:
            raise give_up(self.policy, failure, cause) from cause
        LOG.info('Database operation failed (%s: %s); attempt %d in '
                 '%.3f s', failure.value, _driver_error(cause),
                 self.count + 2, delay)
        _notify(failure)
        time.sleep(delay)
        self.count += 1


def run(policy: RetryPolicy, func, args, kwargs, on_duplicate=None,
        verify=None):
    """Call ``func(*args, **kwargs)`` until it succeeds or the budget ends.

    ``verify(lost)`` resolves an AmbiguousCommit: it runs the
    post-condition ``lost.check`` on a fresh connection and returns its
    answer (NOT_LANDED or the operation's result). ``on_duplicate``: None
    lets a DBDuplicateEntry through, 'conflict' makes it
    ConcurrentUpdateDetected, 'retry' runs the operation again.
    """
    if DEADLINE.get() is not None:
        # Nested in another operation: the outermost one retries.
        return func(*args, **kwargs)
    final = time.monotonic() + policy.budget
    deadline = final - policy.commit_reserve
    token = DEADLINE.set((deadline, final) if policy.budget > 0
                         else _NO_BUDGET)
    attempts = None
    judged_absent = []
    try:
        while True:
            try:
                return func(*args, **kwargs)
            except AmbiguousCommit as exc:
                outcome = _resolve(exc, verify)
                if outcome is not NOT_LANDED:
                    return outcome
                if exc.check is not None:
                    judged_absent.append(exc)
                failure, cause = Failure.DISCONNECT, exc.cause
            except Exception as exc:
                failure, cause = classify(exc), exc
                if failure is None:
                    return _landed_after_all(judged_absent, verify, exc)
            if attempts is None:
                attempts = _Attempts(policy, on_duplicate, deadline)
            try:
                attempts.pause_or_give_up(failure, cause)
            except Exception as exc:
                return _landed_after_all(judged_absent, verify, exc)
    finally:
        DEADLINE.reset(token)


def _landed_after_all(judged_absent, verify, error):
    """Raise ``error``, the end of an operation, unless one of the
    COMMITs judged absent earlier in it (``judged_absent``) has landed
    since: then answer as the write that landed.

    A lost COMMIT may still be running on its server when its check ran
    elsewhere (behind a proxy that spreads connections over Galera
    nodes, or past the wait for the old session): the check does not
    see it, the operation runs again, and the late write lands first;
    the new attempt then conflicts with it or finds its work done (a
    DELETE finds nothing: 404; a new consumer exists: 409). Both writes
    touch the same rows, so at most one of them lands; asking again now
    tells which.
    """
    for lost in judged_absent:
        outcome = verify(lost)
        if outcome is not NOT_LANDED:
            break
    else:
        raise error
    LOG.info('A COMMIT judged absent landed after all (the next attempt '
             'ended with %r); answering as the write that landed', error)
    return outcome


def verify_with(policy: RetryPolicy, connect, check):
    """``check(conn)`` on a fresh connection from ``connect()``, retried
    (connection failures only) within what is left of the budget; past
    it, exception.CommitOutcomeUnknown.
    """
    left = remaining_for_commit()
    final = time.monotonic() + (policy.budget if left is None else left)
    attempts = _Attempts(policy, None, final)
    # The check may use the whole budget, COMMIT reserve included.
    token = DEADLINE.set(_NO_BUDGET if left is None else (final, final))
    try:
        while True:
            try:
                with connect() as conn:
                    return check(conn)
            except Exception as exc:
                failure = classify(exc)
                if failure is None or failure is Failure.DUPLICATE:
                    raise
                _pause_or_outcome_unknown(attempts, failure, exc)
    finally:
        DEADLINE.reset(token)


def _pause_or_outcome_unknown(attempts, failure, cause):
    # Out of budget, the write may or may not be there: not the plain
    # 503 nor a 409, which would both say that it is not.
    try:
        attempts.pause_or_give_up(failure, cause)
    except (exception.DatabaseUnavailable,
            exception.ConcurrentUpdateDetected) as exc:
        raise exception.CommitOutcomeUnknown(
            reason='COMMIT outcome unknown, %s: %s' % (
                failure.value, _driver_error(cause)),
            retry_after=attempts.policy.retry_after) from exc


def _resolve(exc, verify):
    if exc.check is None or verify is None:
        LOG.warning('COMMIT outcome unknown and the operation states no '
                    'post-condition; running it again: %s', exc.cause)
        return NOT_LANDED
    outcome = verify(exc)
    LOG.info('COMMIT outcome unknown (%s); the write %s', exc.cause,
             'is absent: retrying' if outcome is NOT_LANDED else 'landed')
    return outcome
