"""Many rows read as one value, where the driver decodes rows slowly.

PyMySQL decodes each field of each row in Python, about a microsecond a
field: GET /resource_providers read 1,000 providers of seven columns in
some 4 ms, most of the request. Asked instead as one text value that
the server builds (MySQL's GROUP_CONCAT) of JSON arrays, the same rows
parse in C (orjson), ints and NULLs typed already. Other drivers decode
in C: they get the rows as they are.

The server quotes every text column (JSON_QUOTE): a provider's name may
hold any character, and a value is never put between quotes by hand.
Measured on MariaDB 10.11 (GET /resource_providers of 1,000 providers,
in process, interleaved rounds of 10, wall median in ms; four runs):

    quoted by hand (unsafe)  4.04  8.57  5.04  4.93
    JSON_QUOTE               4.92 10.99  5.10  4.94
    JSON_ARRAY rows          5.18 11.36  5.26  5.16
    JSON_ARRAYAGG            5.18 12.17     -  5.19
    rows unpacked               - 13.72  6.56  6.39

JSON_QUOTE is the cheapest safe form in every run; the candidates'
packed reads (16 of them for the nested benchmark queries, up to 994
rows each) took the same with it (min 23.1 ms against 23.7 by hand).

An answer that does not parse into COUNT(*) rows of the expected width
(a value cut short by group_concat_max_len or max_allowed_packet) is
read again row by row.
"""
import typing

import orjson
import sqlalchemy as sa

# Column kinds for ``fetch_rows``.
INT, TEXT = 'int', 'text'

# Dialects whose driver decodes rows in Python, and whose connections
# allow a long GROUP_CONCAT (db.engine).
_PACKING_DIALECTS = ('mysql',)
# {(statement, types): its packed form}; cleared when full.
_PACKED = {}
_MAX_PACKED = 512


def pack(stmt, types) -> sa.Select:
    """SELECT COUNT(*), GROUP_CONCAT(CONCAT('[', CONCAT_WS(',',
        IFNULL(c1, 'null'), IFNULL(JSON_QUOTE(t2), 'null'), ...),
    ']')) <the FROM and WHERE of stmt>

    A SELECT (the callers' have no GROUP BY, DISTINCT or LIMIT) is
    aggregated in place, its columns replaced, so that the server plans
    the joins it would plan for the rows: MariaDB keeps an EXISTS inside
    a derived table as a dependent subquery, where the same EXISTS at
    the top is a semi-join (a provider list of one aggregate scanned all
    1,000 providers, 1 ms more). A UNION is aggregated over it, as the
    derived table ``packed``.
    """
    if isinstance(stmt, sa.Select):
        columns, inner = list(stmt.selected_columns), None
    else:
        inner = stmt.order_by(None).subquery('packed')
        columns = list(inner.c)
    fields = []
    for column, kind in zip(columns, types):
        if kind == TEXT:
            column = sa.func.json_quote(column)
        fields.append(sa.func.ifnull(column, 'null'))
    row = sa.func.concat('[', sa.func.concat_ws(',', *fields), ']')
    aggregates = (sa.func.count(), sa.func.group_concat(row))
    if inner is not None:
        return sa.select(*aggregates)
    return stmt.order_by(None).with_only_columns(
        *aggregates, maintain_column_froms=True)


def _packed(stmt, types):
    key = (stmt, tuple(types))
    found = _PACKED.get(key)
    if found is None:
        if len(_PACKED) >= _MAX_PACKED:
            _PACKED.clear()
        found = _PACKED[key] = pack(stmt, types)
    return found


def unpack(count, text, width) -> typing.Optional[list]:
    """The rows of a packed answer (``count`` of them, each ``width``
    long); None when the answer is incomplete (a truncated or unparsable
    text).
    """
    if not count:
        return []
    if text is None:
        return None
    if isinstance(text, bytes):  # a server that types the value binary
        text = text.decode('utf-8')
    try:
        found = orjson.loads('[%s]' % text)
    except orjson.JSONDecodeError:
        return None
    # The widths counted in C (map): a generator costs 0.05 ms per
    # thousand rows.
    if len(found) != count or set(map(len, found)) != {width}:
        return None
    return found


def fetch_rows(conn, stmt, params, types, order_by=None) -> list:
    """The rows of ``stmt`` (sequences), whose columns are of ``types``
    (INT, TEXT).

    Packed where the driver decodes rows in Python (see above); packed
    rows come in no order: ``order_by``, the index of an INT column that
    ``stmt`` is ordered by (unique), sorts them as ``stmt`` would. The
    packed form is built once per ``stmt``: keep ``stmt`` (cache it) for
    the requests of the same shape.
    """
    if conn.dialect.name in _PACKING_DIALECTS:
        count, text = conn.execute(_packed(stmt, types), params).one()
        found = unpack(count, text, len(types))
        if found is not None:
            if order_by is not None:
                found.sort(key=lambda row: row[order_by])
            return found
    return conn.execute(stmt, params).all()
