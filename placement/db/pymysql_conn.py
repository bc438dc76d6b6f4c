"""A PyMySQL connection that spares costs every request pays.

1. The ROLLBACK after a COMMIT. The pool resets a connection it takes
   back with ``rollback()``, and SQLAlchemy cannot tell it that the
   transaction was committed already: PyMySQL sends the ROLLBACK anyway,
   one more round trip after every write. This connection skips it when
   the last command sent was a COMMIT that the server answered with no
   transaction open (the OK packet's SERVER_STATUS_IN_TRANS bit clear),
   as psycopg2 and libpq skip a ROLLBACK outside a transaction (or a
   ROLLBACK sent already). Any other command, an error included, makes
   the next ROLLBACK go out.

2. The parsing of column definitions. Each SELECT's answer starts with
   one column-definition packet per column, which PyMySQL parses in
   Python (a sixth of a claim's CPU). The same statement gets the same
   packets byte for byte, so the parsed packet is remembered by its
   bytes and handed out again (bounded; one dict lookup; safe across
   threads, since a parsed packet is never changed once made). PyMySQL
   does everything else with it as usual.

3. The ROLLBACK after a read. A read with no snapshot to keep
   (``db.api.reader(snapshot=False)``) sets ``end_each``: each of its
   statements then goes out as ``<statement>;ROLLBACK`` in one packet
   (CLIENT_MULTI_STATEMENTS), so that the transaction the SELECT opened
   (and its read view) ends in the same round trip, and the pool's
   ROLLBACK is skipped as after a COMMIT. The connection goes back to
   the pool with no transaction open, as before: the next request reads
   a fresh snapshot. When the statement fails the server runs nothing
   after it, and the ROLLBACK goes out as usual.

4. A statement that needs no answer of its own before it: ``then(sql)``
   sends it after the next statement in the same packet (as a new
   root's UPDATE of its own root id, LAST_INSERT_ID(), after its
   INSERT: db.api.then_in_same_packet).

5. A statement whose answer is not needed, only its effect before the
   next one: after ``hold()``, the next statement is not sent but kept
   (its cursor sees no rows), and goes first in the packet of the
   statement after it; its answer is read and dropped, its error raised
   from that statement, which then did not run (as claims lock their
   providers' rows in the packet of their first read:
   db.api.first_in_next_packet). COMMIT sends a kept statement first;
   ROLLBACK drops it, as the transaction it belonged to.

6. The TLS context of every connection. With no TLS option given,
   PyMySQL (1.2) tries TLS if the server offers it ("preferred") and
   makes a new SSLContext for that in every connection, loading the
   system's certificate store into it: 830 KiB of OpenSSL memory per
   connection, used or not (8 MiB for a worker's 10 pooled connections,
   left as holes in the heap when they close). That default context is
   made here the first time a server offers TLS, once per process, and
   shared, with the same settings (no certificate check, as PyMySQL's
   default): an SSLContext is made to be shared by connections and
   threads. A server that offers no TLS never costs one. A connection
   given TLS options still gets its own context, as PyMySQL makes it.

7. The ROLLBACK after the last statement of a snapshot read:
   ``end_after_next()`` sends it after the next statement, in its
   packet, as in 3. (db.api.last_read_statement); the statements before
   it share the transaction's snapshot as usual.

Used for every MySQL engine on PyMySQL (driver.add_events).
"""
import threading

import pymysql
from pymysql import connections
from pymysql.constants import CLIENT
from pymysql.constants import SERVER_STATUS

# {(packet bytes, encoding): FieldDescriptorPacket}; cleared when it
# reaches _CACHE_MAX entries.
_CACHE = {}
_CACHE_MAX = 4096

_ROLLBACK = b'ROLLBACK'

# PyMySQL's default ("preferred") TLS context, made when a server first
# offers TLS (6. above); until then a connection's ctx is _DEFAULT_TLS.
_DEFAULT_TLS = object()
_DEFAULT_TLS_MADE = []
_DEFAULT_TLS_LOCK = threading.Lock()


class _Kept:
    """The answer a kept statement's cursor sees: no rows, nothing
    affected (5. above)."""
    affected_rows = 0
    insert_id = 0
    warning_count = 0
    description = None
    rows = None
    has_next = False
    unbuffered_active = False


class Connection(pymysql.connections.Connection):
    """PyMySQL's connection, with the savings above."""

    # The last command (a COMMIT, a ROLLBACK, a statement ended by its
    # ROLLBACK) left no transaction open: a ROLLBACK has nothing to end.
    _committed = False
    # Set while in a read without snapshot (3. above).
    end_each = False
    # The statement then() sends after the next one (4. above).
    _then = None
    # hold() was called: keep the next statement (5. above).
    _holding = False
    # The statement kept, sent first with the next one (5. above).
    _first = None

    def __init__(self, *args, client_flag=0, **kwargs):
        super().__init__(*args, client_flag=client_flag
                         | CLIENT.MULTI_STATEMENTS, **kwargs)

    def _create_ssl_ctx(self, sslp):
        if sslp != {}:  # TLS options given: a context of their own
            return super()._create_ssl_ctx(sslp)
        return _DEFAULT_TLS

    @property
    def ctx(self):
        """The TLS context PyMySQL wraps the socket with, if the server
        offers TLS; read only then (6. above)."""
        ctx = self._ctx
        if ctx is not _DEFAULT_TLS:
            return ctx
        with _DEFAULT_TLS_LOCK:
            if not _DEFAULT_TLS_MADE:
                _DEFAULT_TLS_MADE.append(super()._create_ssl_ctx({}))
            return _DEFAULT_TLS_MADE[0]

    @ctx.setter
    def ctx(self, value):
        self._ctx = value

    def then(self, sql):
        """Send ``sql`` (bytes, no parameters) after the next statement,
        in the same packet; its answer is read with the statement's, and
        its error raised from it (4. above)."""
        self._then = sql

    def hold(self):
        """Keep the next statement, to send it first with the one after
        it (5. above)."""
        self._holding = True

    def end_after_next(self):
        """End the transaction with the next statement (7. above)."""
        self._then = _ROLLBACK

    def query(self, sql, unbuffered=False):
        if isinstance(sql, str):
            sql = sql.encode(self.encoding)
        if self._holding:
            self._holding = False
            self._first = sql
            self._result = _Kept()
            self._affected_rows = 0
            return 0
        first, self._first = self._first, None
        if first is not None and unbuffered:
            super().query(first)
            first = None
        trailer = self._then or (_ROLLBACK if self.end_each else None)
        if (trailer is None and first is None) or unbuffered:
            return super().query(sql, unbuffered)
        self._then = None
        parts = [part for part in (first, sql, trailer) if part is not None]
        # A newline first: a trailing "-- comment" must not hide the ';'.
        affected = super().query(b'\n;'.join(
            part.rstrip().rstrip(b';') for part in parts))
        if first is not None:
            affected = self.next_result()  # the kept one's answer, dropped
        if trailer is not None:
            result = self._result
            self.next_result()  # the trailer's answer, already sent
            result.has_next = False
            self._result = result
            self._affected_rows = affected
            self._committed = trailer is _ROLLBACK
        return affected

    def _execute_command(self, command, sql):
        self._committed = False
        # A trailer whose statement never went out (it failed in the
        # client, and the transaction with it) follows no other one.
        self._then = None
        super()._execute_command(command, sql)

    def commit(self):
        first, self._first = self._first, None
        self._holding = False
        if first is not None:
            super().query(first)
        super().commit()
        self._committed = not (
            self.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS)

    def rollback(self):
        self._first, self._holding = None, False
        if self._committed:
            self._then = None
            return
        super().rollback()
        self._committed = True  # nothing left to end: once is enough

    def _read_packet(self, packet_type=connections.MysqlPacket):
        if packet_type is not connections.FieldDescriptorPacket:
            return super()._read_packet(packet_type)
        data = super()._read_packet().get_all_data()
        key = (data, self.encoding)
        field = _CACHE.get(key)
        if field is None:
            field = packet_type(data, self.encoding)
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            _CACHE[key] = field
        return field
