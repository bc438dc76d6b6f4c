"""benchlib.pacing: the order in which two servers get their requests."""
import argparse
import os
import unittest

from tools.benchlib import pacing


class TakeTurnsTest(unittest.TestCase):

    def _turns(self, repeats, pace, pids=None):
        sent = []
        timings = pacing.take_turns(['a', 'b'], repeats, pace, sent.append,
                                    pids)
        return sent, timings

    def test_batches_after_a_waking_request(self):
        sent, timings = self._turns([4, 4], pacing.Pace(batch=3))
        # Turn 1: a wakes + 3 timed, b the same; turn 2: the last one each.
        self.assertEqual(list('aaaabbbbaabb'), sent)
        self.assertEqual([4, 4], [len(t.samples) for t in timings])
        self.assertEqual([None, None], [t.cpu for t in timings])

    def test_one_by_one_without_waking(self):
        sent, timings = self._turns([3, 3], pacing.Pace(1, wake=False))
        self.assertEqual(list('ababab'), sent)

    def test_fewer_repeats_for_one_server(self):
        sent, timings = self._turns([5, 2], pacing.Pace(2, wake=False))
        self.assertEqual(list('aabbaaa'), sent)
        self.assertEqual([5, 2], [len(t.samples) for t in timings])

    def test_cpu_of_the_timed_requests_when_pids_are_given(self):
        own = [os.getpid()]
        sent, timings = self._turns([2, 2], pacing.Pace(2),
                                    lambda server: own if server == 'a'
                                    else None)
        self.assertGreaterEqual(timings[0].cpu, 0.0)
        self.assertIsNone(timings[1].cpu)


class ArgumentsTest(unittest.TestCase):

    def _parse(self, argv):
        parser = argparse.ArgumentParser()
        pacing.add_arguments(parser)
        return pacing.of(parser.parse_args(argv))

    def test_default_and_one_by_one(self):
        self.assertEqual(pacing.Pace(pacing.BATCH, True), self._parse([]))
        one = self._parse(['--batch', '1', '--no-wake'])
        self.assertEqual(pacing.Pace(1, False), one)
        self.assertEqual(['--batch', '1', '--no-wake'], one.argv())
        self.assertEqual(['--batch', '3'], pacing.Pace(3).argv())
