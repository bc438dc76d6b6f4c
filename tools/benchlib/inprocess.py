"""The WSGI application in this process, and what its requests cost.

``build`` makes the application on a database URL (the schema created
when missing, with the standard classes and traits), as the service
would serve it, noauth2. ``call`` sends one request straight to the WSGI
callable (no HTTP). ``Statements`` counts, through SQLAlchemy's public
events, the statements a request sends, the rows they return and its
round trips: statements, COMMITs, ROLLBACKs and the BEGIN psycopg (3
or 2) sends before a statement outside a transaction, except in
autocommit, where it sends neither BEGIN nor COMMIT nor ROLLBACK (nor
does a MySQL connection in autocommit send a ROLLBACK). The
pool's reset of a returned connection counts as a ROLLBACK unless the
connection's transaction already ended with a COMMIT or ROLLBACK and no
statement followed it, as placement's engines skip it
(``placement.db.round_trips``: on MariaDB a write is its statements and
its COMMIT, a read its statements and one ROLLBACK; checked against the
server's own count, ``SHOW SESSION STATUS LIKE 'Questions'``, request
by request). Not counted: the rare ping of a connection idle for long,
what a new connection sends as it opens, and the ROLLBACK after a
COMMIT that failed on a connection still usable (the engine sends it,
this counts none).
"""
import contextlib
import gc
import json

import sqlalchemy as sa
import webob

from placement import deploy
from placement.testing import app as app_fixture
from tools.benchlib import http


def build(url, **overrides):
    """(application, db.api.Database) on ``url`` (``overrides`` as
    'group.option': value).

    What building made is then frozen out of the cyclic collector's
    sight, as a server does (placement.wsgi): otherwise its passes walk
    the startup objects too, and a change that makes a request hold more
    objects at once looks costlier here than it is in a server (GET
    /resource_providers, 1,000 providers: 3.90 ms unfrozen, 3.46
    frozen).
    """
    conf = app_fixture.make_conf(url, **overrides)
    db = app_fixture.open_database(conf)
    app = deploy.loadapp(conf, db=db)
    gc.collect()
    gc.freeze()
    return app, db


def call(app, path, method='GET', body=None, version='1.39'):
    """(status code, body bytes) of one request through the whole app;
    ``body`` a JSON-able value or None."""
    req = webob.Request.blank(path, method=method,
                              headers=http.headers_at(version))
    if body is not None:
        req.body = json.dumps(body).encode()
    resp = req.get_response(app)
    return resp.status_int, resp.body


def checked(app, path, method='GET', body=None, version='1.39'):
    """The parsed body (or None) of a request that must succeed."""
    status, data = call(app, path, method, body, version)
    if status >= 400:
        raise RuntimeError('%s %s: %s %s' % (method, path, status,
                                             data[:300]))
    return json.loads(data) if data else None


def _status(dbapi_connection):
    """The transaction status of a psycopg 3 or psycopg2 connection (0:
    outside a transaction), None for another driver."""
    status = getattr(getattr(dbapi_connection, 'info', None),
                     'transaction_status', None)
    if status is None:
        get = getattr(dbapi_connection, 'get_transaction_status', None)
        status = get() if get is not None else None
    return status


def _begins(dbapi_connection):
    """Whether the driver sends a BEGIN of its own before a statement:
    psycopg (3 or 2) outside a transaction, unless in autocommit."""
    return _status(dbapi_connection) == 0 and not getattr(
        dbapi_connection, 'autocommit', False)


# Connection record info: the counter saw a COMMIT or ROLLBACK on the
# connection, and no statement since.
_ENDED = 'benchlib.inprocess.ended'


def _ends(dbapi_connection):
    """Whether a COMMIT or ROLLBACK goes to the server: psycopg (3 or 2)
    sends none outside a transaction (in autocommit, always); on MySQL
    placement's engine of the reads without snapshot, in autocommit,
    skips its ROLLBACK (``skip_autocommit_rollback``) and has no COMMIT
    to send."""
    autocommit = getattr(dbapi_connection, 'get_autocommit', None)
    if autocommit is not None and autocommit():
        return False
    return _status(dbapi_connection) != 0


class Statements:
    """Statements (and their text), rows and round trips on engines."""

    def __init__(self, *engines):
        self.texts = []
        self.trips = self.rows = 0
        self._engines = set(engines)
        self._listen(sa.event.listen)

    def _listen(self, how):
        for engine in self._engines:
            how(engine, 'before_cursor_execute', self._before)
            how(engine, 'after_cursor_execute', self._after)
            for name in ('commit', 'rollback'):
                how(engine, name, self._ended)
            how(engine.pool, 'reset', self._reset)

    @contextlib.contextmanager
    def detached(self):
        """Count nothing inside: for timing, which the listeners would
        slow (on psycopg 3, reading ``cursor.description`` builds its
        columns again; five listeners were 5% of a request's samples)."""
        self._listen(sa.event.remove)
        try:
            yield
        finally:
            self._listen(sa.event.listen)

    @property
    def statements(self):
        return len(self.texts)

    def _before(self, conn, cursor, statement, *args):
        conn.info.pop(_ENDED, None)
        self.texts.append(statement)
        self.trips += 1
        if _begins(conn.connection.dbapi_connection):
            self.trips += 1

    def _after(self, conn, cursor, *args):
        if cursor.description is not None and cursor.rowcount > 0:
            self.rows += cursor.rowcount

    def _ended(self, conn):
        conn.info[_ENDED] = True
        if _ends(conn.connection.dbapi_connection):
            self.trips += 1

    def _reset(self, dbapi_connection, record, reset_state):
        # SQLAlchemy 2's signature: a listener with *args goes through
        # its legacy adapter, which warns (and costs ~0.2 ms) each time.
        # No ROLLBACK goes when the transaction ended already: by the
        # Connection (a read closed in its transaction) or by a COMMIT or
        # ROLLBACK with nothing after it (a write; MariaDB's Questions:
        # a write's COMMIT is its last round trip).
        ended = record is not None and record.info.pop(_ENDED, False)
        if (not ended and not reset_state.transaction_was_reset
                and _ends(dbapi_connection)):
            self.trips += 1

    def snapshot(self):
        return self.statements, self.trips, self.rows
