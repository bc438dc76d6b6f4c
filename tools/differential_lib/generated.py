"""The differential's generated mode: generated requests, both services.

    .venv/bin/python tools/differential --generated 3000 --db mysql \\
        [--seed 22] [--port 18501] [--minutes 60]

Our service (under uwsgi, on ``--port`` + 1) and upstream's
(``upstream-server``, under uwsgi too, on ``--port``) each start on a fresh
database of the chosen server and get the same seed world
(placement/testing/seed_data). Then the requests the
generated-request tests send (the OpenAPI document's positive and
negative cases from ``document_requests``, query strings with a
parameter repeated from ``query_requests``, the hostile requests of
``hostile``, and its well-formed requests that write and read back
hostile but valid names, ids and consumer types (``valid_requests``),
drawn by hypothesis from ``--seed``) go to both. Each pair
of answers goes through the differential's comparison (``compare``, with
the seed rule of ``candidates`` for candidate and aggregate lists), and
after each request that may write, both databases' rows are compared
(``rows``). Differences are printed as the gabbi replay prints them and
summed up by class: kind, route, method and, for a status, the two
statuses, each with its shortest request. (Rows are compared after
every request but a GET, refused ones too: a stray row of upstream's
shows at the request that left it.)

``--minutes`` stops the run when that time is up (so does Ctrl-C), and
the report covers the requests sent.

When the rows differ, the two services no longer hold the same state
and every later answer could differ for that reason alone: both start
again on fresh databases (counted as a restart). An answer of 500 from
upstream is not a difference to copy: it is counted apart.
"""
import collections
import http.client
import re
import sys
import time
import traceback
import warnings

import hypothesis
from hypothesis import strategies as st
import sqlalchemy as sa

from placement.db import models
from placement import handler
from placement.testing import app as app_fixture
from placement.testing import document_requests
from placement.testing import generated_settings
from placement.testing import hostile
from placement.testing import live_server
from placement.testing import query_requests
from placement.testing import seed_data
from tools.differential_lib import candidates
from tools.differential_lib import compare
from tools.differential_lib import rows

FILE = 'generated'
# The Host header both services get, so that Location headers (made
# from it) can be compared.
HOST = 'placement.test:8778'
# What stands for an answer when a server closed the connection without
# one (uwsgi does so for a request line or headers beyond its buffer).
NO_ANSWER = '000 connection closed without an answer'
# Tables whose stray rows upstream leaves after a refused claim.
STRAY_TABLES = ('projects', 'users')


def compare_answers(ours, up, uuid_map, judge=None, method='GET', uri='/'):
    """[(kind, detail)] between two compare.Answer to ``method uri``: the
    differential's own comparison (with the list rules of the route), the
    one this mode relies on."""
    return compare.differences(ours, up, uuid_map, judge, method=method,
                               uri=uri)


def _templates():
    found = []
    for template in handler.ROUTE_DECLARATIONS:
        pattern = re.sub(r'\\\{\w+\\\}', '[^/]+', re.escape(template))
        found.append((re.compile('^%s$' % pattern), template))
    return found


_TEMPLATES = _templates()


def route_of(path):
    """The route template ``path`` matches, or the path itself."""
    for regex, template in _TEMPLATES:
        if regex.match(path):
            return template
    return '(no route) %s' % path[:60]


class Pair:
    """Our service and upstream's, each on a fresh database."""

    def __init__(self, backend, upstream, our_port):
        self.backend, self.upstream = backend, upstream
        self.placement = app_fixture.PlacementApp(backend)
        self.up_url = self.server = None
        self.tables = _Tables()
        try:
            self.up_url = backend.create()
            upstream.start(self.up_url, {})
            # The same trait ids as upstream's (their numbering changes
            # from one start to the next), as the gabbi replay does;
            # then ours starts under uwsgi on that database.
            rows.copy_trait_ids(self.up_url, self.placement.db)
            self.server = live_server.UwsgiServer(self.placement.url,
                                                  our_port)
        except BaseException:
            self.close()
            raise
        self.uuid_map = compare.UuidMap()
        self.strays = set()

    def close(self):
        self.tables.close()
        if self.server is not None:
            self.server.stop()
        if self.up_url is not None:
            self.upstream.stop()
            self.backend.drop(self.up_url)
        self.placement.cleanup()

    def exchange(self, request):
        """(our compare.Answer, upstream's) for ``request``."""
        ours = _answer_or_none(lambda: self._ours(request))
        to_up = self.uuid_map.to_upstream
        body = request.body.decode('utf-8', 'surrogateescape')
        up = _answer_or_none(lambda: compare.Answer(*self.upstream.request(
            request.method, to_up(request.target()),
            [(name, live_server.wire_value(to_up(value)))
             for name, value in _wire_headers(request)],
            to_up(body).encode('utf-8', 'surrogateescape'))))
        self.uuid_map.learn(request.target() + '\n' + body, request.method,
                            ours, up)
        return ours, up

    def _ours(self, request):
        mine = live_server.send(self.server.port, request.method,
                                request.target(), request.headers,
                                request.body, host=HOST)
        return compare.Answer('%d %s' % (mine.status, mine.reason),
                              mine.headers, mine.body)

    def row_differences(self):
        """([(kind, detail)] of the tables whose rows differ, whether the
        two states diverged). Project and user rows that upstream alone
        has (a claim it refused left them) change no answer: reported
        once, then set aside, with no restart."""
        ours = rows.normalise(self.tables.read(self.placement.url))
        up = rows.normalise(self.tables.read(self.up_url),
                            self.uuid_map.to_ours)
        for table in STRAY_TABLES:
            mine = set(ours.get(table, ()))
            up[table] = [row for row in up.get(table, ())
                         if (table, row) not in self.strays or row in mine]
        found = rows.compare(ours, up)
        kinds = [('rows %s' % table, detail) for table, detail in found]
        strays = {(table, row) for table in STRAY_TABLES
                  for row in up[table] if row not in ours.get(table, ())}
        ours_only = [row for table in STRAY_TABLES
                     for row in ours.get(table, ()) if row not in up[table]]
        if found and not ours_only and all(
                table in STRAY_TABLES for table, _detail in found):
            self.strays.update(strays)
            return kinds, False
        return kinds, bool(found)

    def seed_order_judge(self, request, ours, up):
        """The seed rule for candidate and aggregate lists, or None."""
        uri = request.target()
        if not candidates.applies(request.method, uri, ours, up):
            return None

        def judge(mine, theirs):
            if candidates.AGGREGATES_RE.match(uri.split('?', 1)[0]):
                return candidates.same_aggregates(mine, theirs)
            full = None
            query = candidates.unlimited(uri)
            if query:
                to_up = self.uuid_map.to_upstream
                full = compare.Answer(*self.upstream.request(
                    'GET', to_up(query),
                    [(name, live_server.wire_value(to_up(value)))
                     for name, value in _wire_headers(request)],
                    b'')).normalised(self.uuid_map)[0]
                full = full.body
            return candidates.same(mine, theirs, full, None)
        return judge


class _Tables:
    """Every table of both databases, read with one engine per database
    kept open and the tables of db/models.py (the same as upstream's:
    test_migrations holds our models to the schema both make), where
    rows.dump reflects each database anew: 1 s a dump on a busy
    MariaDB, twice per request."""

    def __init__(self):
        self.engines = {}

    def read(self, url):
        if url not in self.engines:
            self.engines[url] = sa.create_engine(url)
        with self.engines[url].connect() as conn:
            found = {table.name: [dict(row._mapping) for row in
                                  conn.execute(sa.select(table))]
                     for table in models.metadata.sorted_tables}
            conn.rollback()
        return found

    def close(self):
        for engine in self.engines.values():
            engine.dispose()


def _answer_or_none(ask):
    """ask(), or the NO_ANSWER answer when the server hung up."""
    try:
        return ask()
    except (ConnectionError, http.client.HTTPException):
        return compare.Answer(NO_ANSWER, [], b'')


def _wire_headers(request):
    """The request's headers with the Host and Content-Length that
    live_server.send adds for ours (Upstream.request adds none)."""
    headers = [('Host', HOST)] + list(request.headers)
    if ((request.body or request.method in ('PUT', 'POST', 'PATCH'))
            and request.header('content-length') is None):
        headers.append(('Content-Length', str(len(request.body))))
    return headers


class Classes:
    """Differences by class, each with its count and shortest request."""

    def __init__(self):
        self.count = collections.Counter()
        self.example = {}

    def add(self, request, ours, up, found, allowed=()):
        """Count ``found``; ``allowed`` flags those the allowlist allows
        (their class is marked so)."""
        route = '%s %s' % (request.method, route_of(request.path))
        flags = list(allowed) + [False] * (len(found) - len(allowed))
        for (kind, _detail), is_allowed in zip(found, flags):
            if is_allowed:
                kind = '(allowed) ' + kind
            if kind == 'upstream 500':
                key = 'upstream 500 (ours %s): %s' % (ours.status[:3], route)
            elif kind == 'status':
                key = 'status ours %s, upstream %s: %s' % (
                    ours.status[:3], up.status[:3], route)
            else:
                key = '%s (%s): %s' % (kind, up.status[:3], route)
            self.count[key] += 1
            text = request.describe()
            if key not in self.example or len(text) < len(
                    self.example[key]):
                self.example[key] = text

    def write(self, out):
        out.write('\n== classes of difference\n')
        for key, count in self.count.most_common():
            out.write('%5d  %s\n       e.g. %s\n'
                      % (count, key, self.example[key][:400]))


class TimeUp(Exception):
    """The run's time (--minutes) is over."""


class Session:
    """Sends generated requests to a Pair; records what differs."""

    def __init__(self, backend, upstream, recorder, seed, our_port,
                 deadline=None):
        self.backend, self.upstream = backend, upstream
        self.recorder, self.seed, self.our_port = recorder, seed, our_port
        self.deadline = deadline
        self.known, self.world = seed_data.world(seed)
        self.classes = Classes()
        self.sent = self.upstream_500 = self.restarts = 0
        self.pair = None
        self.start()

    def start(self):
        self.pair = Pair(self.backend, self.upstream, self.our_port)
        for request in self.world:
            ours, up = self.pair.exchange(request)
            if ours.status[:1] != '2' or up.status[:1] != '2':
                raise RuntimeError('seed world request failed: %s\n'
                                   'ours %s, upstream %s' % (
                                       request.describe(), ours.status,
                                       up.status))

    def close(self):
        self.pair.close()

    def send(self, request):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeUp()
        self.sent += 1
        self.recorder.test = 'request %d' % self.sent
        try:
            self._send(request)
        except Exception:
            # A fault of this tool or of a server's process: say so, go
            # on from fresh databases.
            traceback.print_exc()
            self.classes.add(request, compare.Answer(NO_ANSWER, [], b''),
                             compare.Answer(NO_ANSWER, [], b''),
                             [('tool error', '')])
            self.restarts += 1
            self.pair.close()
            self.start()

    def _send(self, request):
        ours, up = self.pair.exchange(request)
        if up.status.startswith('500'):
            self.upstream_500 += 1
            self.classes.add(request, ours, up, [('upstream 500', '')])
            return
        found = compare_answers(ours, up, self.pair.uuid_map,
                                self.pair.seed_order_judge(request, ours,
                                                           up),
                                method=request.method,
                                uri=request.target())
        row_kinds, diverged = [], False
        if _may_have_written(request, ours, up):
            row_kinds, diverged = self.pair.row_differences()
        self.recorder.exchange(request.method, request.target()[:300],
                               ours, up, found + row_kinds)
        recorded = self.recorder.differences[
            len(self.recorder.differences) - len(found + row_kinds):]
        self.classes.add(request, ours, up, found + row_kinds,
                         [bool(diff.allowed) for diff in recorded])
        if diverged:
            self.restarts += 1
            self.pair.close()
            self.start()


def _may_have_written(request, ours, up):
    """Whether the rows may differ after this exchange: any request but
    a GET (a refused write may leave a stray row upstream)."""
    return request.method != 'GET'


def requests(known):
    """The generated-request tests' generators, one request at a time."""
    return st.one_of(document_requests.requests(known),
                     query_requests.requests(known),
                     hostile.requests(known),
                     hostile.valid_requests(known))


def run(session, count):
    """Send ``count`` generated requests (seeded) through ``session``."""
    warnings.simplefilter('ignore', hypothesis.errors.HypothesisWarning)

    @hypothesis.seed(session.seed)
    @generated_settings.settings(count, phases=[hypothesis.Phase.generate])
    @hypothesis.given(requests(session.known))
    def send(request):
        session.send(request)
    try:
        send()
    except (TimeUp, KeyboardInterrupt):
        sys.stdout.write('\nstopped after %d requests\n' % session.sent)


def main(args, recorder, out):
    """Run the generated mode; the caller reports ``recorder``."""
    from placement.testing import backends
    from tools.differential_lib import upstream as upstream_module
    recorder.file = FILE
    upstream = upstream_module.Upstream(args.port, args.tmpdir)
    upstream.stop()
    deadline = (time.monotonic() + 60 * args.minutes if args.minutes
                else None)
    session = Session(backends.BACKENDS[args.db], upstream, recorder,
                      args.seed, args.port + 1, deadline)
    try:
        run(session, args.generated)
    finally:
        session.close()
    session.classes.write(out)
    out.write('%d requests sent; %d answered 500 by upstream (not '
              'compared); %d restarts on fresh databases after rows '
              'differed\n' % (session.sent, session.upstream_500,
                              session.restarts))
