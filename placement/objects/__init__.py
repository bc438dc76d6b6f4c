"""Operations on stored data, one module per entity.

Builders (``select_*``/``*_stmt``) return statements; queries (``fetch_*``,
``insert_*``, ``update_*``, ``delete_*``) take ``conn`` first; operations
(the public verbs handlers call) each open exactly one transaction. No
WebOb, no microversions here.
"""
