"""db.backend and db.packed on each backend: every named difference does
what its name says, wherever it runs; and a psycopg2 URL still serves.
(backend.repeatable_read: db/test_audit.py's snapshot tests.)
"""
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import backend
from placement.db import models
from placement.db import packed
from placement.tests.functional.db import base
from placement.testing import app as app_fixture

RP = models.resource_providers


class _BackendHelpers:

    def setUp(self):
        super().setUp()
        self.db = self.new_database()
        app_fixture.create_schema(self.db)

    def _provider(self, conn, uuid, name=None):
        result = conn.execute(RP.insert().values(
            uuid=uuid, name=name or uuid, generation=0))
        return result.inserted_primary_key[0]

    def test_key_fold_is_how_the_database_compares_uuids(self):
        with db_api.transaction(self.db) as conn:
            self._provider(conn, 'abc')
            found = conn.execute(sa.select(sa.func.count()).where(
                RP.c.uuid == 'ABC')).scalar()
            fold = backend.key_fold(conn)
        self.assertEqual(bool(found), fold('ABC') == fold('abc'))

    def test_updated_row_id_returns_the_changed_rows_id(self):
        swap = (RP.update().where(RP.c.uuid == sa.bindparam('u'))
                .where(RP.c.generation == sa.bindparam('seen'))
                .values(generation=sa.bindparam('new')))
        with db_api.transaction(self.db) as conn:
            self.assertTrue(backend.updates_return_ids(conn))
            rp_id = self._provider(conn, 'p1')
            self.assertEqual(rp_id, backend.updated_row_id(
                conn, swap, {'u': 'p1', 'seen': 0, 'new': 1}, RP.c.id))
            self.assertIsNone(backend.updated_row_id(
                conn, swap, {'u': 'p1', 'seen': 0, 'new': 1}, RP.c.id))
            self.assertEqual(1, conn.execute(sa.select(RP.c.generation)
                                             ).scalar())

    def test_next_id_draws_the_id_the_insert_gets(self):
        with db_api.transaction(self.db) as conn:
            new_id = backend.next_id(conn, RP.c.id)
            if new_id is None:
                self.assertNotEqual('postgresql', self.backend_name)
                return
            drawn = conn.execute(sa.select(new_id)).scalar()
            inserted = self._provider(conn, 'p2')
        self.assertEqual(drawn + 1, inserted)

    def test_inserts_return_rows(self):
        with db_api.transaction(self.db) as conn:
            self.assertTrue(backend.inserts_return_rows(conn))
            row = conn.execute(RP.insert().values(
                uuid='p3', name='p3', generation=0).returning(RP.c.uuid)
            ).first()
        self.assertEqual('p3', row.uuid)

    def test_allow_zero_ids_stores_id_zero(self):
        rc = models.resource_classes
        with db_api.transaction(self.db) as conn:
            conn.execute(rc.delete().where(rc.c.id == 0))
            backend.allow_zero_ids(conn)
            conn.execute(rc.insert().values(id=0, name='ZERO'))
            self.assertEqual('ZERO', conn.execute(
                sa.select(rc.c.name).where(rc.c.id == 0)).scalar())

    def test_never_reuses_ids_is_whether_a_deleted_id_comes_back(self):
        with db_api.transaction(self.db) as conn:
            old_id = self._provider(conn, 'gone')
            conn.execute(RP.delete().where(RP.c.id == old_id))
            new_id = self._provider(conn, 'next')
            self.assertEqual(new_id != old_id,
                             backend.never_reuses_ids(conn))

    def test_named_differences_by_backend(self):
        # What upstream's schema and the servers do differently, pinned.
        with db_api.reader(self.db) as conn:
            self.assertEqual(
                {'sqlite': (False, False, False),
                 'mysql': (False, True, False),
                 'postgresql': (True, False, True)}[self.backend_name],
                (backend.checks_name_key_first(conn),
                 backend.locks_hold_on_one_node(conn),
                 backend.groups_whole_tables_cheaply(conn)))

    def test_packed_rows_are_the_plain_rows(self):
        with db_api.transaction(self.db) as conn:
            for index in range(5):
                self._provider(conn, 'q%d' % index)
        stmt = (sa.select(RP.c.uuid, RP.c.generation, RP.c.parent_provider_id,
                          RP.c.id).where(RP.c.uuid.like('q%'))
                .order_by(RP.c.id))
        types = (packed.TEXT, packed.INT, packed.INT, packed.INT)
        with db_api.reader(self.db, snapshot=False) as conn:
            plain = [tuple(row) for row in conn.execute(stmt)]
            found = [tuple(row) for row in packed.fetch_rows(
                conn, stmt, {}, types, order_by=3)]
        self.assertEqual(5, len(plain))
        self.assertEqual(plain, found)

    def test_packed_union_rows_are_the_plain_rows(self):
        with db_api.transaction(self.db) as conn:
            for index in range(3):
                self._provider(conn, 'u%d' % index)
        mine = RP.c.uuid.like('u%')
        stmt = sa.union_all(
            sa.select(sa.literal_column("'a'").label('kind'), RP.c.id)
            .where(mine),
            sa.select(sa.literal_column("'b'"), RP.c.generation).where(mine))
        with db_api.reader(self.db, snapshot=False) as conn:
            plain = sorted(tuple(row) for row in conn.execute(stmt))
            found = sorted(tuple(row) for row in packed.fetch_rows(
                conn, stmt, {}, (packed.TEXT, packed.INT)))
        self.assertEqual(6, len(plain))
        self.assertEqual(plain, found)

    def test_a_packed_select_keeps_its_from_and_where(self):
        # Aggregated in place, not over a derived table, so that the
        # server plans the joins it plans for the rows.
        stmt = sa.select(RP.c.uuid, RP.c.id).where(sa.exists().where(
            RP.c.parent_provider_id.isnot(None))).order_by(RP.c.id)
        text = str(packed.pack(stmt, (packed.TEXT, packed.INT)))
        self.assertNotIn('packed', text)
        self.assertNotIn('ORDER BY', text)
        self.assertIn('EXISTS', text)

    def test_a_packed_answer_that_could_be_misread_is_read_plainly(self):
        with db_api.transaction(self.db) as conn:
            self._provider(conn, 'r1', name='back\\slash')
            self._provider(conn, 'r2', name='a "quote"')
        stmt = sa.select(RP.c.name).where(RP.c.uuid.like('r%')).order_by(
            RP.c.id)
        with db_api.reader(self.db, snapshot=False) as conn:
            self.assertEqual(
                [('back\\slash',), ('a "quote"',)],
                [tuple(row) for row in packed.fetch_rows(
                    conn, stmt, {}, (packed.TEXT,))])


globals().update(base.per_backend(_BackendHelpers))


class Psycopg2Test(base.BackendTestCase):
    """A postgresql+psycopg2:// URL still serves, with plain statements."""

    backend_name = 'postgresql'

    def test_a_psycopg2_url_serves_reads_and_writes(self):
        url = sa.engine.make_url(self.new_url()).set(
            drivername='postgresql+psycopg2')
        placement = app_fixture.make_conf(
            url.render_as_string(hide_password=False))
        db = db_api.create_database(placement)
        self.addCleanup(db.dispose)
        self.assertEqual('psycopg2', db.writer.dialect.driver)
        app_fixture.create_schema(db)
        with db_api.transaction(db) as conn:
            conn.execute(RP.insert().values(uuid='s1', name='s1',
                                            generation=0))
        for snapshot in (True, False):
            with db_api.reader(db, snapshot=snapshot) as conn:
                self.assertEqual(['s1'], conn.execute(
                    sa.select(RP.c.uuid)).scalars().all())


class PreferredTLSTest(base.BackendTestCase):
    """PyMySQL's TLS choice is made by the first connection of an engine,
    and its context shared (driver._PreferredTLS)."""

    backend_name = 'mysql'

    def test_later_connections_make_no_tls_context_of_their_own(self):
        db = self.new_database(**{'placement_database.max_pool_size': 1,
                                  'placement_database.max_overflow': 2})
        with db.writer.connect() as first, db.writer.connect() as second:
            ours = [conn.connection.dbapi_connection
                    for conn in (first, second)]
        offered = bool(ours[0].server_capabilities & 0x800)  # CLIENT.SSL
        self.assertEqual(offered, ours[1].ssl)
        if offered:
            self.assertIs(ours[0].ctx, ours[1].ctx)
        else:
            self.assertFalse(hasattr(ours[1], 'ctx'))
