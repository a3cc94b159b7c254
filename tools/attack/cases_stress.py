"""Stalls and floods (Protocol.md §5, §6, §7, §11): a peer that stops halfway, one that asks
faster than the rules allow. The lists that run them stay in cases.py."""
import os
import socket
import struct
import threading
import time

import wire as w
from wire import Conn, Peer
from common import HOST, check, honest_game, invited_game, ready_peer, until


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
