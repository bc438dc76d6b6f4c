"""An event-driven HTTP/1.1 client: one process, one thread, asyncio,
kept-alive connections (the load generator of ``tools/nova_fleet``).

A thread per request (benchlib.fleet) costs the generator more CPU than
the server it measures spends on a small read; here a request is some
bytes written to a kept-alive socket and a header block parsed.
Loopback only: ``Pool`` refuses any host but 127.0.0.1.
"""
import asyncio
import urllib.parse

import orjson

HEADERS = (b'x-auth-token: admin\r\naccept: application/json\r\n')


class HTTPError(Exception):
    def __init__(self, status, body):
        super().__init__('%d %s' % (status, body[:120]))
        self.status, self.body = status, body


class Pool:
    """Up to ``size`` kept-alive connections to one server; a request
    waits for a free one (that wait is part of its latency)."""

    def __init__(self, url, size):
        parts = urllib.parse.urlsplit(url)
        if parts.hostname != '127.0.0.1':
            raise ValueError('loopback only: %s' % url)
        self.host, self.port = parts.hostname, parts.port
        self.free = asyncio.Queue()
        for _ in range(size):
            self.free.put_nowait(None)  # a slot without a connection yet

    async def request(self, method, path, body=None, version='1.39'):
        """(status, body bytes) of one request."""
        conn = await self.free.get()
        try:
            reused = conn is not None
            if conn is None:
                conn = await asyncio.open_connection(self.host, self.port)
            try:
                status, data, keep = await _exchange(
                    conn, method, path, body, version, self.host)
            except asyncio.IncompleteReadError as exc:
                if not reused or exc.partial:
                    raise
                # The server closed the idle kept-alive connection before
                # reading this request: send it again on a new one.
                conn[1].close()
                conn = await asyncio.open_connection(self.host, self.port)
                status, data, keep = await _exchange(
                    conn, method, path, body, version, self.host)
            if not keep:
                conn[1].close()
                conn = None
            return status, data
        except (OSError, asyncio.IncompleteReadError, ValueError):
            if conn is not None:
                conn[1].close()
            conn = None
            raise
        finally:
            self.free.put_nowait(conn)

    async def json(self, method, path, body=None, version='1.39',
                   expect=(200, 201, 204)):
        status, data = await self.request(method, path, body, version)
        if status not in expect:
            raise HTTPError(status, data)
        return orjson.loads(data) if data else None

    async def close(self):
        while not self.free.empty():
            conn = self.free.get_nowait()
            if conn is not None:
                conn[1].close()


async def _exchange(conn, method, path, body, version, host):
    reader, writer = conn
    payload = orjson.dumps(body) if body is not None else b''
    head = [b'%s %s HTTP/1.1\r\nhost: %s\r\n' % (
        method.encode(), path.encode(), host.encode()), HEADERS]
    if version:
        head.append(b'openstack-api-version: placement %s\r\n'
                    % version.encode())
    if payload or method in ('PUT', 'POST'):
        head.append(b'content-type: application/json\r\n'
                    b'content-length: %d\r\n' % len(payload))
    head.append(b'\r\n')
    writer.write(b''.join(head) + payload)
    block = await reader.readuntil(b'\r\n\r\n')
    lines = block.split(b'\r\n')
    status = int(lines[0].split(None, 2)[1])
    length, chunked = None, False
    keep = not lines[0].startswith(b'HTTP/1.0')
    for line in lines[1:]:
        name, _, value = line.partition(b':')
        name = name.strip().lower()
        if name == b'content-length':
            length = int(value)
        elif name == b'transfer-encoding':
            chunked = b'chunked' in value.lower()
        elif name == b'connection':
            keep = value.strip().lower() != b'close'
    if chunked:
        data = await _chunks(reader)
    elif length is not None:
        data = await reader.readexactly(length)
    elif status in (204, 304) or method == 'HEAD':
        data = b''
    else:  # the body runs to the end of the connection
        data, keep = await reader.read(), False
    return status, data, keep


async def _chunks(reader):
    parts = []
    while True:
        size = int((await reader.readuntil(b'\r\n')).split(b';')[0], 16)
        if size == 0:
            await reader.readuntil(b'\r\n')
            return b''.join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
