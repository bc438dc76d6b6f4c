"""The cyclic collector is set once, when the application is built, and
no request switches it (placement.gc_settings)."""
import gc

import testtools

from placement import gc_settings


class GcSettingsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(gc.set_threshold, *gc.get_threshold())

    def test_configure_sets_the_thresholds(self):
        gc.set_threshold(700, 10, 10)
        gc_settings.configure()
        self.assertEqual(gc_settings.THRESHOLDS, gc.get_threshold())
