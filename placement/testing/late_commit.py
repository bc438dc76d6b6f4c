"""A COMMIT that reaches its server only after it was judged absent.

The app reaches its database through a ``tcp_proxy.TCPProxy``. At the
app's next COMMIT the proxy holds the connections open then (the COMMIT
waits in the proxy) and closes their client side, so the app loses the
COMMIT's answer; connections opened later flow, to ``then_to`` when
given (another Galera node, as a round-robin proxy sends them). The
retry policy checks on such a new connection, finds nothing, and just
before it runs the operation again the held COMMIT goes to its server
and lands: late, as a COMMIT in flight on a stalled node does.
"""
import threading

from placement.db import retry

# Seconds to wait for the app's COMMIT to reach the proxy.
PATIENCE = 30.0


def arrange(test, db, proxy, then_to=None):
    """Make the next COMMIT on ``db``'s writer land late, as above.

    ``test`` (a TestCase) gets the cleanups and the failure if the
    COMMIT never reached the proxy.
    """
    dialect = db.writer.dialect
    real_commit = dialect.do_commit
    failures = []

    def cut_when_held():
        if proxy.data_held.wait(PATIENCE):
            proxy.cut_held_clients()
        else:
            failures.append('the COMMIT never reached the proxy')

    def do_commit(conn):
        dialect.do_commit = real_commit
        proxy.hold_open()
        if then_to is not None:
            proxy.target = then_to
        cutter = threading.Thread(target=cut_when_held)
        cutter.start()
        try:
            return real_commit(conn)
        finally:
            cutter.join()

    def release(failure):
        retry.OBSERVERS.remove(release)
        proxy.release()

    dialect.do_commit = do_commit
    retry.OBSERVERS.append(release)
    test.addCleanup(lambda: test.assertEqual([], failures))
    test.addCleanup(lambda: release in retry.OBSERVERS
                    and retry.OBSERVERS.remove(release))
