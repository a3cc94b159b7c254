"""The handshake budget (Protocol.md §5): each handshake costs the daemon a key agreement, a
signature and a verification, so links it accepts from one source address may start at most 32
a second (one more is ERROR busy before anything is signed). The shared targets lift it (every
case comes from 127.0.0.1); this case starts a bot of its own with the default."""
import time

from common import HOST
from targets import Process, free_port, wait_listening
from wire import Peer


def handshake_flood_is_budgeted(t, n=60, per_second=32):
    port = free_port()
    guarded = Process([t.tictac, "bot", "--name", "guarded", "--port", str(port), "--json", "--no-dnssd", "--no-broadcast"])
    try:
        if not wait_listening(port):
            raise AssertionError("the guarded bot did not start listening")
        proven = busy = 0
        start = time.monotonic()
        for _ in range(n):
            p = Peer(HOST, port, source="127.0.0.9")
            try:
                p.handshake()
                proven += 1
            except AssertionError as e:
                if "busy" not in str(e):
                    raise
                busy += 1
            finally:
                p.close()
        elapsed = time.monotonic() - start
        if busy == 0 or proven > per_second * (int(elapsed) + 1):
            raise AssertionError("%d handshakes in %.2f s from one address: %d proven, %d busy" % (n, elapsed, proven, busy))
        other = Peer(HOST, port).handshake()  # another address is not held to that one's budget
        other.close()
        return "%d handshakes in %.2f s from one address: %d proven, %d busy; another address still proven" % (
            n, elapsed, proven, busy)
    finally:
        guarded.stop()


SERIAL = [handshake_flood_is_budgeted]
