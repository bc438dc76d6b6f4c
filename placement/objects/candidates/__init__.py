"""Allocation candidates: GET /allocation_candidates and its explanation,
by stage. No WebOb here; SQL only in statements.py and memory.py.

- plan.py: the ids a query names (Lookups) and the Plan, a frozen value
  of every choice the SQL makes; pure.
- statements.py: the SQLAlchemy Core statements of a plan, cached by
  plan; pure.
- memory.py: the per-process memory of providers' inventories and
  traits, by generation.
- fetch.py: the reads (``conn`` first): lookups, roots, and one chunk's
  snapshot.
- chunks.py: which roots to read, chunk by chunk (limit, randomness):
  ``next_chunk`` of a Cursor, a frozen value.
- gather.py: ``start`` (lookups and plan) and ``read`` (one chunk), the
  one way listing and explain read.
- listing.py: ``list_candidates``, the operation of the API; its loop
  asks for each chunk given the candidates found so far.
- explain.py: ``explain`` (placement-manage) and ``why_empty`` (the
  reasons of an empty answer).

The cyclic collector is not switched per request: placement.gc_settings
sets it once when the application is built.
"""
