"""Which library middleware the application needs to import."""
import unittest

from oslo_config import cfg

from placement import conf as placement_conf
from placement import deploy


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
