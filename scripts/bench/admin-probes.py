#!/usr/bin/env python3
"""How a node's HTTP endpoint answers its probes under a load of half-sent requests.

usage: scripts/bench/admin-probes.py ADMIN_PORT [SECONDS]

Two phases against http://127.0.0.1:ADMIN_PORT:
  1. 70 connections each send "GET /alive HTTP/1.1\\r\\nHost: x\\r\\n" without the final blank line
     and stay open; then one /alive and one /status are timed.
  2. For SECONDS (default 36): every 3 s, 100 new such connections; between them, one /alive and
     one /status probe with a 1 s timeout. Prints each probe's time and, at the end, how many of the
     probes failed or took 1 s or more.
"""
import socket
import sys
import time

port = int(sys.argv[1])
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 36.0
HALF = b"GET /alive HTTP/1.1\r\nHost: x\r\n"


def half_sent(n, held):
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(HALF)
            held.append(s)
        except OSError:
            pass


def probe(path, timeout=1.0):
    """Seconds to a complete answer and its status code; (None, error) on failure or timeout."""
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(max(0.001, timeout - (time.monotonic() - t0)))
            s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
            data = b""
            while True:
                s.settimeout(max(0.001, timeout - (time.monotonic() - t0)))
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        code = int(data.split(b" ", 2)[1])
        return time.monotonic() - t0, code
    except (OSError, ValueError, IndexError) as e:
        return None, type(e).__name__


held = []
half_sent(70, held)
for path in ("/alive", "/status"):
    t, code = probe(path, timeout=30.0)
    print("70 half-sent open: %-7s %s" % (path, "%.3f s, %s" % (t, code) if t is not None else code))

slow = 0
total = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    half_sent(100, held)
    for path in ("/alive", "/status"):
        t, code = probe(path)
        total += 1
        ok = t is not None and t < 1.0 and code == 200
        slow += 0 if ok else 1
        print("%4d half-sent sent: %-7s %s" % (len(held), path, "%.3f s, %s" % (t, code) if t is not None else "failed (%s)" % code))
    time.sleep(3.0)
for s in held:
    s.close()
print("probes failed or >= 1 s: %d of %d" % (slow, total))
