"""IN lists of bind parameters, one parameter per value.

SQLAlchemy's expanding parameters (``bindparam(..., expanding=True)``)
take a list of any length, and pay for it at every execution: the
statement's text is rendered again with as many placeholders as there
are values, and each list is bound value by value. On PostgreSQL with
psycopg 3, a statement of two one-value lists cost 147 us of CPU against
103 us with a bind parameter per value (the same rows); GET
/allocation_candidates and the write routes send such statements in
every request.

Here a list gets one named parameter per value, ``<name>_0`` ...,
compiled once: a statement is built per list size, and the sizes are
padded to a power of two by repeating the last value (``x IN (a, b, b,
b)`` is ``x IN (a, b)``), so that a handful of sizes cover every request
and a database that prepares repeated statements sees few texts. Build
the statements with ``in_``, cache them by ``size`` (functools.lru_cache
on the builder), and bind the values with ``bind``. An empty list has
size 0: ``x IN ()``, which SQLAlchemy renders as false.
"""
import sqlalchemy as sa


def size(values) -> int:
    """The number of parameters an IN list of ``values`` gets: 0 for
    none, else the smallest power of two not below their count."""
    count = len(values)
    return 1 << (count - 1).bit_length() if count else 0


def in_(column, name: str, slots: int):
    """``column IN (:<name>_0, ... :<name>_<slots - 1>)``, the parameters
    of ``column``'s type."""
    return column.in_([sa.bindparam('%s_%d' % (name, i), type_=column.type)
                       for i in range(slots)])


def bind(name: str, values) -> dict:
    """The parameters of ``in_(column, name, size(values))``: ``values``
    (a sequence) padded with its last value."""
    values = list(values)
    if values:
        values += [values[-1]] * (size(values) - len(values))
    return {'%s_%d' % (name, i): value for i, value in enumerate(values)}


def bind_all(lists) -> dict:
    """``bind`` of each (name, values) of the mapping ``lists``, merged."""
    found = {}
    for name, values in lists.items():
        found.update(bind(name, values))
    return found
