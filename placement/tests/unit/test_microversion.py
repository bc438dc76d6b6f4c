"""Microversion parsing, negotiation, windows and the version list."""
import unittest

from placement import microversion

V = microversion.parse_version


class VersionListTest(unittest.TestCase):

    def test_runs_from_1_0_to_1_39_without_gaps(self):
        versions = [V(text) for text in microversion.VERSIONS]
        self.assertEqual(V('1.0'), versions[0])
        self.assertEqual(V('1.39'), versions[-1])
        self.assertEqual([(1, minor) for minor in range(40)],
                         [(v.major, v.minor) for v in versions])

    def test_every_named_gate_is_a_listed_version(self):
        listed = {V(text) for text in microversion.VERSIONS}
        gates = {name: value for name, value in vars(microversion).items()
                 if isinstance(value, microversion.Version)}
        self.assertGreater(len(gates), 30)
        for name, gate in gates.items():
            self.assertIn(gate, listed, name)

    def test_gates_name_distinct_versions(self):
        gates = [value for name, value in vars(microversion).items()
                 if isinstance(value, microversion.Version)
                 and name not in ('MIN_VERSION', 'MAX_VERSION')]
        self.assertEqual(len(gates), len(set(gates)))


class ParseTest(unittest.TestCase):

    def test_valid(self):
        self.assertEqual((1, 39), V('1.39'))
        self.assertEqual((1, 0), V(' 1.0 '))
        self.assertEqual('1.5', str(V('1.5')))

    def test_invalid(self):
        for text in ('pony.horse', '1.2.3', '1', '1.', '.1', '01.1', '1.01',
                     '-1.0', '1.x', ''):
            with self.assertRaises(ValueError, msg=text):
                V(text)

    def test_compares_with_tuples_and_versions(self):
        self.assertTrue(V('1.10') > V('1.9'))
        self.assertTrue(V('1.10') > (1, 9))
        self.assertTrue(V('1.2') == (1, 2))
        self.assertTrue(V('1.2').matches('1.1', '1.3'))
        self.assertFalse(V('1.4').matches('1.1', '1.3'))
        self.assertTrue(V('1.4').matches('1.1'))


class ExtractTest(unittest.TestCase):

    def _extract(self, value):
        headers = {} if value is None else {microversion.HEADER: value}
        return microversion.extract_version(headers)

    def test_absent_means_minimum(self):
        self.assertEqual((1, 0), self._extract(None))
        self.assertEqual((1, 0), self._extract(''))

    def test_latest_means_maximum(self):
        self.assertEqual((1, 39), self._extract('placement latest'))

    def test_versions_are_read_as_the_reference_service_reads_them(self):
        self.assertEqual((1, 2), self._extract('placement 01.02'))
        for text, error in (
                ('LATEST', "invalid literal for int() with base 10: "
                           "'LATEST'"),
                ('1', "Version.__new__() missing 1 required positional "
                      "argument: 'minor'"),
                ('1.2.3', "invalid literal for int() with base 10: '2.3'")):
            with self.assertRaises(ValueError) as caught:
                self._extract('placement %s' % text)
            self.assertEqual('invalid version string: %s; %s'
                             % (text, error), str(caught.exception))

    def test_last_placement_item_wins(self):
        self.assertEqual((1, 7), self._extract(
            'compute 2.1, placement 1.5, placement 1.7'))

    def test_service_name_case_insensitive(self):
        self.assertEqual((1, 12), self._extract('Placement 1.12'))

    def test_other_services_are_ignored(self):
        self.assertEqual((1, 0), self._extract('compute 2.60'))
        self.assertEqual((1, 0), self._extract('placement'))

    def test_unparsable_is_value_error(self):
        for value in ('placement pony.horse', 'placement 1.2.3'):
            with self.assertRaisesRegex(ValueError,
                                        'invalid version string'):
                self._extract(value)

    def test_out_of_range_is_lookup_error(self):
        for value in ('0.5', '1.40', '2.0'):
            with self.assertRaisesRegex(LookupError,
                                        'Unacceptable version header'):
                self._extract('placement ' + value)


class WindowsTest(unittest.TestCase):

    def test_at_picks_the_latest_window_started(self):
        windows = microversion.Windows(('1.8', 'b'), ('1.0', 'a'),
                                       ('1.12', 'c'))
        self.assertEqual('a', windows.at(V('1.7')))
        self.assertEqual('b', windows.at(V('1.8')))
        self.assertEqual('b', windows.at(V('1.11')))
        self.assertEqual('c', windows.at(V('1.39')))

    def test_before_every_window_is_an_error(self):
        with self.assertRaises(LookupError):
            microversion.Windows(('1.5', 'x')).at(V('1.4'))

    def test_since_declares_a_window_and_status(self):
        def handler(req):
            return req
        decorated = microversion.since('1.5', status=405)(handler)
        self.assertEqual((V('1.5'), microversion.MAX_VERSION),
                         microversion.window_of(decorated))
        self.assertEqual(405, decorated.below_status)

    def test_undeclared_handler_serves_every_version(self):
        self.assertEqual((microversion.MIN_VERSION, microversion.MAX_VERSION),
                         microversion.window_of(lambda req: req))
