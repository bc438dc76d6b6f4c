"""db.api.create_engine: the engine oslo.db would build, without oslo.db's
engines module (no database server needed: max_retries=0 connects
nowhere)."""
import os
import tempfile

import sqlalchemy as sa
import testtools

from placement.db import api as db_api


class CreateEngineTests(testtools.TestCase):

    def _engine(self, url, **kwargs):
        kwargs.setdefault('max_retries', 0)
        engine = db_api.create_engine(url, **kwargs)
        self.addCleanup(engine.dispose)
        return engine

    def test_mysql_pool_options_and_charset(self):
        engine = self._engine(
            'mysql+pymysql://u@127.0.0.1/db', max_pool_size=7,
            max_overflow=3, pool_timeout=11, connection_recycle_time=99,
            logging_name='placement')
        self.assertIsInstance(engine.pool, sa.pool.QueuePool)
        self.assertEqual(7, engine.pool.size())
        self.assertEqual(3, engine.pool._max_overflow)
        self.assertEqual(11, engine.pool._timeout)
        self.assertEqual(99, engine.pool._recycle)
        # Pinged only after sitting idle (db_api._add_idle_ping).
        self.assertFalse(engine.pool._pre_ping)
        self.assertEqual('placement', engine.logging_name)

    def _connect_args(self, url):
        args = {'connect_args': {}}
        db_api._engine_args(sa.engine.make_url(url), args, None, None, None)
        return args['connect_args']

    def test_mysql_charset_defaults_to_utf8(self):
        self.assertEqual({'charset': 'utf8'},
                         self._connect_args('mysql+pymysql://u@h/db'))
        self.assertEqual({}, self._connect_args(
            'mysql+pymysql://u@h/db?charset=utf8mb4'))

    def test_connection_parameters_are_appended(self):
        engine = self._engine('mysql+pymysql://u@h/db?a=1',
                              connection_parameters='b=2&c=3')
        self.assertEqual({'a': '1', 'b': '2', 'c': '3'},
                         dict(engine.url.query))

    def test_postgresql_client_encoding(self):
        engine = self._engine('postgresql+psycopg2://u@h/db')
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
        from oslo_db import exception as db_exc
        self.assertRaises(
            db_exc.DBConnectionError, db_api.create_engine,
            'mysql+pymysql://u@127.0.0.1:1/db', max_retries=2,
            retry_interval=0)

    def test_duplicate_entry_is_translated(self):
        from oslo_db import exception as db_exc
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
