"""The cyclic collector is set once, when the application is built, and
no request switches it (placement.gc_settings; objects.gc_pause is a
no-op kept for its last callers)."""
import gc

import testtools

from placement import gc_settings
from placement.objects import gc_pause


class GcSettingsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(gc.set_threshold, *gc.get_threshold())

    def test_configure_sets_the_thresholds(self):
        gc.set_threshold(700, 10, 10)
        gc_settings.configure()
        self.assertEqual(gc_settings.THRESHOLDS, gc.get_threshold())

    def test_a_request_no_longer_switches_the_collector(self):
        self.assertTrue(gc.isenabled())
        with gc_pause.no_cyclic_gc():
            self.assertTrue(gc.isenabled())
        self.assertTrue(gc.isenabled())
