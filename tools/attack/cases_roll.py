"""Attack cases on the fair roll (Protocol.md §8): a peer that has the daemon's reveal knows who
moves first before it reveals or acknowledges. These cases quit whenever they would move second
and check that quitting then is a recorded loss, so the first move is still a fair coin."""
import os
import socket
import struct
import time

import cases
import wire as w
from cases import HOST, check, ready_peer

GAMES = 100
# Every way of quitting; the games take them in turn.
ROUTES = ("leave", "close", "reset", "cancel-invite")


def _accepted(p, gid, timeout=5.0):
    """Reads until the ACCEPT of `gid` (frames of an earlier game still in flight are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        f = p.next(max(0.01, deadline - time.monotonic()))
        if f is None:
            raise AssertionError("closed while waiting for ACCEPT")
        if f.type == w.ACCEPT and f.fields[1] == gid:
            return
        if f.type in (w.ERROR, w.DECLINE):
            raise AssertionError("unexpected %r" % f)


def _bot_reveal(p, timeout=5.0, quick=False):
    """Our RESET (none in a quick roll) and ROLL_COMMIT are out: reads the bot's commitment and ROLL.
    (commit, secret, roll)"""
    commit = None
    while True:
        f = p.next(timeout)
        if f is None:
            raise AssertionError("closed during the roll")
        if f.type == w.RESET:
            continue
        if f.type == w.ROLL_COMMIT:
            commit = f.fields[1]
        elif f.type == w.ROLL:
            secret = w.u32(f.int(1)) + f.fields[2]
            check(commit is not None and w.roll_hash(secret, quick) == commit, "the bot's ROLL does not open")
            return commit, secret, f.int(1)
        else:
            raise AssertionError("unexpected %r during the roll" % f)


def _quit(route, p, gid):
    if route == "leave":
        p.send(w.leave())
        p.close()
    elif route == "close":
        p.conn.sock.shutdown(socket.SHUT_RDWR)  # FIN even while the reader thread waits in recv
        p.close()
    elif route == "reset":
        p.conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        p.conn.sock.shutdown(socket.SHUT_RD)  # wakes the reader; the close then sends RST
        p.conn.wait_closed(2)
        p.close()
    else:
        p.send(w.cancel(gid))  # the link stays: the next game is a new INVITE on it


def _one_game(t, route, kept):
    """One game of a cheater that quits when it would move second. Returns (our id, stayed)."""
    if route == "cancel-invite":
        # One link for many games, but a fresh one every 10: a bot plays at most 30 games per
        # peer per minute (Protocol.md §5), and each game here can count twice (ours, its rematch).
        if kept.get("p") is None or kept.get("uses", 0) >= 10:
            if kept.get("p"):
                kept["p"].send(w.leave())
                kept["p"].close()
            kept["p"], kept["uses"] = ready_peer(t.bot_port), 0
        kept["uses"] += 1
        p = kept["p"]
    else:
        p = ready_peer(t.bot_port)
    gid = os.urandom(16)
    p.send(w.invite(gid))
    _accepted(p, gid)
    g = w.Game(p)
    g.start()
    commit, secret, their_roll = _bot_reveal(p)
    first = w.first_mover_is_me(g.mine, secret, commit)[0]
    if not first:
        _quit(route, p, gid)
        return p.ident.id, False
    # We move first: finish the roll honestly and play the game out, then quit in Done (the bot's
    # next commitment may be in, but it has not revealed: that costs nothing).
    p.send(w.roll(g.mine.value, g.mine.nonce) + w.roll_ack(their_roll))
    cases.until(p, w.ROLL_ACK)
    g.first, (g.me, g.them) = True, ("O", "X")
    g.play(pick=cases.blunder)
    _quit(route, p, gid)
    return p.ident.id, True


def quit_on_loss_vs_bot(t):
    """100 games against the bot by a client that quits (LEAVE, close, reset, CANCEL then a new
    INVITE) whenever the bot's reveal says it would move second. Every quit must be the bot's win
    by forfeit in its game-over lines, so the cheater moves first in about half the games the
    bot records (it moved first in all of them when quitting was free)."""
    t.bot.drain()
    kept = {}
    ours, stayed, quits = set(), 0, 0
    for i in range(GAMES):
        gid_owner, first = _one_game(t, ROUTES[i % len(ROUTES)], kept)
        ours.add(gid_owner.hex())
        stayed += first
        quits += not first
    if kept.get("p"):
        kept["p"].send(w.leave())
        kept["p"].close()
    forfeits, recorded = 0, 0
    deadline = time.monotonic() + 5
    while forfeits < quits and time.monotonic() < deadline:
        e = t.bot.wait_event(lambda e: e.get("event") == "game-over"
                             and (e.get("opponent") or {}).get("id") in ours, deadline - time.monotonic())
        if e is None:
            break
        recorded += 1
        if e.get("forfeit") == "roll":
            check(e.get("result") == "won", "a forfeit the bot did not win: %r" % e)
            forfeits += 1
    check(forfeits == quits, "%d quits after the bot's reveal, %d recorded as forfeits" % (quits, forfeits))
    share = stayed / float(stayed + forfeits)
    # 100 fair coins: 50 % +- 5 % (one sigma); 30..70 % is four sigma wide.
    check(0.30 <= share <= 0.70, "the cheater moved first in %.0f %% of recorded games" % (100 * share))
    return "%d games: %d quits, all forfeits; the cheater moved first in %.0f %% of them" % (GAMES, quits, 100 * share)


QUICK = 1 | 128  # HELLO capabilities: tic-tac-toe and quick roll (§6, §8)


def _quick_game(t):
    """A fresh link with capability bit 7, an accepted invitation and our ROLL_COMMIT sent."""
    p = ready_peer(t.bot_port, caps=QUICK)
    gid = os.urandom(16)
    p.send(w.invite(gid))
    _accepted(p, gid)
    g = w.Game(p, quick=True)
    g.start()
    return p, g


def quick_rolls_vs_bot(t):
    """A client that sets capability bit 7 plays the bot with quick rolls (§8): ROLL_COMMIT opens
    each game, nobody sends RESET or ROLL_ACK, each side decides on the other's ROLL; both see
    the same first mover (the bot's first MOVE comes exactly when we computed it moves first)."""
    results, firsts = [], 0
    for _ in range(6):
        p, g = _quick_game(t)
        firsts += g.roll()
        results.append(g.play(pick=cases.blunder))
        p.send(w.leave())
        p.close()
    check("won" not in results, "the bot lost a game: %r" % results)
    return "6 quick-roll games, no RESET or ROLL_ACK either way; we moved first in %d; results %s" % (firsts, results)


def quick_roll_lies(t):
    """On a quick link a RESET or a ROLL_ACK is `unexpected-message` (§8), and sent after the
    bot's reveal it is a forfeit: the bot records the game as won."""
    t.bot.drain()
    for lie in (w.reset(), w.roll_ack(7)):
        p, _ = _quick_game(t)
        _bot_reveal(p, quick=True)  # the bot's commitment and ROLL: its reveal is out
        p.send(lie)
        p.expect_error("unexpected-message")
        p.close()
        me = p.ident.id.hex()
        e = t.bot.wait_event(lambda e: e.get("event") == "game-over" and (e.get("opponent") or {}).get("id") == me, 5)
        check(e is not None and e.get("result") == "won" and e.get("forfeit") == "roll",
              "the bot did not record the lie after its reveal as a forfeit won: %r" % e)
    return "RESET and ROLL_ACK on a quick link: unexpected-message, the bot's win by forfeit"


SERIAL = [quit_on_loss_vs_bot, quick_rolls_vs_bot, quick_roll_lies]
