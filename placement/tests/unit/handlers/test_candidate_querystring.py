"""The GET /allocation_candidates grammar, without HTTP."""
import unittest

import webob.exc

from placement.handlers import querystring
from placement import microversion
from placement.solver import model

V = microversion.Version


def parse(query, mv=(1, 39)):
    params, pairs = {}, []
    for item in query.split('&'):
        key, _, value = item.partition('=')
        params.setdefault(key, []).append(value)
        pairs.append((key, value))
    return querystring.parse_candidate_query(params, V(*mv), pairs)


class TestGroups(unittest.TestCase):

    def test_unsuffixed_group_comes_first_then_suffixes_sorted(self):
        query = parse('resources_B=VCPU:1&resources=DISK_GB:2'
                      '&resources_A=MEMORY_MB:3&group_policy=none')
        self.assertEqual(['', '_A', '_B'], [g.suffix for g in query.groups])
        self.assertEqual((('DISK_GB', 2),), query.groups[0].resources)

    def test_last_resources_value_wins(self):
        query = parse('resources=VCPU:1&resources=VCPU:3')
        self.assertEqual((('VCPU', 3),), query.groups[0].resources)

    def test_required_forbidden_and_any_of(self):
        query = parse('resources=VCPU:1&required=A,!B&required=in:C,D')
        self.assertEqual(model.TraitFilter(frozenset({'A'}),
                                           frozenset({'B'}),
                                           (frozenset({'C', 'D'}),)),
                         query.groups[0].traits)

    def test_member_of_and_in_tree(self):
        agg = '11111111-1111-1111-1111-111111111111'
        rp = '22222222-2222-2222-2222-222222222222'
        query = parse('resources1=VCPU:1&member_of1=!%s&in_tree1=%s'
                      % (agg, rp))
        group = query.groups[0]
        self.assertEqual(frozenset({agg}), group.aggregates.forbidden)
        self.assertEqual(rp, group.in_tree)

    def test_nested_aware_from_1_29(self):
        self.assertFalse(parse('resources=VCPU:1', (1, 28)).nested_aware)
        self.assertTrue(parse('resources=VCPU:1', (1, 29)).nested_aware)

    def test_limit_and_policy(self):
        query = parse('resources1=VCPU:1&resources2=VCPU:1'
                      '&group_policy=isolate&limit=5')
        self.assertEqual(('isolate', 5), (query.group_policy, query.limit))

    def test_same_subtree_and_resourceless_group(self):
        query = parse('resources_A=VCPU:1&required_B=T&group_policy=none'
                      '&same_subtree=_A,_B&same_subtree=_A')
        self.assertEqual((('_A', '_B'), ('_A',)), query.same_subtrees)
        self.assertEqual((), query.groups[1].resources)

    def test_root_required(self):
        query = parse('resources=VCPU:1&root_required=A,!B', (1, 35))
        self.assertEqual(model.TraitFilter(frozenset({'A'}),
                                           frozenset({'B'})),
                         query.root_traits)


class TestErrors(unittest.TestCase):
    """Each documented 400, in the documented order."""

    def assert_400(self, query, text, mv=(1, 39), code=None):
        with self.assertRaises(webob.exc.HTTPBadRequest) as ctx:
            parse(query, mv)
        self.assertIn(text, str(ctx.exception))
        self.assertEqual(code, ctx.exception.placement_code)

    def test_in_tree_not_a_uuid(self):
        self.assert_400('resources=VCPU:1&in_tree=x',
                        "Expected 'in_tree' parameter to be a format of "
                        "uuid. Got: x")

    def test_root_required_twice(self):
        self.assert_400('resources=VCPU:1&root_required=A&root_required=B',
                        "may be specified only once",
                        code='placement.query.duplicate_key')

    def test_root_required_any_of(self):
        self.assert_400('resources=VCPU:1&root_required=in:A,B',
                        "only supported since microversion 1.39")

    def test_root_required_conflict(self):
        self.assert_400('resources=VCPU:1&root_required=A,!A',
                        'found in root_required: A',
                        code='placement.query.bad_value')

    def test_same_subtree_empty_element(self):
        self.assert_400('resources=VCPU:1&resources_A=VCPU:1'
                        '&same_subtree=_A,', 'Empty string',
                        code='placement.query.bad_value')

    def test_no_resources_at_all(self):
        self.assert_400('required_A=T&same_subtree=_A',
                        'There must be at least one resources',
                        code='placement.query.missing_value')

    def test_resourceless_outside_same_subtree(self):
        self.assert_400('resources=VCPU:1&required_A=T',
                        "bad group(s) - ['_A']",
                        code='placement.query.bad_value')

    def test_unknown_same_subtree_suffix(self):
        self.assert_400('resources=VCPU:1&same_subtree=_X',
                        "['_X'] not found in ['']",
                        code='placement.query.bad_value')

    def test_orphans_before_1_36(self):
        self.assert_400('resources=VCPU:1&required1=T',
                        'orphaned traits keys: required1', (1, 25))
        self.assert_400('resources=VCPU:1&member_of1='
                        '11111111-1111-1111-1111-111111111111',
                        'orphaned member_of keys: member_of1', (1, 25))
        self.assert_400('resources=VCPU:1&in_tree1='
                        '11111111-1111-1111-1111-111111111111',
                        'All request groups must specify resources.',
                        (1, 31))

    def test_conflicting_traits_from_1_22(self):
        self.assert_400('resources=VCPU:1&required=A,!A',
                        'required: (A)', (1, 22))
        self.assert_400('resources=VCPU:1&required=in:A,B&required=!A,!B',
                        'required: (A, B)')
        parse('resources=VCPU:1&required=in:A,B&required=!A')

    def test_group_policy_required(self):
        self.assert_400('resources1=VCPU:1&resources2=VCPU:1',
                        'The "group_policy" parameter is required', (1, 25))
        parse('resources=VCPU:1&resources1=VCPU:1', (1, 25))

    def test_root_required_checked_before_same_subtree(self):
        self.assert_400('resources=VCPU:1&root_required=A&root_required=A'
                        '&same_subtree=,', 'only once',
                        code='placement.query.duplicate_key')


AGG = '11111111-1111-1111-1111-111111111111'
RP1 = '22222222-2222-2222-2222-222222222222'
RP2 = '33333333-3333-3333-3333-333333333333'


class TestRepeatedKeys(unittest.TestCase):
    """A key given more than once, as the reference service reads it."""

    def assert_400(self, query, text, mv=(1, 39)):
        with self.assertRaises(webob.exc.HTTPBadRequest) as ctx:
            parse(query, mv)
        self.assertIn(text, str(ctx.exception))

    def test_the_first_limit_counts(self):
        self.assertEqual(10, parse('resources=VCPU:1&limit=10&limit=1').limit)
        self.assertEqual(1, parse('resources=VCPU:1&limit=1&limit=10').limit)
        # As Python's int() reads it.
        self.assertEqual(1, parse('resources=VCPU:1&limit=01&limit=2').limit)

    def test_a_first_limit_of_zero_is_no_limit(self):
        # As the reference service reads it: every candidate.
        for first in ('0', '00', '-0', ' 0'):
            self.assertIsNone(parse(
                'resources=VCPU:1&limit=%s&limit=5' % first).limit)

    def test_a_first_limit_that_is_no_positive_integer_is_400(self):
        for first in ('x', '', '1.5', '-1', '9' * 5000):
            self.assert_400('resources=VCPU:1&limit=%s&limit=1' % first,
                            "Expected the first 'limit' to be a positive "
                            "integer")

    def test_every_resources_value_is_read_the_last_wins(self):
        for key in ('resources', 'resources1'):
            query = parse('%s=VCPU:1&%s=DISK_GB:2&group_policy=none'
                          % (key, key))
            self.assertEqual((('DISK_GB', 2),), query.groups[0].resources)
            self.assert_400('%s=VCPU:x&%s=VCPU:1' % (key, key),
                            'expected positive integer amount. Got: x.')

    def test_every_in_tree_value_is_read_the_last_wins(self):
        query = parse('resources=VCPU:1&in_tree=%s&in_tree=%s' % (RP1, RP2))
        self.assertEqual(RP2, query.groups[0].in_tree)
        self.assert_400('resources=VCPU:1&in_tree=x&in_tree=%s' % RP1,
                        "format of uuid. Got: x")

    def test_keys_are_read_in_the_order_of_the_query(self):
        self.assert_400('resources=VCPU:1&in_tree=x&resources=VCPU:y',
                        "format of uuid. Got: x")
        self.assert_400('resources2=VCPU:y&resources1=VCPU:x'
                        '&group_policy=none', 'Got: y.')
        self.assert_400('required1=A,&resources1=VCPU:x',
                        'Got an empty trait in: A,')

    def test_member_of_and_required_read_all_values_at_once(self):
        self.assert_400('member_of=%s&resources=VCPU:x&member_of=bad' % AGG,
                        "valid UUID(s). Got: bad")
        self.assert_400('required=A&resources=VCPU:x&required=A,',
                        'Got an empty trait in: A,')

    def test_before_1_39_only_the_last_required_is_read(self):
        query = parse('resources=VCPU:1&required=!&required=B', (1, 38))
        self.assertEqual(frozenset({'B'}), query.groups[0].traits.required)
        self.assert_400('required=A&resources=VCPU:x&required=A,',
                        'Got an empty trait in: A,', (1, 38))

    def test_request_wide_keys_before_the_groups(self):
        self.assert_400('in_tree=x&resources=VCPU:1&root_required=A,',
                        'Got an empty trait in: A,')
        self.assert_400('in_tree=x&resources=VCPU:1&same_subtree=',
                        'Empty string')
        self.assert_400('in_tree=x&resources=VCPU:1&limit=x&limit=1',
                        "first 'limit'")

    def test_member_of_uuids_before_the_forbidden_version(self):
        self.assert_400('resources=VCPU:1&member_of=!x',
                        "valid UUID(s). Got: x", (1, 31))
        self.assert_400('resources=VCPU:1&member_of=!%s,%s' % (AGG, AGG),
                        "must be prefixed with the 'in:'", (1, 31))
        self.assert_400('resources=VCPU:1&member_of=!%s' % AGG,
                        'Forbidden member_of parameters are not supported',
                        (1, 31))

    def test_unknown_same_subtree_suffixes_are_named_once(self):
        self.assert_400('resources_1=VCPU:1&resources_2=VCPU:1'
                        '&group_policy=none&same_subtree=_3,_3'
                        '&same_subtree=_4,_3',
                        "['_3', '_4'] not found in ['_1', '_2']")


class TestNameChecks(unittest.TestCase):
    """The order in which the names' existence is checked."""

    def test_root_traits_then_groups_in_the_order_first_named(self):
        query = parse('required_B=T2&resources_A=MEMORY_MB:1'
                      '&resources_B=VCPU:1&resources=DISK_GB:1'
                      '&root_required=R1,!R2&group_policy=none')
        self.assertEqual([
            (None, model.TRAIT, 'R1'), (None, model.TRAIT, 'R2'),
            ('_B', model.CLASS, 'VCPU'), ('_B', model.TRAIT, 'T2'),
            ('_A', model.CLASS, 'MEMORY_MB'), ('', model.CLASS, 'DISK_GB'),
        ], [tuple(check) for check in query.name_checks])

    def test_classes_member_of_then_required_then_forbidden_traits(self):
        query = parse('required=!F1,T2&member_of=in:%s&required=in:T3,T1'
                      '&resources=VCPU:1,DISK_GB:2' % AGG)
        self.assertEqual([
            model.CLASS, model.CLASS, model.AGGREGATES, model.TRAIT,
            model.TRAIT, model.TRAIT, model.TRAIT,
        ], [check.kind for check in query.name_checks])
        self.assertEqual(['VCPU', 'DISK_GB'], [
            check.value for check in query.name_checks[:2]])
        self.assertEqual(['T2', 'T3', 'T1', 'F1'], [
            check.value for check in query.name_checks[3:]])

    def test_before_1_39_the_last_required_value(self):
        query = parse('resources=VCPU:1&required=A&required=B', (1, 38))
        self.assertEqual(['VCPU', 'B'], [
            check.value for check in query.name_checks])

    def test_not_part_of_the_query_identity(self):
        self.assertEqual(parse('resources=VCPU:1&required=A,B'),
                         parse('resources=VCPU:1&required=B,A'))
