"""The helpers every attack case uses: checks, a ready peer, an invited game, an honest game."""
import os
import time

import wire as w
from wire import Peer, Game

# The daemons under attack: on loopback here, or another LAN host (tools/lan/test-hostile).
HOST = os.environ.get("TICTAC_ATTACK_HOST", "127.0.0.1")


def check(ok, why):
    if not ok:
        raise AssertionError(why)


def ready_peer(port, **kw):
    return Peer(HOST, port, **kw).handshake()


def invited_game(port, rows=3, cols=3, k=3, move_time=0, peer=None):
    """A ready link to the bot with an accepted invitation and our RESET + ROLL_COMMIT sent."""
    p = peer or ready_peer(port)
    gid = os.urandom(16)
    p.send(w.invite(gid, rows, cols, k))
    a = p.expect(w.ACCEPT)
    check(a.fields[1] == gid, "ACCEPT names another game")
    g = Game(p, rows, cols, k, move_time)
    g.start()
    return p, g


def until(p, type_, timeout=5.0):
    """Reads frames until one of `type_` (lobby and game frames in flight are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        f = p.next(max(0.01, deadline - time.monotonic()))
        if f is None:
            raise AssertionError("closed while waiting for %s" % w.NAMES[type_])
        if f.type == type_:
            return f
        if f.type == w.ERROR:
            raise AssertionError("unexpected %r" % f)


def honest_game(port, rows=3, cols=3, k=3):
    p, g = invited_game(port, rows, cols, k)
    g.roll()
    result = g.play()
    cells = "".join(c or "." for c in g.board)
    p.send(w.leave())
    p.close()
    return "%dx%d k=%d: %s first, %s, %s" % (rows, cols, k, "we" if g.first else "bot", result, cells)


def blunder(g):
    """Our worst move: never block (so the bot gets its win)."""
    empty = [i for i, v in enumerate(g.board) if v is None]
    threats = set()
    for c in empty:
        g.board[c] = g.them
        if g.winner() == g.them:
            threats.add(c)
        g.board[c] = None
    rest = [c for c in empty if c not in threats]
    return (rest or empty)[-1]
