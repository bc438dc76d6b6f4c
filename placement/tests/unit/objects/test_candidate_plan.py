"""The plan of a candidates read and the statements built from it: pure,
no database (statements are compiled, not run).
"""
import unittest

from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

from placement import exception
from placement.objects.candidates import plan as plan_mod
from placement.objects.candidates import statements
from placement.solver import model

CLASSES = {0: 'VCPU', 1: 'MEMORY_MB'}


def _query(vcpu=1, **group):
    groups = (
        model.RequestGroup(suffix='_A', resources=(('VCPU', vcpu),),
                           traits=model.TraitFilter(
                               required=frozenset({'T1', 'T2'}))),
        model.RequestGroup(suffix='_B', resources=(('MEMORY_MB', 1),),
                           **group))
    return model.CandidateQuery(groups=groups, group_policy='none')


def _lookups(has_nested=True, sharing=()):
    return plan_mod.Lookups(
        CLASSES, {'T1': 1, 'T2': 2, 'T3': 3}, {'AGG': 9},
        sharing_ids=frozenset(sharing), sharing_roots=frozenset(sharing),
        sharing_aggs={rp_id: frozenset({9}) for rp_id in sharing},
        has_nested=has_nested, id_range=(1, 100))


def _sql(stmt, dialect=None):
    return str(stmt.compile(dialect=dialect or mysql.dialect()))


class TestPlan(unittest.TestCase):

    def test_amounts_do_not_change_the_plan(self):
        lookups = _lookups()
        self.assertEqual(plan_mod.plan_for(_query(1), lookups),
                         plan_mod.plan_for(_query(7), lookups))

    def test_the_plan_is_the_statement_cache_key(self):
        lookups = _lookups()
        first = plan_mod.plan_for(_query(1), lookups)
        second = plan_mod.plan_for(_query(3), lookups)
        self.assertIs(statements.state_stmt(first, plan_mod.RANGE),
                      statements.state_stmt(second, plan_mod.RANGE))

    def test_required_traits_of_every_group_must_be_in_the_tree(self):
        trait = model.TraitFilter(required=frozenset({'T3'}))
        found = plan_mod.plan_for(_query(traits=trait), _lookups())
        self.assertFalse(found.flat)
        self.assertEqual(((1,), (2,), (3,)), found.tree_traits)
        self.assertEqual((1, 2, 3), found.tree_required)

    def test_sharing_providers_leave_trees_unfiltered(self):
        found = plan_mod.plan_for(_query(), _lookups(sharing=(5,)))
        self.assertEqual((), found.tree_traits)
        self.assertEqual((5,), found.sharing_ids)
        self.assertEqual((('AGG', 9),), found.link_aggregates)

    def test_flat_plans_forbid_and_read_no_links(self):
        query = _query(traits=model.TraitFilter(
            forbidden=frozenset({'T3'})))
        found = plan_mod.plan_for(query, _lookups(has_nested=False))
        self.assertTrue(found.flat)
        self.assertEqual((3,), found.forbidden_traits)
        self.assertIsNone(statements.links_stmt(found, plan_mod.EVERY))
        # The solver then skips what SQL applied exactly.
        solver_query = plan_mod.solver_query(query, found)
        self.assertFalse(any(g.traits for g in solver_query.groups))

    def test_unfiltered_plans_filter_nothing(self):
        found = plan_mod.plan_for(_query(), _lookups(has_nested=False),
                                  filtered=False)
        self.assertEqual(plan_mod.Plan(flat=False, has_nested=False,
                                       link_aggregates=(('AGG', 9),)),
                         found)

    def test_unknown_names_raise(self):
        rows = [('c', 0, 'VCPU', None), ('t', 1, 'T1', None)]
        with self.assertRaises(exception.ResourceClassNotFound):
            plan_mod.lookups_from_rows(rows, _query())
        rows.append(('c', 1, 'MEMORY_MB', None))
        with self.assertRaises(exception.TraitNotFound):
            plan_mod.lookups_from_rows(rows, _query())


class TestStatements(unittest.TestCase):

    def test_every_root_checks_all_traits_in_one_grouped_subquery(self):
        found = plan_mod.plan_for(_query(), _lookups())
        providers = statements.state_stmt(found, plan_mod.EVERY).selects[0]
        self.assertEqual(1, _sql(providers).count('HAVING count(DISTINCT'))

    def test_a_chunk_of_roots_checks_each_trait_on_its_own(self):
        # Grouping would read the links of every tree, whatever the
        # chunk: a limit would no longer bound the work.
        found = plan_mod.plan_for(_query(), _lookups())
        text = _sql(statements.state_stmt(found, plan_mod.RANGE))
        self.assertNotIn('HAVING', text)
        self.assertIn('root_provider_id > %s', text)

    def test_listed_roots_are_one_parameter(self):
        # An expanding list on MySQL; one array on PostgreSQL, so that
        # the text is the same for any number of roots (in_lists.any_of).
        found = plan_mod.plan_for(_query(), _lookups())
        stmt = statements.state_stmt(found, plan_mod.LISTED)
        self.assertIn('__[POSTCOMPILE_root_ids]', _sql(stmt, mysql.dialect()))
        self.assertIn('= ANY (%(root_ids)s',
                      _sql(stmt, postgresql.psycopg.dialect()))

    def test_text_depends_on_the_shape_only(self):
        one = plan_mod.plan_for(_query(), _lookups())
        other = plan_mod.plan_for(_query(), plan_mod.Lookups(
            CLASSES, {'T1': 11, 'T2': 12}, {}, has_nested=True))
        self.assertNotEqual(one, other)
        for kind in (plan_mod.EVERY, plan_mod.RANGE, plan_mod.LISTED):
            self.assertEqual(
                _sql(statements.state_stmt(one, kind), postgresql.dialect()),
                _sql(statements.state_stmt(other, kind),
                     postgresql.dialect()))
        self.assertEqual(_sql(statements.range_end_stmt(one)),
                         _sql(statements.range_end_stmt(other)))

    def test_range_end_bounds_are_written_in_the_text(self):
        # A generic plan for unknown bounds scans and sorts every root.
        found = plan_mod.plan_for(_query(), _lookups())
        text = _sql(statements.range_end_stmt(found),
                    postgresql.psycopg.dialect())
        self.assertIn('id > __[POSTCOMPILE_low]', text)
        self.assertIn('LIMIT 1 OFFSET __[POSTCOMPILE_offset]', text)
