"""The shared query grammar: resources, required, member_of, in_tree."""
import unittest

import webob.exc

from placement.handlers import querystring
from placement import microversion
from placement.solver import model

V = microversion.parse_version
AGG_A = 'aaaaaaaa-0000-4000-8000-00000000000a'
AGG_B = 'aaaaaaaa-0000-4000-8000-00000000000b'


class ParseResourcesTest(unittest.TestCase):

    def assertBad(self, value, fragment):
        with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
            querystring.parse_resources(value)
        self.assertIn(fragment, str(caught.exception))

    def test_pairs_become_a_dict(self):
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 1024},
                         querystring.parse_resources('VCPU:2,MEMORY_MB:1024'))

    def test_a_repeated_class_keeps_the_last_amount(self):
        self.assertEqual({'VCPU': 2},
                         querystring.parse_resources('VCPU:1,VCPU:2'))

    def test_empty_is_badly_formed(self):
        self.assertBad('', 'Got: empty string.')

    def test_missing_colon_is_badly_formed(self):
        self.assertBad('VCPU', 'Badly formed resources parameter')

    def test_two_colons_are_badly_formed(self):
        self.assertBad('VCPU:1:2', 'Got: VCPU:1:2.')

    def test_non_integer_amount(self):
        self.assertBad('VCPU:x', 'expected positive integer amount. Got: x.')

    def test_zero_amount(self):
        self.assertBad('VCPU:0', 'requires amount >= 1. Got: 0.')

    def test_amount_beyond_any_max_unit_asks_for_one_more(self):
        # Nothing fits (as upstream, which answers with an empty list).
        self.assertEqual({'VCPU': 2147483648},
                         querystring.parse_resources(
                             'VCPU:18446744073709551617'))


class ParseRequiredTest(unittest.TestCase):

    def parse(self, values, mv='1.39'):
        return querystring.parse_required(values, V(mv))

    def assertBad(self, values, mv, fragment):
        with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
            self.parse(values, mv)
        self.assertIn(fragment, str(caught.exception))

    def test_all_of(self):
        self.assertEqual(model.TraitFilter(frozenset({'A', 'B'})),
                         self.parse(['A,B'], '1.18'))

    def test_whitespace_around_items_is_stripped(self):
        self.assertEqual(model.TraitFilter(frozenset({'A'}),
                                           frozenset({'B'})),
                         self.parse([' A , !B ']))

    def test_forbidden_before_1_22(self):
        self.assertBad(['A,!B'], '1.21',
                       'HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: A,!B')

    def test_forbidden_at_1_22(self):
        self.assertEqual(frozenset({'B'}), self.parse(['A,!B'],
                                                      '1.22').forbidden)

    def test_several_bangs_count_as_one(self):
        self.assertEqual(frozenset({'B'}), self.parse(['!!B']).forbidden)

    def test_empty_item(self):
        self.assertBad(['A,,B'], '1.39', 'Got an empty trait in: A,,B')

    def test_lone_bang_is_empty(self):
        self.assertBad(['!'], '1.39', 'Got an empty trait in: !')

    def test_any_of_before_1_39(self):
        self.assertBad(['in:A,B'], '1.38',
                       'only supported since microversion 1.39')

    def test_any_of_at_1_39(self):
        self.assertEqual((frozenset({'A', 'B'}),),
                         self.parse(['in:A,B']).any_of)

    def test_any_of_refuses_forbidden(self):
        self.assertBad(['in:A,!B'], '1.39',
                       'does not support forbidden traits')

    def test_repeats_before_1_39_keep_the_last(self):
        self.assertEqual(frozenset({'B'}),
                         self.parse(['A', 'B'], '1.38').required)

    def test_repeats_at_1_39_are_anded(self):
        parsed = self.parse(['A', 'in:B,C', '!D'])
        self.assertEqual(frozenset({'A'}), parsed.required)
        self.assertEqual(frozenset({'D'}), parsed.forbidden)
        self.assertEqual((frozenset({'B', 'C'}),), parsed.any_of)

    def test_required_and_forbidden_same_trait_is_not_an_error(self):
        parsed = self.parse(['A,!A'])
        self.assertEqual(parsed.required, parsed.forbidden)


class ParseMemberOfTest(unittest.TestCase):

    def parse(self, values, mv='1.39'):
        return querystring.parse_member_of(values, V(mv))

    def assertBad(self, values, mv, fragment):
        with self.assertRaises(webob.exc.HTTPBadRequest) as caught:
            self.parse(values, mv)
        self.assertIn(fragment, str(caught.exception))

    def test_one_uuid(self):
        self.assertEqual(model.AggregateFilter((frozenset({AGG_A}),)),
                         self.parse([AGG_A], '1.3'))

    def test_in_list_is_any_of(self):
        self.assertEqual((frozenset({AGG_A, AGG_B}),),
                         self.parse(['in:%s,%s' % (AGG_A, AGG_B)]).required)

    def test_comma_list_needs_in(self):
        self.assertBad(['%s,%s' % (AGG_A, AGG_B)], '1.3',
                       "must be prefixed with the 'in:' or '!in:' keyword")

    def test_not_a_uuid(self):
        self.assertBad(['in:%s,nope' % AGG_A], '1.3',
                       'valid UUID(s). Got: nope')

    def test_empty(self):
        self.assertBad([''], '1.3', 'valid UUID(s)')

    def test_repeats_before_1_24(self):
        self.assertBad([AGG_A, AGG_B], '1.23',
                       'Multiple member_of parameters are not supported')

    def test_repeats_at_1_24_are_anded(self):
        self.assertEqual((frozenset({AGG_A}), frozenset({AGG_B})),
                         self.parse([AGG_A, AGG_B], '1.24').required)

    def test_forbidden_before_1_32(self):
        self.assertBad(['!' + AGG_A], '1.31',
                       'Forbidden member_of parameters are not supported')

    def test_forbidden_at_1_32(self):
        parsed = self.parse(['!in:%s,%s' % (AGG_A, AGG_B)], '1.32')
        self.assertEqual(frozenset({AGG_A, AGG_B}), parsed.forbidden)
        self.assertEqual((), parsed.required)

    def test_bang_inside_in_list(self):
        self.assertBad(['in:%s,!%s' % (AGG_A, AGG_B)], '1.39',
                       'Got: !%s' % AGG_B)


class ParseInTreeTest(unittest.TestCase):

    def test_as_written(self):
        # The lookup (the collation) decides, as for the reference service.
        self.assertEqual(AGG_A.upper(),
                         querystring.parse_in_tree(AGG_A.upper()))
