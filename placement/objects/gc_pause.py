"""Kept importable, as a no-op, until the handlers stop calling it.

The cyclic collector is no longer switched off and on from request
threads: it is set once when the application is built (placement
.gc_settings) and the startup objects are frozen (placement.wsgi).
Remove this module with its last callers.
"""
import contextlib


def no_cyclic_gc():
    """A context manager that does nothing (see the module)."""
    return contextlib.nullcontext()
