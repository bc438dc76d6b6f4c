"""Which library middleware the application needs to import."""
import unittest

from oslo_config import cfg

from placement import conf as placement_conf
from placement import deploy
from placement import exception
from placement.handlers import capacity_shape


def make_conf():
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf([], project='placement', default_config_files=[])
    return conf


class MiddlewareConfiguredTest(unittest.TestCase):

    def test_placement_own_oslo_middleware_option_needs_no_library(self):
        conf = make_conf()
        # Registered by placement itself, always.
        self.assertEqual(1024 * 1024,
                         conf.oslo_middleware.max_request_body_size)
        self.assertFalse(deploy._middleware_configured(conf))

    def test_the_libraries_own_options_do(self):
        conf = make_conf()
        deploy.register_middleware_opts(conf)
        self.assertTrue(deploy._middleware_configured(conf))
        self.assertFalse(conf.oslo_middleware.enable_proxy_headers_parsing)


class ShapesCheckedAtStartTest(unittest.TestCase):
    """A bad [capacity] shape stops the start, /metrics enabled or not."""

    def test_bad_shape_names_the_shape_in_the_api_words(self):
        conf = make_conf()
        conf.set_override('shape', ['zero = resources=VCPU:0'],
                          group='capacity')
        self.assertFalse(conf.metrics.enabled)
        with self.assertRaises(exception.ConfigError) as caught:
            deploy.loadapp(conf, db=object())
        self.assertIn('shape zero: Requested resource VCPU requires '
                      'amount >= 1. Got: 0.', str(caught.exception))

    def test_good_shapes_pass(self):
        conf = make_conf()
        conf.set_override('shape', ['m1.large = resources=VCPU:4,'
                                    'MEMORY_MB:8192,DISK_GB:80'],
                          group='capacity')
        self.assertEqual(['m1.large'], [
            shape.name for shape in capacity_shape.configured(conf)])
