"""db.engine.create_engine: oslo.db's engine for [placement_database],
with the idle-only ping and our events on top (no database server
needed: max_retries=0 connects nowhere); db.api.transaction's COMMIT."""
import inspect
import os
import shutil
import tempfile

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
import pymysql
import sqlalchemy as sa
import testtools

from placement import conf as placement_conf
from placement.db import api as db_api
from placement.db import engine as db_engine
from placement.db import retry


def _group(url, **options):
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf([], project='placement', default_config_files=[])
    conf.set_override('connection', url, group='placement_database')
    conf.set_override('max_retries', 0, group='placement_database')
    for name, value in options.items():
        conf.set_override(name, value, group='placement_database')
    return conf.placement_database


class CreateEngineTests(testtools.TestCase):

    def _engine(self, url, **options):
        engine = db_engine.create_engine(_group(url, **options), url)
        self.addCleanup(engine.dispose)
        return engine

    def _oslo_db_engine(self, url, **kwargs):
        engine = engines.create_engine(url, max_retries=0, **kwargs)
        self.addCleanup(engine.dispose)
        return engine

    def test_every_option_reaches_oslo_db_under_its_name(self):
        group = _group('mysql+pymysql://u@h/db', max_pool_size=7,
                       connection_parameters='a=1')
        args = db_engine.oslo_db_arguments(group)
        self.assertEqual(7, args['max_pool_size'])
        self.assertEqual('plugin=placement&a=1',
                         args['connection_parameters'])
        # Each is a public parameter of oslo.db's factory.
        parameters = inspect.signature(engines.create_engine).parameters
        for name in args:
            self.assertIn(name, parameters)
            self.assertFalse(name.startswith('_'))

    def test_the_pool_is_oslo_dbs_but_pings_idle_connections_only(self):
        options = dict(max_pool_size=7, max_overflow=3, pool_timeout=11,
                       connection_recycle_time=99)
        ours = self._engine('mysql+pymysql://u@127.0.0.1/db', **options)
        theirs = self._oslo_db_engine(
            'mysql+pymysql://u@127.0.0.1/db', max_pool_size=7,
            max_overflow=3, pool_timeout=11, connection_recycle_time=99)
        self.assertIsInstance(ours.pool, sa.pool.QueuePool)
        self.assertEqual(theirs.pool.size(), ours.pool.size())
        self.assertEqual(7, ours.pool.size())
        self.assertEqual(theirs.pool.timeout(), ours.pool.timeout())
        self.assertEqual(theirs.url, ours.url)
        self.assertEqual('placement', ours.logging_name)
        # Pinged only after sitting idle (db_engine._add_idle_ping).
        self.assertEqual((True, False),
                         (theirs.pool._pre_ping, ours.pool._pre_ping))

    def test_no_green_thread_yield_on_checkin(self):
        # oslo.db's thread_checkin sleeps at every checkin for eventlet;
        # our servers run OS threads.
        self.assertFalse(db_engine.oslo_db_arguments(
            _group('mysql+pymysql://u@h/db'))['thread_checkin'])

    def test_connection_parameters_are_appended(self):
        engine = self._engine('mysql+pymysql://u@h/db?a=1',
                              connection_parameters='b=2&c=3')
        self.assertEqual({'a': '1', 'b': '2', 'c': '3'},
                         dict(engine.url.query))

    def test_postgresql_client_encoding(self):
        for driver in ('psycopg', 'psycopg2'):
            engine = self._engine('postgresql+%s://u@h/db' % driver)
            self.assertEqual('utf8', engine.dialect.client_encoding)

    def test_sqlite_file_uses_no_pool(self):
        engine = self._engine('sqlite:////tmp/nothing-here.db')
        self.assertIsInstance(engine.pool, sa.pool.NullPool)

    def test_sqlite_memory_is_one_shared_connection(self):
        engine = self._engine('sqlite://')
        self.assertIsInstance(engine.pool, sa.pool.StaticPool)

    def test_sqlite_transactions_and_regexp(self):
        handle, path = tempfile.mkstemp(suffix='.db')
        os.close(handle)
        self.addCleanup(os.unlink, path)
        engine = self._engine('sqlite:///%s' % path,
                              sqlite_synchronous=False)
        with engine.begin() as conn:
            conn.execute(sa.text('CREATE TABLE t (x TEXT)'))
            conn.execute(sa.text("INSERT INTO t VALUES ('abc')"))
        try:
            with engine.begin() as conn:
                conn.execute(sa.text("INSERT INTO t VALUES ('xyz')"))
                raise RuntimeError('roll back')
        except RuntimeError:
            pass
        with engine.connect() as conn:
            self.assertEqual(['abc'], conn.execute(sa.text(
                "SELECT x FROM t WHERE x REGEXP '^a'")).scalars().all())
            self.assertEqual(0, conn.execute(sa.text(
                'PRAGMA synchronous')).scalar())

    def test_connect_failure_is_retried_then_raised(self):
        url = 'mysql+pymysql://u@127.0.0.1:1/db'
        group = _group(url, max_retries=2, retry_interval=0)
        self.assertRaises(db_exc.DBConnectionError,
                          db_engine.create_engine, group, url)

    def test_duplicate_entry_is_translated(self):
        engine = self._engine('sqlite://')
        with engine.begin() as conn:
            conn.execute(sa.text('CREATE TABLE t (x INTEGER UNIQUE)'))
            conn.execute(sa.text('INSERT INTO t VALUES (1)'))

        def insert_again():
            with engine.begin() as conn:
                conn.execute(sa.text('INSERT INTO t VALUES (1)'))
        self.assertRaises(db_exc.DBDuplicateEntry, insert_again)

    def test_a_forked_childs_checkout_never_reuses_the_parents(self):
        engine = self._engine('sqlite://')
        with engine.connect() as conn:
            record = conn.connection._connection_record
            self.assertEqual(os.getpid(), record.info['pid'])
            record.info['pid'] = -1
        with engine.connect() as conn:
            self.assertEqual(os.getpid(),
                             conn.connection._connection_record.info['pid'])


def _mysql_error(code):
    return sa.exc.OperationalError(
        'COMMIT', {}, pymysql.err.OperationalError(code, 'x'))


class CommitTest(testtools.TestCase):
    """What a failed COMMIT raises: AmbiguousCommit, with the write's
    check, when the write may have landed. The failure is raised by
    SQLAlchemy's commit event of a real SQLite engine, as the driver
    would."""

    def _commit_failing_with(self, error):
        directory = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, directory)
        engine = sa.create_engine('sqlite:///%s' % os.path.join(
            directory, 'commit.db'))
        self.addCleanup(engine.dispose)

        @sa.event.listens_for(engine, 'commit')
        def fail(conn):
            raise error
        with db_api.transaction(db_api.Database(engine)) as conn:
            conn.execute(sa.text('CREATE TABLE t (x INTEGER)'))
            db_api.on_commit_lost('check')

    def test_lost_connection_or_node_is_ambiguous(self):
        for code in (2013, 2006, 1180, 1047):
            with self.subTest(code=code):
                exc = self.assertRaises(
                    retry.AmbiguousCommit, self._commit_failing_with,
                    _mysql_error(code))
                self.assertEqual('check', exc.check)

    def test_lost_race_is_not(self):
        error = _mysql_error(1213)
        exc = self.assertRaises(sa.exc.OperationalError,
                                self._commit_failing_with, error)
        self.assertIs(error, exc)
