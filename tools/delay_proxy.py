#!/usr/bin/env python3
"""A TCP forwarder that delays what the client sends, for measuring what
a round trip to a database on another host costs.

``delay_proxy.py PORT TARGET_PORT DELAY_MS [SECONDS]`` listens on
127.0.0.1:PORT and forwards each connection to 127.0.0.1:TARGET_PORT;
every chunk the client sends is held DELAY_MS before it is passed on, so
each round trip (one request, one answer) takes DELAY_MS longer. Only
the connections made through it are slowed: the loopback's other
traffic (other people's tests, the other server) is not. Its own cost,
two thread hand-offs per round trip, is paid alike by every server
measured through it. It stops by itself after SECONDS (default 3,600).
"""
import socket
import sys
import threading
import time


def _pump(src, dst, delay):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if delay:
                due = time.monotonic() + delay
                while True:
                    left = due - time.monotonic()
                    if left <= 0:
                        break
                    time.sleep(left)
            dst.sendall(data)
    except OSError:
        pass
    for sock in (src, dst):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(port, target_port, delay):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('127.0.0.1', port))
    listener.listen(128)
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection(('127.0.0.1', target_port))
        for sock in (client, upstream):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_pump, args=(client, upstream, delay),
                         daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client, 0),
                         daemon=True).start()


def main():
    port, target_port = int(sys.argv[1]), int(sys.argv[2])
    delay = float(sys.argv[3]) / 1000
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3600
    threading.Thread(target=serve, args=(port, target_port, delay),
                     daemon=True).start()
    time.sleep(seconds)


if __name__ == '__main__':
    main()
