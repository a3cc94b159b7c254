"""Attack cases. Each takes the Targets, is bounded in time and count, and raises AssertionError
(or TimeoutError) when the daemon's answer is not what Protocol.md says; it returns a short
detail string when it passes."""
import os
import struct

import wire as w
from wire import Peer, Game, Conn

from common import HOST, blunder, check, honest_game, invited_game, ready_peer, until  # noqa: F401 (used by cases_*.py)
# Stalls and floods live in cases_stress.py; the lists below run them in their order.
from cases_stress import (flood_announces, flood_connections, flood_invites, flood_pings, flood_queries,
                          flood_spheres, stall_half_frame, stall_no_move, stall_no_pong, stall_no_proof,
                          stall_no_reveal, stall_no_roll_ack)
# Races (crossing frames) live in cases_races.py, and the wrong-state messages too.
from cases_races import (cancel_crossing_accept, cancel_crossing_accept_player, invite_crossing_invite,
                         leave_mid_roll, resign_crossing_win, wrong_state_messages)


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
SERIAL.append(wrong_state_messages)
