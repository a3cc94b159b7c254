"""Fair shares of a busy daemon (Protocol.md §5, §8), written from Protocol.md alone: refusals
have a budget, a bot's games with one peer have a rate, and an inviter declined or left
unanswered is held off. Registered into cases.SERIAL and cases.PLAYER on import (main.py)."""
import os
import time

import cases
import wire as w
from cases import check, invited_game, ready_peer, until

HOST = "127.0.0.1"


def _next_of(p, types, timeout=5.0):
    """Reads frames until one of `types` (anything else in flight is skipped); None on close."""
    deadline = time.monotonic() + timeout
    while True:
        f = p.next(max(0.01, deadline - time.monotonic()))
        if f is None or f.type in types:
            return f


def flood_invites_closed(t, n=200):
    """Replaces cases.flood_invites: INVITEs on a link that plays are declined busy, 8 in one
    second at most (§5); then ERROR unexpected-message and the close."""
    p, g = invited_game(t.bot_port)
    g.roll()
    p.send(b"".join(w.invite(os.urandom(16)) for _ in range(n)))
    declined = 0
    while True:
        f = _next_of(p, (w.DECLINE, w.ERROR), 10)
        check(f is not None, "closed after %d DECLINEs without ERROR" % declined)
        if f.type == w.ERROR:
            break
        check(f.int(2) == 1, "DECLINE reason %d" % f.int(2))
        declined += 1
        check(declined <= 8, "a %dth DECLINE within the second" % declined)
    check(declined == 8, "%d DECLINEs before the ERROR" % declined)
    check(f.error_name() == "unexpected-message", "got %r" % f)
    check(p.conn.closed.wait(6), "ERROR but the connection stayed open")
    return "%d INVITEs during a game: 8 declined busy, then ERROR unexpected-message" % n


def bot_games_per_peer_per_minute(t, cap=30):
    """One peer that resigns right after each roll: the bot ends the match after `cap` games
    (CANCEL) instead of starting another, and declines that peer's INVITE busy (§5)."""
    p, g = invited_game(t.bot_port)
    games = 0
    while True:
        g.roll()
        p.send(w.resign())
        games += 1
        f = _next_of(p, (w.RESET, w.CANCEL, w.ERROR))
        check(f is not None and f.type != w.ERROR, "after game %d: %r" % (games, f))
        if f.type == w.CANCEL:
            break
        check(games < cap, "the bot started game %d with one peer within a minute" % (games + 1))
        g = w.Game(p)
        g.start()
    check(games == cap, "the match ended after %d games" % games)
    p.send(w.invite(os.urandom(16)))
    d = until(p, w.DECLINE)
    check(d.int(2) == 1, "DECLINE reason %d" % d.int(2))
    p.send(w.leave())
    return "%d games resigned at once: CANCEL, then INVITE declined busy" % games


def reinvite_held_off(t):
    """Against play: our invitation declined, the next one at once is declined busy without
    showing the player an invitation (§8)."""
    p = ready_peer(t.play_port)
    t.play.drain()
    p.send(w.invite(os.urandom(16)))
    check(t.play.wait_event(lambda e: e.get("event") == "invited") is not None, "no invited event")
    t.play.command("decline")
    check(until(p, w.DECLINE).int(2) == 0, "the player's DECLINE is not `declined`")
    p.send(w.invite(os.urandom(16)))
    d = until(p, w.DECLINE)
    check(d.int(2) == 1, "the renewed INVITE: DECLINE reason %d, not busy" % d.int(2))
    e = t.play.wait_event(lambda e: e.get("event") == "invited", 1)
    check(e is None, "the player was asked again")
    p.send(w.leave())
    return "declined, then invited again at once: DECLINE busy, the player not asked"


def competing_invitation_held(t):
    """Against play: while the player is asked one peer's invitation, a friend's from another
    address is held and shown (invite-held), never declined busy unseen; once the first is
    declined the friend's is asked (§8)."""
    hog = ready_peer(t.play_port)
    friend = ready_peer(t.play_port, name="friend", source="127.0.0.2")
    t.play.drain()
    hog.send(w.invite(os.urandom(16)))
    check(t.play.wait_event(lambda e: e.get("event") == "invited") is not None, "no invited event")
    gid = os.urandom(16)
    friend.send(w.invite(gid))
    held = t.play.wait_event(lambda e: e.get("event") == "invite-held")
    check(held is not None and held["from"]["name"] == "friend", "no invite-held for the friend: %r" % held)
    try:
        f = _next_of(friend, (w.DECLINE, w.ACCEPT), 0.5)
    except TimeoutError:
        f = None  # nothing within half a second: held, as it should be
    check(f is None, "the friend's INVITE was answered at once: %r" % f)
    t.play.command("decline")
    check(until(hog, w.DECLINE).int(2) == 0, "the first INVITE was not declined by the player")
    asked = t.play.wait_event(lambda e: e.get("event") == "invited")
    check(asked is not None and asked["from"]["name"] == "friend", "the friend was not asked next: %r" % asked)
    t.play.command("decline")
    check(until(friend, w.DECLINE).int(2) == 0, "the friend's INVITE was not answered by the player")
    for p in (hog, friend):
        p.send(w.leave())
    return "a second invitation while the player answers one: held, shown, asked next"


cases.SERIAL[:] = [flood_invites_closed if c is cases.flood_invites else c for c in cases.SERIAL]
cases.SERIAL.append(bot_games_per_peer_per_minute)
cases.PLAYER.append(reinvite_held_off)
cases.PLAYER.append(competing_invitation_held)
