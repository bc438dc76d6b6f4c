"""Operations on stored data: the verbs the handlers call.

One module per entity (resource providers, inventories, allocations,
consumers, traits, aggregates, classes, usages; the candidates gather
and the audit), plus ``_sql`` for the fragments several share. Three
kinds of function, told apart by name: builders (``select_*``,
``*_stmt``) return plain SQLAlchemy Core statements and do no I/O;
queries (``fetch_*``, ``insert_*``, ``update_*``, ``delete_*``) take
``conn`` first and never begin or commit; operations (the public verbs,
each an ``@db_api.operation``) open exactly one ``db_api.transaction``
or ``db_api.reader`` and return frozen dataclasses, never rows.

The database is reached through ``db/`` only: its execution interface
(``db.api``), and for a real difference between backends a named
function of ``db.backend`` or ``db.packed``, never a driver or a dialect
name. No WebOb, no microversions here.
"""
