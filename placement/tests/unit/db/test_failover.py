"""What counts as a fail-over (db.failover)."""
import unittest

from placement.db import failover
from placement.db import retry

NODE_A = ('galera1', 3306)
NODE_B = ('galera2', 3306)


class FailoverWatchTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.count = []
        self.watch = failover.FailoverWatch(lambda: self.count.append(1))

    def test_a_new_node_after_a_lost_connection(self):
        self.watch.connected(NODE_A)
        self.watch.failed(retry.Failure.DISCONNECT)
        self.watch.connected(NODE_B)
        self.assertEqual(1, len(self.count))

    def test_a_new_node_after_a_node_not_ready(self):
        self.watch.connected(NODE_A)
        self.watch.failed(retry.Failure.NOT_READY)
        self.watch.connected(NODE_B)
        self.assertEqual(1, len(self.count))

    def test_the_same_node_again_is_no_failover(self):
        self.watch.connected(NODE_A)
        self.watch.failed(retry.Failure.DISCONNECT)
        self.watch.connected(NODE_A)
        self.assertEqual([], self.count)

    def test_new_connections_without_a_failure_are_no_failover(self):
        # A proxy spreading new connections over the nodes.
        for node in (NODE_A, NODE_B, NODE_A):
            self.watch.connected(node)
        self.assertEqual([], self.count)

    def test_a_lost_race_is_no_failover(self):
        self.watch.connected(NODE_A)
        self.watch.failed(retry.Failure.RACE)
        self.watch.connected(NODE_B)
        self.assertEqual([], self.count)

    def test_counted_once_per_failure(self):
        self.watch.connected(NODE_A)
        self.watch.failed(retry.Failure.DISCONNECT)
        self.watch.connected(NODE_B)
        self.watch.connected(NODE_A)
        self.assertEqual(1, len(self.count))

    def test_the_first_connection_is_no_failover(self):
        self.watch.failed(retry.Failure.DISCONNECT)
        self.watch.connected(NODE_B)
        self.assertEqual([], self.count)
