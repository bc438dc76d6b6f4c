"""Pausing the cyclic garbage collector around a big answer.

A large answer builds thousands to hundreds of thousands of small objects
(rows, candidates, summaries, the dicts of the JSON body); the
collector's passes over them find nothing to free (reference counting
frees it all) and cost a tenth to a fifth of the request. Figures
(worker CPU per request in process): GET /allocation_candidates on
MariaDB, 250 nested trees, with the pause / without, 29.9 / 33.1 ms for
the gate query (500 candidates), 34.2 / 40.5 isolate (2,000), 31.7 /
44.1 none (2,000), 37.4 / 42.1 wide (2,000), the same within noise for
limit=10; GET /resource_providers of 1,000 providers on PostgreSQL, the
startup objects frozen as in a server (wsgi), 3.46 / 3.90 ms.

The switch is the process's: with threads, one request that ends may
turn it back on while another still runs. That costs the other its
pause, never a wrong answer.
"""
import contextlib
import gc


@contextlib.contextmanager
def no_cyclic_gc():
    """Pause the cyclic collector for the block; reference counting still
    frees everything. Nests: only the outermost user that found it
    enabled turns it back on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
