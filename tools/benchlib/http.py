"""HTTP clients for the benchmarks: a new connection per request.

Two clients, each kept for the figures measured with it (a different
client would move the latencies of both servers and blur comparisons
with earlier runs):

- ``fetch`` / ``call``: http.client (the candidates, claims and CPU
  figures);
- ``exchange`` / ``request``: a plain socket that writes the request in
  one send and reads the answer up to its Content-Length (the routes and
  fleet figures). http.client spent 0.22 ms of CPU per small request and
  json.loads 2-5 ms per listing of 385-770 KB, inside the timed span and
  on the same cores as the servers.
"""
import http.client
import json
import socket
import urllib.parse

VERSION = '1.39'
HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement ' + VERSION}


def headers_at(version=None, **extra):
    """HEADERS at ``version`` (default 1.39), plus ``extra``."""
    found = dict(HEADERS, **extra)
    if version:
        found['openstack-api-version'] = 'placement ' + version
    return found


def call(url, method, path, body=None, headers=None, timeout=120):
    """(status, body bytes) through http.client, on a new connection."""
    parsed = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port or 80,
                                      timeout=timeout)
    payload = json.dumps(body) if body is not None else None
    try:
        conn.request(method, parsed.path.rstrip('/') + path, body=payload,
                     headers=headers or HEADERS)
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    return resp.status, data


def fetch(url, path, headers=None):
    """GET ``path``: the body, raising on an error status.

    http.client rather than requests: a requests.get builds a Session and
    its adapters every time, about half a millisecond of the client's own
    Python per request (GET /: 0.93 ms against 0.43 ms).
    """
    status, body = call(url, 'GET', path,
                        headers=headers or headers_at(connection='close'))
    if status >= 400:
        raise RuntimeError('GET %s: %d %s' % (path, status, body[:200]))
    return body


def call_json(url, method, path, body=None, version=None):
    """(status, parsed body or None) through http.client."""
    status, data = call(url, method, path, body, headers_at(version))
    text = data.decode('utf-8')
    return status, json.loads(text) if text else None


def request(url, method, path, body=None, version=None, parse=True):
    """(status, parsed body or None) over a plain socket; raises on an
    error status. ``parse`` False leaves the body unparsed (parsing 770
    KB costs this client as much CPU as the server spends)."""
    status, data = exchange(url, method, path, body, version)
    if status >= 400:
        raise RuntimeError('%s %s: %d %s' % (method, path, status,
                                             data[:300]))
    return status, json.loads(data) if data and parse else None


def exchange(url, method, path, body=None, version=None):
    """(status, body bytes): one HTTP/1.1 request written in one send,
    the answer read up to its Content-Length (or to the server's close
    when it gives none)."""
    parsed = urllib.parse.urlsplit(url)
    host, port = parsed.hostname, parsed.port or 80
    payload = b'' if body is None else json.dumps(body).encode()
    head = ''.join('%s: %s\r\n' % item
                   for item in headers_at(version).items())
    if body is not None or method in ('POST', 'PUT'):
        head += 'content-length: %d\r\n' % len(payload)
    message = ('%s %s HTTP/1.1\r\nhost: %s:%d\r\n%s\r\n' % (
        method, parsed.path + path, host, port, head)).encode('latin-1')
    with socket.create_connection((host, port), timeout=120) as sock:
        sock.sendall(message + payload)
        return _read_answer(sock)


def _read_answer(sock):
    data = bytearray()
    while b'\r\n\r\n' not in data:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError('no HTTP answer: %r' % bytes(data[:200]))
        data += chunk
    end = data.index(b'\r\n\r\n') + 4
    status, length = int(data[9:12]), _content_length(bytes(data[:end]))
    if length is None:  # to the close
        while chunk:
            chunk = sock.recv(1 << 20)
            data += chunk
        return status, bytes(data[end:])
    body = bytearray(length)
    got = len(data) - end
    body[:got] = data[end:]
    view = memoryview(body)
    while got < length:
        count = sock.recv_into(view[got:])
        if not count:
            raise RuntimeError('answer cut at %d of %d bytes' % (got, length))
        got += count
    return status, body


def _content_length(head):
    for line in head.split(b'\r\n')[1:]:
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return int(value)
    return None
