"""Races (Protocol.md §6, §8): frames that cross one another, and messages the state does not
allow. The lists that run them stay in cases.py."""
import os
import time

import wire as w
from wire import Conn, Game
from common import HOST, blunder, check, honest_game, invited_game, ready_peer, until


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
