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

Used for every MySQL engine on PyMySQL (driver.add_events).
"""
import pymysql
from pymysql import connections
from pymysql.constants import CLIENT
from pymysql.constants import SERVER_STATUS

# {(packet bytes, encoding): FieldDescriptorPacket}; cleared when it
# reaches _CACHE_MAX entries.
_CACHE = {}
_CACHE_MAX = 4096

_ROLLBACK = b'ROLLBACK'


class Connection(pymysql.connections.Connection):
    """PyMySQL's connection, with the savings above."""

    # The last command (a COMMIT, a ROLLBACK, a statement ended by its
    # ROLLBACK) left no transaction open: a ROLLBACK has nothing to end.
    _committed = False
    # Set while in a read without snapshot (3. above).
    end_each = False
    # The statement then() sends after the next one (4. above).
    _then = None

    def __init__(self, *args, client_flag=0, **kwargs):
        super().__init__(*args, client_flag=client_flag
                         | CLIENT.MULTI_STATEMENTS, **kwargs)

    def then(self, sql):
        """Send ``sql`` (bytes, no parameters) after the next statement,
        in the same packet; its answer is read with the statement's, and
        its error raised from it (4. above)."""
        self._then = sql

    def query(self, sql, unbuffered=False):
        trailer = self._then or (_ROLLBACK if self.end_each else None)
        if trailer is None or unbuffered:
            return super().query(sql, unbuffered)
        self._then = None
        if isinstance(sql, str):
            sql = sql.encode(self.encoding)
        # A newline first: a trailing "-- comment" must not hide it.
        affected = super().query(
            sql.rstrip().rstrip(b';') + b'\n;' + trailer)
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
        super().commit()
        self._committed = not (
            self.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS)

    def rollback(self):
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
