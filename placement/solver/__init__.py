"""The allocation-candidate solver: pure, in-memory, no I/O.

Imports only the standard library and its own modules: no SQL, WebOb,
oslo or placement modules outside ``placement.solver``.
"""
