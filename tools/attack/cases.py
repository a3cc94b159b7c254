"""Attack cases. Each takes the Targets, is bounded in time and count, and raises AssertionError
(or TimeoutError) when the daemon's answer is not what Protocol.md says; it returns a short
detail string when it passes."""
import os
import socket
import struct
import threading
import time

import wire as w
from wire import Peer, Game, Conn

HOST = "127.0.0.1"


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


# --- interoperability -------------------------------------------------------------------------

def honest_3x3(t):
    return honest_game(t.bot_port)


def honest_non_square(t):
    return honest_game(t.bot_port, 3, 5, 4)


def versions_1_to_2(t):
    p = Peer(HOST, t.bot_port, lo=1, hi=2).handshake()
    check(p.version == 1, "negotiated %d" % p.version)
    gid = os.urandom(16)
    p.send(w.invite(gid))
    p.expect(w.ACCEPT)
    p.close()
    return "HELLO 1..2 negotiates 1; INVITE accepted"


def honest_vs_player(t):
    """A full game against `tictac play`, its moves typed on stdin."""
    p = ready_peer(t.play_port)
    gid = os.urandom(16)
    t.play.drain()
    p.send(w.invite(gid))
    e = t.play.wait_event(lambda e: e.get("event") == "invited")
    check(e is not None, "no invited event")
    t.play.command("accept")
    p.expect(w.ACCEPT)
    g = Game(p)
    g.start()
    g.roll()
    turn = g.first
    while g.winner() is None:
        if turn:
            cell = g.board.index(None)
            g.board[cell] = g.me
            p.send(w.move(cell))
        else:
            # The human: the first empty cell, typed 1-based, once play says it is its turn.
            e = t.play.wait_event(lambda e: e.get("event") == "your-turn", 5)
            check(e is not None, "play never said your-turn")
            t.play.command("move %d" % (g.board.index(None) + 1))
            f = p.expect(w.MOVE, 5)
            check(g.board[f.int(1)] is None, "play sent taken cell %d" % f.int(1))
            g.board[f.int(1)] = g.them
        turn = not turn
    result = {"draw": "draw", g.me: "won", g.them: "lost"}[g.winner()]
    over = t.play.wait_event(lambda e: e.get("event") == "game-over", 5)
    p.send(w.leave())
    p.close()
    check(over is not None, "tictac play showed no game-over")
    mirror = {"won": "lost", "lost": "won", "draw": "draw"}[result]
    check(over["result"] == mirror, "play says %s, we say %s" % (over["result"], result))
    return "we %s, play says %s" % (result, over["result"])


# --- lies -------------------------------------------------------------------------------------

def hello_wrong_id(t):
    me, other = w.Identity(), w.Identity()
    c = Conn(HOST, t.bot_port)
    c.send(w.hello(me, claimed_id=other.id, nonce=os.urandom(16)))
    c.expect_error("bad-identity")
    return "ERROR bad-identity, closed"


def proof_replayed(t):
    me = w.Identity()
    p1 = Peer(HOST, t.bot_port, ident=me).handshake()
    recorded = [f for f in p1.conn.log if f.type == w.HELLO]
    sig = me.sign(w.transcript(1, me.id, p1.nonce, p1.peer_id, p1.peer_nonce))
    p1.close()
    # The same HELLO (same nonce) and the same PROOF on a new connection: the daemon's nonce is new.
    c = Conn(HOST, t.bot_port)
    c.send(w.hello(me, nonce=p1.nonce))
    c.expect(w.HELLO)
    c.send(w.proof(sig))
    c.expect_error("bad-identity")
    return "recorded PROOF refused: bad-identity" + ("" if recorded else "?")


def proof_reflected(t):
    """The daemon's own PROOF sent back to it (we claim its id and key)."""
    c = Conn(HOST, t.bot_port)
    victim = ready_peer(t.bot_port)
    c.send(w.hello(w.Identity(), claimed_id=victim.peer_id, public=victim.peer_key, nonce=os.urandom(16)))
    f = c.next(3)
    while f is not None and f.type == w.HELLO:
        f = c.next(3)
    victim.close()
    # Claiming the daemon's own id is a connection to itself: unexpected-message (§4).
    check(f is not None and f.type == w.ERROR and f.error_name() == "unexpected-message", "got %r" % f)
    return "HELLO with the daemon's own id: unexpected-message"


def versions_not_spoken(t):
    c = Conn(HOST, t.bot_port)
    c.send(w.hello(w.Identity(), lo=3, hi=4, nonce=os.urandom(16)))
    f = c.expect_error("unsupported-version")
    return "HELLO 3..4: unsupported-version (ERROR header version %d)" % f.version


def later_frame_wrong_version(t):
    p = Peer(HOST, t.bot_port, lo=1, hi=1).handshake()
    p.send(w.frame(w.PING, w.tlv((1, w.u64(7))), version=2))
    p.expect_error("unsupported-version")
    return "PING in version 2 on a version-1 link: unsupported-version"


def roll_does_not_open(t):
    p, g = invited_game(t.bot_port)
    until(p, w.ROLL_COMMIT)
    p.send(w.roll((g.mine.value + 1) % w.MAX_ROLL, g.mine.nonce))
    p.expect_error("commitment-mismatch")
    return "commitment-mismatch"


def commit_copied(t):
    p = ready_peer(t.bot_port)
    p.send(w.invite(os.urandom(16)))
    p.expect(w.ACCEPT)
    theirs = until(p, w.ROLL_COMMIT).fields[1]
    p.send(w.reset() + w.roll_commit(theirs))
    f = p.next(3)
    while f is not None and f.type == w.ROLL:
        raise AssertionError("the daemon revealed its ROLL to a copied commitment")
    check(f is not None and f.type == w.ERROR and f.error_name() == "commitment-mismatch", "got %r" % f)
    return "copied commitment: commitment-mismatch before any ROLL"


def roll_ack_wrong(t):
    p, g = invited_game(t.bot_port)
    until(p, w.ROLL_COMMIT)
    p.send(w.roll(g.mine.value, g.mine.nonce))
    r = until(p, w.ROLL)
    p.send(w.roll_ack((r.int(1) + 1) % w.MAX_ROLL))
    p.expect_error("roll-mismatch")
    return "roll-mismatch"


def roll_out_of_range(t):
    p, g = invited_game(t.bot_port)
    until(p, w.ROLL_COMMIT)
    p.send(w.frame(w.ROLL, w.tlv((1, w.u32(1_000_000)), (2, g.mine.nonce))))
    p.expect_error("malformed")
    return "ROLL of 1,000,000: malformed"


def move_before_decision(t):
    p, g = invited_game(t.bot_port)
    p.send(w.move(4))
    p.expect_error("illegal-move")
    return "MOVE during the roll: illegal-move"


def move_off_board(t):
    out = []
    for cell in (9, 65535):
        p, g = invited_game(t.bot_port)
        g.roll()
        if not g.first:
            f = p.expect(w.MOVE, 5)
            g.board[f.int(1)] = g.them
        p.send(w.move(cell))
        p.expect_error("illegal-move")
        out.append(str(cell))
    return "cells %s on 3x3: illegal-move" % ",".join(out)


def move_on_taken(t):
    p, g = invited_game(t.bot_port)
    g.roll()
    if g.first:
        p.send(w.move(0))
        g.board[0] = g.me
    f = p.expect(w.MOVE, 5)
    p.send(w.move(f.int(1)))
    p.expect_error("illegal-move")
    return "the bot's cell %d again: illegal-move" % f.int(1)


def move_out_of_turn(t):
    """Against `tictac play`: its human never moves unless told, so its turn lasts."""
    p = ready_peer(t.play_port)
    t.play.drain()
    p.send(w.invite(os.urandom(16)))
    check(t.play.wait_event(lambda e: e.get("event") == "invited") is not None, "no invited event")
    t.play.command("accept")
    p.expect(w.ACCEPT)
    g = Game(p)
    g.start()
    g.roll()
    if g.first:
        p.send(w.move(0))
    p.send(w.move(4))  # the human's turn
    p.expect_error("illegal-move")
    e = t.play.wait_event(lambda e: e.get("event") in ("disconnected", "error"), 3)
    return "illegal-move; play shows %s" % (e and e["event"])


def datagram_type_on_tcp(t):
    p = ready_peer(t.bot_port)
    p.send(w.announce(p.ident.id, "x", 1))
    p.expect_error("unexpected-message")
    return "ANNOUNCE on TCP: unexpected-message"


def unknown_type(t):
    p = ready_peer(t.bot_port)
    p.send(w.frame(0x2e, b"") )
    p.expect_error("unknown-type")
    return "type 0x2e: unknown-type"


def ignorable_after_ready(t):
    p = ready_peer(t.bot_port)
    p.send(w.frame(0x2e, b"\x01\x00\x00", flags=w.IGNORABLE) + w.ping(99))
    f = p.conn.next(3, skip=(w.PING,))
    check(f is not None and f.type == w.PONG and f.int(1) == 99, "got %r" % f)
    return "skipped; the PING behind it answered"


def ignorable_before_hello(t):
    c = Conn(HOST, t.bot_port)
    c.send(w.frame(0x2e, b"", flags=w.IGNORABLE))
    c.expect_error("unexpected-message")
    return "IGNORABLE frame before HELLO: unexpected-message (§4)"


def message_before_proof(t):
    c = Conn(HOST, t.bot_port)
    me = w.Identity()
    c.send(w.hello(me, nonce=os.urandom(16)))
    c.expect(w.HELLO)
    c.send(w.invite(os.urandom(16)))
    c.expect_error("unexpected-message")
    return "INVITE before PROOF: unexpected-message"


def bad_magic_and_size(t):
    c = Conn(HOST, t.bot_port)
    c.send(b"XXXX" + bytes(8))
    c.expect_error("bad-magic")
    c = Conn(HOST, t.bot_port)
    c.send(w.MAGIC + b"\x01\x01\x00\x00" + struct.pack(">I", 16385))
    c.expect_error("frame-too-large")
    return "bad-magic; frame-too-large with no payload sent"


def invite_sizes(t):
    p = ready_peer(t.bot_port)
    out = []
    for rows, cols, k in ((2, 3, 3), (21, 3, 3), (3, 3, 4)):
        gid = os.urandom(16)
        p.send(w.invite(gid, rows, cols, k))
        f = p.expect(w.DECLINE)
        check(f.fields[1] == gid and f.int(2) == 3, "got %r" % f)
        out.append("%dx%d k%d" % (rows, cols, k))
    p.send(w.invite(os.urandom(16), 0, 3, 3))
    p.expect_error("malformed")
    return "DECLINE unsupported for %s; rows 0 malformed" % ", ".join(out)


def peer_error(t):
    """A peer's ERROR: tictac play shows it and closes, sending nothing back (§5)."""
    p = ready_peer(t.play_port)
    t.play.drain()
    p.send(w.error("internal-error", "attacker gives up"))
    check(p.conn.wait_closed(3), "the connection stayed open")
    extra = [f for f in p.conn.log if f.type == w.ERROR]
    check(not extra, "play answered an ERROR with %r" % extra)
    e = t.play.wait_event(lambda e: e.get("event") == "error", 3)
    check(e is not None and e.get("code") == "internal-error", "play showed %r" % e)
    return "play showed %s %r and closed" % (e["code"], e.get("message"))


# --- stalls -------------------------------------------------------------------------------------

def _time_to_error(c, code, lo, hi):
    t0 = time.monotonic()
    c.expect_error(code, timeout=hi + 2)
    dt = time.monotonic() - t0
    check(lo <= dt <= hi, "%s after %.1f s, not %g..%g" % (code, dt, lo, hi))
    return dt


def stall_half_frame(t):
    c = Conn(HOST, t.bot_port)
    c.send(w.MAGIC + b"\x01\x01")
    return "ERROR timeout after %.1f s" % _time_to_error(c, "timeout", 4.5, 7)


def stall_no_proof(t):
    c = Conn(HOST, t.bot_port)
    c.send(w.hello(w.Identity(), nonce=os.urandom(16)))
    c.expect(w.HELLO)
    return "ERROR timeout after %.1f s" % _time_to_error(c, "timeout", 4, 7)


def stall_no_pong(t):
    p = Peer(HOST, t.bot_port, answer_pings=False).handshake()
    t0 = time.monotonic()
    p.expect_error("timeout", 9)
    dt = time.monotonic() - t0
    pings = sum(1 for f in p.conn.log if f.type == w.PING)
    check(4 <= dt <= 7.5, "timeout after %.1f s" % dt)
    check(pings >= 2, "only %d PINGs in the silence" % pings)
    return "%d PINGs, ERROR timeout after %.1f s" % (pings, dt)


def stall_no_reveal(t):
    p, g = invited_game(t.bot_port)
    until(p, w.ROLL_COMMIT)
    return "forfeit: ERROR timeout after %.1f s" % _time_to_error(p.conn, "timeout", 7, 10)


def stall_no_roll_ack(t):
    p, g = invited_game(t.bot_port)
    until(p, w.ROLL_COMMIT)
    p.send(w.roll(g.mine.value, g.mine.nonce))
    until(p, w.ROLL)
    return "forfeit: ERROR timeout after %.1f s" % _time_to_error(p.conn, "timeout", 6.5, 10)


def stall_no_move(t):
    p, g = invited_game(t.bot_port, move_time=5)
    g.roll()
    if not g.first:
        p.expect(w.MOVE, 5)
    # our clock is 5 s; the bot allows 10 s of grace
    return "ERROR timeout after %.1f s" % _time_to_error(p.conn, "timeout", 14, 17.5)


# --- floods -------------------------------------------------------------------------------------

def flood_pings(t, n=2000):
    # §6: a PING needs a second of silence; past 8 in one second the receiver MAY close. The
    # daemon answers the first 8, in order, then sends ERROR unexpected-message and closes.
    p = Peer(HOST, t.bot_port, answer_pings=True).handshake()
    p.send(b"".join(w.ping(i) for i in range(n)))
    got = []
    while True:
        f = p.conn.next(10, skip=(w.PING,))
        check(f is not None, "closed after %d PONGs without ERROR" % len(got))
        if f.type != w.PONG:
            break
        got.append(f.int(1))
    check(got == list(range(8)), "PONGs before the ERROR: %s" % got)
    check(f.type == w.ERROR and f.error_name() == "unexpected-message", "got %r" % f)
    check(p.conn.closed.wait(6), "ERROR but the connection stayed open")
    return "%d PINGs: %d PONGs in order, then ERROR unexpected-message" % (n, len(got))


def flood_invites(t, n=200):
    p, g = invited_game(t.bot_port)
    g.roll()
    ids = [os.urandom(16) for _ in range(n)]
    p.send(b"".join(w.invite(i) for i in ids))
    declined = []
    # The DECLINEs come in the middle of game frames; a Game would refuse them, so collect here.
    result = None
    turn = g.first
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (len(declined) < n or result is None):
        if turn and result is None:
            cell = g.board.index(None)
            g.board[cell] = g.me
            p.send(w.move(cell))
            turn = False
        else:
            f = p.next(5)
            check(f is not None, "closed")
            if f.type == w.DECLINE:
                check(f.int(2) == 1, "DECLINE reason %d" % f.int(2))
                declined.append(f.fields[1])
                continue
            check(f.type == w.MOVE, "got %r" % f)
            g.board[f.int(1)] = g.them
            turn = True
        if result is None and g.winner():
            result = g.winner()
    check(sorted(declined) == sorted(ids), "%d of %d declined busy" % (len(declined), n))
    check(result is not None, "the game did not finish")
    return "%d INVITEs declined busy; the game still ended (%s)" % (n, result)


def flood_connections(t, n=64, per_address=32):
    """Idle connections from one address (127.0.0.2): at most the per-address share get HELLO,
    the rest ERROR busy before HELLO (§5); an honest player from another address still plays."""
    conns = [Conn(HOST, t.bot_port, source="127.0.0.2") for _ in range(n)]
    hellos = busy = 0
    for c in conns:
        f = c.next(3.0)
        if f is not None and f.type == w.HELLO:
            hellos += 1
        elif f is not None and f.type == w.ERROR and f.error_name() == "busy":
            busy += 1
    if hellos > per_address or hellos + busy != n:
        raise AssertionError("%d HELLO and %d busy of %d connections from one address" % (hellos, busy, n))
    detail = honest_game(t.bot_port)
    for c in conns:
        c.close()
    return "%d idle connections from one address: %d HELLO, %d busy; honest game: %s" % (n, hellos, busy, detail)


def _udp_sender():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    return s


def flood_announces(t, n=400):
    """ANNOUNCEs of many forged ids from one address: the player sees at most its rate limit
    (§7: ours 20 per second, bursts of 40) and still answers."""
    t.play.drain()
    # Every datagram from this address counts (§7): the QUERY flood just before this drained the
    # bucket, and whether a token had come back when these arrived decided whether any was shown
    # (0 or 1, run to run). A full bucket first: 40 at 20 a second.
    time.sleep(2.5)
    s = _udp_sender()
    s.bind(("127.0.0.3", 0))  # a host of its own: its forged ids fill that address's share only (§7)
    t0 = time.monotonic()
    for i in range(n):
        s.sendto(w.announce(os.urandom(16), "forged%d" % i, 40000 + i), ("127.255.255.255", t.discovery_port))
    elapsed = time.monotonic() - t0
    time.sleep(1.0)
    found = 0
    while True:
        e = t.play.wait_event(lambda e: e.get("event") == "peer-found", 0.2)
        if e is None:
            break
        found += 1
    bound = 40 + 20 * (elapsed + 1.2) + 5
    check(found <= bound, "%d forged peers shown (bound %d)" % (found, bound))
    check(found >= 1, "no forged peer shown at all: is discovery on?")
    t.play.command("peers")
    e = t.play.wait_event(lambda e: e.get("event") == "peers", 3)
    check(e is not None, "play did not answer `peers`")
    return "%d forged ANNOUNCEs in %.2f s: %d shown; play still answers" % (n, elapsed, found)


def flood_queries(t, seconds=2.0):
    """QUERYs at 200 per second: the bot's ANNOUNCEs stay at one per 250 ms at most (§7)."""
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    r.bind(("0.0.0.0", t.discovery_port))
    r.settimeout(0.01)
    s = _udp_sender()
    announces = []
    t0 = time.monotonic()
    next_send = t0
    while time.monotonic() - t0 < seconds:
        if time.monotonic() >= next_send:
            s.sendto(w.query(os.urandom(16)), ("127.255.255.255", t.discovery_port))
            next_send += 0.005
        try:
            data, src = r.recvfrom(2048)
        except socket.timeout:
            continue
        try:
            f = w.decode_datagram(data)
        except ValueError:
            continue
        if f.type == w.ANNOUNCE and f.fields.get(1) == t.bot_id:
            announces.append(time.monotonic())
    r.close()
    gaps = [b - a for a, b in zip(announces, announces[1:])]
    check(len(announces) >= 2, "only %d ANNOUNCEs from the bot: QUERYs unanswered" % len(announces))
    check(min(gaps) >= 0.24, "ANNOUNCEs %.3f s apart" % min(gaps))
    return "%d ANNOUNCEs in %.1f s, smallest gap %.3f s" % (len(announces), seconds, min(gaps))


def flood_spheres(t, n=300):
    """SPHEREs naming forged ids: none shown. The control: one participant we announce (field
    capability, our field port) is shown, so the check can fail."""
    t.spheres.drain()
    field = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    field.bind(("127.0.0.1", 0))
    fport = field.getsockname()[1]
    for i in range(n):
        field.sendto(w.sphere(os.urandom(16), 1, i % 1000, 500), ("127.0.0.1", t.spheres_field_port))
    time.sleep(0.5)
    forged = t.spheres.wait_event(lambda e: e.get("event") == "sphere" and e.get("id") != t.spheres_id, 0.5)
    check(forged is None, "a forged sphere is shown: %r" % forged)
    me = os.urandom(16)
    s = _udp_sender()
    s.sendto(w.announce(me, "real", 40000, caps=2, field_port=fport), ("127.255.255.255", t.discovery_port))
    time.sleep(0.3)
    field.sendto(w.sphere(me, 1, 123, 456, name="real"), ("127.0.0.1", t.spheres_field_port))
    shown = t.spheres.wait_event(lambda e: e.get("event") == "sphere" and e.get("id") == me.hex(), 3)
    field.close()
    check(shown is not None and shown["x"] == 123 and shown["y"] == 456, "announced sphere not shown: %r" % shown)
    return "%d forged SPHEREs: none shown; an announced one is" % n


# --- races --------------------------------------------------------------------------------------

def cancel_crossing_accept(t):
    """INVITE then CANCEL back to back: the bot accepts at once, so the CANCEL meets a running
    game and ends it (§6 CANCEL); the link stays and a new invitation plays."""
    p = ready_peer(t.bot_port)
    gid = os.urandom(16)
    p.send(w.invite(gid) + w.cancel(gid))
    p.expect(w.ACCEPT)
    time.sleep(0.3)
    check(not p.conn.closed.is_set(), "the bot closed the link")
    gid2 = os.urandom(16)
    p.send(w.invite(gid2))
    deadline = time.monotonic() + 3
    while True:
        f = p.next(max(0.01, deadline - time.monotonic()))
        check(f is not None and f.type != w.ERROR, "got %r" % f)
        if f.type == w.ACCEPT and f.fields[1] == gid2:
            break
        check(f.type in (w.RESET, w.ROLL_COMMIT), "stale %r" % f)
    # Frames of the new game follow; play it out to show the link is sound.
    g = Game(p)
    g.start()
    g.roll()
    return "game cancelled; next invitation played: %s" % g.play()


def cancel_crossing_accept_player(t):
    """Against play: the CANCEL arrives after play sent ACCEPT (it crossed it)."""
    p = ready_peer(t.play_port)
    t.play.drain()
    gid = os.urandom(16)
    p.send(w.invite(gid))
    check(t.play.wait_event(lambda e: e.get("event") == "invited") is not None, "no invited event")
    t.play.command("accept")
    p.expect(w.ACCEPT)
    p.send(w.cancel(gid))
    e = t.play.wait_event(lambda e: e.get("event") in ("match-ended", "disconnected", "error"), 3)
    check(e is not None and e["event"] == "match-ended", "play shows %r" % e)
    p.send(w.invite(os.urandom(16)))
    e = t.play.wait_event(lambda e: e.get("event") == "invited", 3)
    check(e is not None, "a new invitation on the same link is not shown")
    t.play.command("decline")
    until(p, w.DECLINE)
    p.send(w.leave())
    return "play: match-ended, then a new invitation shown"


def invite_crossing_invite(t):
    """play invites us and we invite it before answering: the lower instance id's stands."""
    out = []
    for lower in (True, False):
        while True:
            ident = w.Identity()
            if (ident.id < t.play_id) == lower:
                break
        p = ready_peer(t.play_port, ident=ident)
        t.play.drain()
        t.play.command("invite %s" % ident.id.hex())
        theirs = until(p, w.INVITE).fields[1]
        ours = os.urandom(16)
        p.send(w.invite(ours))
        if lower:
            a = until(p, w.ACCEPT)
            check(a.fields[1] == ours, "play accepted another game")
        else:
            p.send(w.accept(theirs))  # our side drops ours and accepts theirs
        g = Game(p)  # play shows game-started once the roll decides (§8)
        g.start()
        g.roll()
        e = t.play.wait_event(lambda e: e.get("event") in ("game-started", "error", "disconnected", "invited"), 8)
        check(e is not None and e["event"] == "game-started",
              "play shows %r; last events %r" % (e, t.play.all[-4:]))
        # play must not have answered our INVITE when its own stands
        if not lower:
            time.sleep(0.2)
            answers = [f for f in p.conn.log if f.type in (w.ACCEPT, w.DECLINE)]
            check(not answers, "play answered the dropped INVITE: %r" % answers)
        p.send(w.leave())
        p.close()
        t.play.wait_event(lambda e: e.get("event") in ("disconnected", "peer-lost"), 3)
        out.append("ours %s: %s stands" % ("lower" if lower else "higher", "ours" if lower else "play's"))
    return "; ".join(out)


def resign_crossing_win(t):
    """We RESIGN after the bot's winning MOVE left it but before we 'saw' it: its result stands
    (§8 crossing table), no ERROR, and the next game starts."""
    for attempt in range(3):
        p, g = invited_game(t.bot_port)
        g.roll()
        turn = g.first
        while g.winner() is None:
            if turn:
                c = blunder(g)
                g.board[c] = g.me
                p.send(w.move(c))
            else:
                f = p.expect(w.MOVE, 5)
                g.board[f.int(1)] = g.them
            turn = not turn
        if g.winner() != g.them:
            p.send(w.leave())
            continue
        p.send(w.resign())
        f = p.next(5)  # the bot's next game: RESET after its 3 s rematch wait
        check(f is not None and f.type == w.RESET, "after the crossing RESIGN: %r" % f)
        p.send(w.leave())
        return "the bot's win stands; its next RESET came"
    raise AssertionError("the bot did not win in 3 games")


def leave_mid_roll(t):
    p, g = invited_game(t.bot_port)
    until(p, w.ROLL_COMMIT)
    p.send(w.leave())
    check(p.conn.wait_closed(3), "the bot kept the link")
    errors = [f for f in p.conn.log if f.type == w.ERROR]
    check(not errors, "the bot answered LEAVE with %r" % errors)
    return "closed without ERROR; then " + honest_game(t.bot_port)


STALLS = [stall_half_frame, stall_no_proof, stall_no_pong, stall_no_reveal, stall_no_roll_ack, stall_no_move]
SERIAL = [
    honest_3x3, honest_non_square, versions_1_to_2,
    hello_wrong_id, proof_replayed, proof_reflected, versions_not_spoken, later_frame_wrong_version,
    roll_does_not_open, commit_copied, roll_ack_wrong, roll_out_of_range, move_before_decision,
    move_off_board, move_on_taken, datagram_type_on_tcp, unknown_type, ignorable_after_ready,
    ignorable_before_hello, message_before_proof, bad_magic_and_size, invite_sizes,
    flood_pings, flood_invites, flood_connections, flood_queries,
    cancel_crossing_accept, resign_crossing_win, leave_mid_roll,
]
PLAYER = [honest_vs_player, move_out_of_turn, peer_error, cancel_crossing_accept_player,
          invite_crossing_invite, flood_announces]
FIELD = [flood_spheres]


def _after_roll(t):
    p, g = invited_game(t.bot_port)
    g.roll()
    if not g.first:
        g.board[p.expect(w.MOVE, 5).int(1)] = g.them
    return p, g  # our turn


def wrong_state_messages(t):
    """Valid messages the state does not allow (§8's tables): each its code, on a fresh game."""
    out = []

    def during_roll(frames, code, label):
        p, g = invited_game(t.bot_port)
        until(p, w.ROLL_COMMIT)
        p.send(frames(g))
        p.expect_error(code)
        out.append(label)

    during_roll(lambda g: w.resign(), "unexpected-message", "RESIGN in the roll")
    during_roll(lambda g: w.roll_commit(os.urandom(32)), "unexpected-message", "second ROLL_COMMIT")
    p = ready_peer(t.bot_port)
    p.send(w.invite(os.urandom(16)))
    p.expect(w.ACCEPT)
    p.send(w.reset() + w.roll(5, bytes(16)))
    p.expect_error("unexpected-message")
    out.append("ROLL before its ROLL_COMMIT")
    p, g = _after_roll(t)
    p.send(w.time_up())  # our turn is the bot's OpponentTurn: TIME_UP is legal there, so test in its turn
    f = p.next(3)
    check(f is not None and f.type == w.RESET, "TIME_UP in our turn: got %r" % f)
    out.append("TIME_UP in our turn ends the game")
    p, g = _after_roll(t)
    p.send(w.reset())
    p.expect_error("unexpected-message")
    out.append("RESET mid-game")
    p = ready_peer(t.bot_port)
    p.send(w.proof(bytes(64)))
    p.expect_error("unexpected-message")
    out.append("PROOF after ready")
    p = ready_peer(t.bot_port)
    p.send(w.move(0))
    p.expect_error("illegal-move")
    out.append("MOVE with no game")
    c = Conn(HOST, t.bot_port)
    c.send(w.hello(w.Identity(), lo=0, hi=1, nonce=os.urandom(16), version=1))
    c.expect_error("malformed")
    out.append("HELLO 0..1 malformed")
    return "; ".join(out)


SERIAL.append(wrong_state_messages)
