"""The cyclic garbage collector, set once when the application is built.

Reference counting frees almost everything a request builds; the cyclic
collector's passes over a large answer's objects (rows, candidates,
summaries, the JSON body's pieces) find nothing to free. Rather than
switch the collector off and on around each large answer from request
threads (the switch is the process's: one request turned it back on
while another still ran), the process sets, once, how often it runs
(THRESHOLDS, see ``configure``), and a server freezes what starting
built (placement.wsgi: gc.freeze), so that no pass walks it again.
"""
import gc

# (generation 0, 1, 2): gc.set_threshold's arguments.
THRESHOLDS = (50000, 10, 10)


def configure():
    """Set the collector's thresholds (THRESHOLDS). Idempotent."""
    gc.set_threshold(*THRESHOLDS)
