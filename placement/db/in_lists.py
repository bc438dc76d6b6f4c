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

A list of unbounded length (a chunk of roots drawn at random, the
providers whose inventories a cache lacks) is ``any_of``: one parameter
holding the whole list. On PostgreSQL it is one array, ``x = ANY(:ids)``:
the text stays the same whatever the length, so psycopg 3 parses it once
(it re-parses every execution of a text of more than 50 placeholders,
MAX_CACHED_STATEMENT_PARAMS) and prepares it. Elsewhere it is an
expanding IN list: PyMySQL and SQLite bind on the client, where the
length costs little.
"""
import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import functions


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


class any_of(functions.FunctionElement):
    """``column`` equals one of the values of the list parameter
    ``name`` (a sequence given at execution; empty matches nothing)."""

    # Not Boolean: a boolean function in a WHERE clause is compared with
    # 1 on databases without a boolean type.
    type = sa.types.NullType()
    name = 'any_of'
    inherit_cache = True

    def __init__(self, column, name: str):
        super().__init__(column, sa.bindparam(name, expanding=True,
                                              type_=column.type))


@compiler.compiles(any_of)
def _any_of_in_list(element, sql_compiler, **kw):
    column, values = element.clauses
    return sql_compiler.process(column.in_(values), **kw)


@compiler.compiles(any_of, 'postgresql')
def _any_of_array(element, sql_compiler, **kw):
    column, values = element.clauses
    array = sa.bindparam(values.key, type_=sa.ARRAY(column.type))
    return sql_compiler.process(column == sa.any_(array), **kw)
