"""The WSGI app gabbi talks to: ours answers, upstream is asked the same.

Each request goes to our application in-process (the app of the running
gabbi fixture) and, with our server-generated uuids rewritten into
upstream's, over HTTP to the upstream server. Gabbi gets our answer, so
its $RESPONSE and $HISTORY substitutions follow our service; both answers
are compared and the result recorded.
"""
import io
import urllib.parse

from tools.differential_lib import candidates
from tools.differential_lib import compare


class Tee:
    def __init__(self, ours_app, upstream, recorder):
        self.ours_app = ours_app
        self.upstream = upstream
        self.recorder = recorder
        self.uuid_map = compare.UuidMap()

    def __call__(self, environ, start_response):
        environ = _as_sent(environ)
        length = environ.get('CONTENT_LENGTH') or '0'
        body = environ['wsgi.input'].read(int(length)) if length != '0' \
            else b''
        ours = self._ours(environ, body)
        method = environ['REQUEST_METHOD']
        uri = _ascii(environ.get('REQUEST_URI') or _uri(environ))
        headers = list(_headers(environ))
        request_text = uri + '\n' + body.decode('utf-8', 'replace')
        up = compare.Answer(*self.upstream.request(
            method, self.uuid_map.to_upstream(uri),
            [(name, self.uuid_map.to_upstream(value))
             for name, value in headers],
            self.uuid_map.to_upstream(
                body.decode('utf-8', 'surrogateescape')).encode(
                    'utf-8', 'surrogateescape')))
        self.uuid_map.learn(request_text, method, ours, up)
        judge = None
        if candidates.applies(method, uri, ours, up):
            judge = self._seed_judge(uri, headers)
        self.recorder.exchange(method, uri, ours, up, compare.differences(
            ours, up, self.uuid_map, judge, method=method, uri=uri))
        start_response(ours.status, ours.raw_headers)
        return [ours.raw_body]

    def _seed_judge(self, uri, headers):
        """The seed rule for this candidates query (see ``candidates``),
        for the answers the contract's own comparison finds different;
        with a ``limit``, it asks upstream the query without it, and
        under a cap, upstream without the cap."""
        def judge(mine, theirs):
            cap = candidates.cap_of(self.upstream.options)
            query = candidates.unlimited(uri) or (uri if cap else None)
            if not query:
                return False
            full = self._full_answer(query, headers, cap)
            accepted = candidates.same(mine, theirs, full, cap)
            if accepted:
                self.recorder.seed_order += 1
            return accepted
        return judge

    def _full_answer(self, query, headers, cap):
        """Upstream's normalised body for ``query``, from a server
        without the cap when it has one."""
        def ask():
            return compare.Answer(*self.upstream.request(
                'GET', self.uuid_map.to_upstream(query),
                [(name, self.uuid_map.to_upstream(value))
                 for name, value in headers], b''))
        if cap is None:
            answer = ask()
        else:
            with self.upstream.without(candidates.CAP_OPTION):
                answer = ask()
        return answer.normalised(self.uuid_map)[0].body

    def _ours(self, environ, body):
        environ = dict(environ)
        environ['wsgi.input'] = io.BytesIO(body)
        captured = {}

        def start_response(status, headers, exc_info=None):
            captured['status'], captured['headers'] = status, headers
            return lambda data: None

        result = self.ours_app(environ, start_response)
        try:
            raw = b''.join(result)
        finally:
            if hasattr(result, 'close'):
                result.close()
        answer = compare.Answer(captured['status'], captured['headers'], raw)
        answer.raw_headers = captured['headers']
        answer.raw_body = raw
        return answer


def _as_sent(environ):
    """``environ`` with PATH_INFO as a server makes it of the bytes sent.

    The environ's strings are the bytes as latin-1 (PEP 3333), but httpx's
    WSGI transport decodes a path as UTF-8, with replacement characters
    (U+FFFD) for bytes that are not: those bytes are gone. The path is
    sent upstream as UTF-8, and our application gets what a server would
    make of those bytes, as upstream's does.
    """
    path = environ.get('PATH_INFO', '')
    try:
        path.encode('latin-1')
    except UnicodeEncodeError:
        environ = dict(environ, PATH_INFO=path.encode(
            'utf-8', 'surrogateescape').decode('latin-1'))
    return environ


def _ascii(uri):
    """The request target as sent on the wire: bytes beyond ASCII (a path
    that is not UTF-8) percent-encoded, as an HTTP client sends them."""
    raw = uri.encode('latin-1', 'surrogateescape')
    return urllib.parse.quote(raw, safe="/?&=%:;,+@!$'()*[]~#")


def _uri(environ):
    path = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    query = environ.get('QUERY_STRING')
    return path + ('?' + query if query else '')


def _headers(environ):
    for key, value in environ.items():
        if key.startswith('HTTP_'):
            yield key[5:].replace('_', '-').title(), value
        elif key in ('CONTENT_TYPE', 'CONTENT_LENGTH') and value:
            yield key.replace('_', '-').title(), value
