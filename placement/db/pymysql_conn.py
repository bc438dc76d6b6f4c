"""A PyMySQL connection that spares two costs every request pays.

1. The ROLLBACK after a COMMIT. The pool resets a connection it takes
   back with ``rollback()``, and SQLAlchemy cannot tell it that the
   transaction was committed already: PyMySQL sends the ROLLBACK anyway,
   one more round trip after every write. This connection skips it when
   the last command sent was a COMMIT that the server answered with no
   transaction open (the OK packet's SERVER_STATUS_IN_TRANS bit clear),
   as psycopg2 and libpq skip a ROLLBACK outside a transaction. Any other
   command, an error included, makes the next ROLLBACK go out.

2. The parsing of column definitions. Each SELECT's answer starts with
   one column-definition packet per column, which PyMySQL parses in
   Python (a sixth of a claim's CPU). The same statement gets the same
   packets byte for byte, so the parsed packet is remembered by its
   bytes and handed out again (bounded; one dict lookup; safe across
   threads, since a parsed packet is never changed once made). PyMySQL
   does everything else with it as usual.

Used for every MySQL engine on PyMySQL (driver.add_events).
"""
import pymysql
from pymysql import connections
from pymysql.constants import SERVER_STATUS

# {(packet bytes, encoding): FieldDescriptorPacket}; cleared when it
# reaches _CACHE_MAX entries.
_CACHE = {}
_CACHE_MAX = 4096


class Connection(pymysql.connections.Connection):
    """PyMySQL's connection, with the two savings above."""

    _committed = False

    def _execute_command(self, command, sql):
        self._committed = False
        super()._execute_command(command, sql)

    def commit(self):
        super().commit()
        self._committed = not (
            self.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS)

    def rollback(self):
        if self._committed:
            return
        super().rollback()

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
