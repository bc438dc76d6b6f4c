"""Server-side prepared statements for hot reads on PostgreSQL.

psycopg2 sends every statement as text, and PostgreSQL parses and plans
it each time: for the statements of GET /allocation_candidates that was
half the server's time (0.3 ms of planning for a 0.3 ms execution at 1,000
flat providers). A statement executed with the execution option
``PREPARE_OPTION`` goes instead as ``EXECUTE name(params)``, after one
``PREPARE name AS ...`` per connection; once PostgreSQL settles on a
generic plan, it is not planned again.

Safety:

- The name is a hash of the statement's text, so one name is never two
  statements, whoever prepared it on a shared server session. BLAKE2b,
  which Python computes itself: SHA-1 goes through OpenSSL, whose code
  that first call in a worker faults in (1 MiB of resident memory in
  each worker that the server needs for nothing else).
- Which names a connection holds is kept per DB-API connection (a weak
  key): a new connection after a reconnect starts with none.
- Only texts seen twice are prepared: one-off lists of ids (random draws)
  stay plain statements and do not fill the session.
- PostgreSQL replans a prepared statement itself after a schema change;
  if the result's columns changed ("cached plan must not change result
  type"), or the session lost its statements (DISCARD ALL, a pooler
  handing another server session: SQLSTATE 26000), or a name exists
  already (42P05), the error hook drops what this connection holds
  (``DEALLOCATE ALL`` before its next statement) and the retry policy
  runs the operation again. A lost or duplicate statement means the
  session is not ours alone (a transaction pooler): statements are then
  never prepared again by this engine.
"""
import hashlib
import re
import weakref

from oslo_log import log as logging
import sqlalchemy as sa

from placement.db import retry

LOG = logging.getLogger(__name__)

PREPARE_OPTION = 'placement_prepare'
# Texts prepared at most (a session holds no more statements), and
# texts remembered as seen once (that memory then starts over).
MAX_TEXTS = 256
# SQLSTATEs after which the session is not trusted with its statements.
LOST = '26000'        # invalid_sql_statement_name
DUPLICATE = '42P05'   # duplicate_prepared_statement

_PARAM = re.compile(r'%\((\w+)\)s')
_RESET = object()


class _Text:
    """A statement text as PREPARE and EXECUTE need it."""

    __slots__ = ('name', 'prepare', 'execute')

    def __init__(self, statement):
        names = []
        for name in _PARAM.findall(statement):
            if name not in names:
                names.append(name)
        self.name = 'pl_' + hashlib.blake2b(
            statement.encode(), digest_size=12).hexdigest()
        self.prepare = 'PREPARE %s AS %s' % (self.name, _PARAM.sub(
            lambda m: '$%d' % (names.index(m.group(1)) + 1), statement))
        self.execute = 'EXECUTE ' + self.name
        if names:
            self.execute += '(%s)' % ', '.join('%%(%s)s' % n for n in names)


class Preparer:
    """The before_cursor_execute and handle_error hooks of one engine.

    ``texts``: {statement: _Text} of the texts prepared (at most
    MAX_TEXTS, never forgotten, so that what a session holds is always
    among them); ``seen``: the texts seen once (forgotten when full).
    """

    def __init__(self):
        self.enabled = True
        self.texts = {}
        self.seen = set()
        self.sessions = weakref.WeakKeyDictionary()

    def before_cursor_execute(self, conn, cursor, statement, parameters,
                              context, executemany):
        if (not self.enabled or executemany or context is None
                or not context.execution_options.get(PREPARE_OPTION)
                or not isinstance(parameters, dict)):
            return statement, parameters
        text = self.texts.get(statement) or self._second_sight(statement)
        if text is None:
            return statement, parameters
        dbapi_conn = cursor.connection
        held = self.sessions.get(dbapi_conn)
        if held is None or held is _RESET:
            if held is _RESET:
                cursor.execute('DEALLOCATE ALL')
            held = self.sessions[dbapi_conn] = set()
        if text.name not in held:
            cursor.execute(text.prepare)
            held.add(text.name)
        return text.execute, parameters

    def _second_sight(self, statement):
        """A new _Text for ``statement`` when seen once before, else
        None (it is remembered as seen)."""
        if '%%' in statement or len(self.texts) >= MAX_TEXTS:
            return None
        if statement not in self.seen:
            if len(self.seen) >= MAX_TEXTS:
                self.seen = set()
            self.seen.add(statement)
            return None
        self.seen.discard(statement)
        text = self.texts[statement] = _Text(statement)
        return text

    def handle_error(self, context):
        error = context.original_exception
        code = getattr(error, 'pgcode', None)
        if code not in (LOST, DUPLICATE) and retry.PLAN_CHANGED not in str(
                error):
            return
        cursor = getattr(context.execution_context, 'cursor', None)
        dbapi_conn = getattr(cursor, 'connection', None)
        if dbapi_conn is not None:
            self.sessions[dbapi_conn] = _RESET
        if code in (LOST, DUPLICATE) and self.enabled:
            self.enabled = False
            LOG.warning('The database session lost or shares its prepared '
                        'statements (%s): statements are no longer '
                        'prepared. Is a transaction pooler in between?',
                        code)


def add_events(engine):
    """Prepare statements asking for it on ``engine`` (PostgreSQL)."""
    preparer = Preparer()
    sa.event.listen(engine, 'before_cursor_execute',
                    preparer.before_cursor_execute, retval=True)
    sa.event.listen(engine, 'handle_error', preparer.handle_error)
    return preparer
