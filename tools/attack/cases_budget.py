"""The handshake budget (Protocol.md §5): each handshake costs the daemon a key agreement, a
signature and a verification, so links it accepts from one source address may start at most 32
a second (one more is ERROR busy before anything is signed). The shared targets lift it (every
case comes from 127.0.0.1); this case starts a bot of its own with the default."""
import os
import shutil
import tempfile
import time

from common import HOST
from targets import Process, free_port, wait_listening
import wire as w
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




def new_players_from_one_host_are_budgeted(t, n=25, per_hour=20):
    """Each game with an identity the history has never seen stays in it for good, so a bot
    takes on at most 20 new players an hour from one address: throwaway ids from one host are
    declined busy past that, while another address is still played."""
    port = free_port()
    state = tempfile.mkdtemp(prefix="tictac-guarded-")  # a history of its own: the bound is on it
    guarded = Process([t.tictac, "bot", "--name", "guarded", "--port", str(port), "--json", "--no-dnssd", "--no-broadcast",
                       "--max-handshakes-per-address", "0", "--state-dir", state])
    try:
        if not wait_listening(port, timeout=30):  # a fresh key and history, a debug build, a loaded host
            raise AssertionError("the guarded bot did not start listening (exit status %s)" % guarded.proc.poll())

        def invites(source):
            p = Peer(HOST, port, source=source).handshake()  # a fresh identity each time
            try:
                gid = os.urandom(16)
                p.send(w.invite(gid))
                while True:
                    f = p.next(5)
                    if f is None:
                        raise AssertionError("closed before answering the INVITE")
                    if f.type in (w.ACCEPT, w.DECLINE) and f.fields[1] == gid:
                        return f.type == w.ACCEPT
            finally:
                p.send(w.leave())
                p.close()
        played = sum(invites("127.0.0.7") for _ in range(n))
        if played != per_hour:
            raise AssertionError("%d new players from one address: %d played (want %d)" % (n, played, per_hour))
        if not invites("127.0.0.8"):
            raise AssertionError("a new player from another address was declined")
        return "%d new ids from one address: %d played, %d declined busy; another address played" % (
            n, played, n - played)
    finally:
        guarded.stop()
        shutil.rmtree(state, ignore_errors=True)


SERIAL = [handshake_flood_is_budgeted, new_players_from_one_host_are_budgeted]
