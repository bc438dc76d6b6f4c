"""Pausing the cyclic garbage collector around a big candidates answer.

A large answer builds hundreds of thousands of small objects (rows,
candidates, summaries); the collector's passes over them find nothing to
free (reference counting frees it all) and cost a tenth to a fifth of
the request. Figure (MariaDB, 250 nested trees, worker CPU per request
in process, tools/profile_candidates.py, median of three runs of 20):
with the pause / without, 29.9 / 33.1 ms for the gate query (500
candidates), 34.2 / 40.5 isolate (2,000), 31.7 / 44.1 none (2,000),
37.4 / 42.1 wide (2,000); the same within noise for limit=10.

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
