"""A PyMySQL connection that spares two costs every request pays.

1. The ROLLBACK after a COMMIT. The pool resets a connection it takes
   back with ``rollback()``, and SQLAlchemy cannot tell it that the
   transaction was committed already: PyMySQL sends the ROLLBACK anyway,
   one more round trip after every write. This connection skips it when
   the last command sent was a COMMIT that the server answered with no
   transaction open (the OK packet's SERVER_STATUS_IN_TRANS bit clear),
   as psycopg2 and libpq skip a ROLLBACK outside a transaction. Any other
   command, an error included, makes the next ROLLBACK go out.

2. The parsing of result-set metadata. Each SELECT's answer starts with
   one column-definition packet per column, which PyMySQL parses in
   Python (a sixth of a claim's CPU). The same statement gets the same
   packets byte for byte, so the parsed columns are remembered by the
   packets' bytes (bounded; one dict lookup, safe across threads: the
   values are never changed once stored).

Used for every MySQL engine on PyMySQL (driver.add_events).
"""
import pymysql
from pymysql import connections
from pymysql.constants import SERVER_STATUS

# {(encoding, use_unicode, column packets): (fields, converters,
# description)}; cleared when it reaches _CACHE_MAX entries.
_CACHE = {}
_CACHE_MAX = 2048


class _Result(connections.MySQLResult):
    """A result whose column definitions are parsed once per shape."""

    def _get_descriptions(self):
        conn = self.connection
        packets = tuple(conn._read_packet().get_all_data()
                        for _ in range(self.field_count))
        eof_packet = conn._read_packet()
        assert eof_packet.is_eof_packet(), 'Protocol error, expecting EOF'
        key = (conn.encoding, conn.use_unicode, packets)
        parsed = _CACHE.get(key)
        if parsed is None:
            parsed = _parse(conn, packets)
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            _CACHE[key] = parsed
        fields, converters, self.description = parsed
        self.fields = list(fields)
        self.converters = list(converters)


def _parse(conn, packets):
    """What MySQLResult._get_descriptions computes from the packets."""
    fields, converters = [], []
    for data in packets:
        field = connections.FieldDescriptorPacket(data, conn.encoding)
        fields.append(field)
        converters.append((_encoding(conn, field),
                           _converter(conn, field.type_code)))
    return (tuple(fields), tuple(converters),
            tuple(field.description() for field in fields))


def _encoding(conn, field):
    if not conn.use_unicode:
        return None
    if field.type_code == connections.FIELD_TYPE.JSON:
        return conn.encoding
    if field.type_code in connections.TEXT_TYPES:
        return None if field.charsetnr == 63 else conn.encoding
    return 'ascii'


def _converter(conn, type_code):
    converter = conn.decoders.get(type_code)
    return None if converter is connections.converters.through else converter


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

    def _read_query_result(self, unbuffered=False):
        # MySQLResult._read_query_result with _Result for MySQLResult.
        self._result = None
        result = _Result(self)
        if unbuffered:
            result.init_unbuffered_query()
        else:
            result.read()
        self._result = result
        if result.server_status is not None:
            self.server_status = result.server_status
        return result.affected_rows
