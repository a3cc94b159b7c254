"""Spectators (Protocol.md §14), written from Protocol.md alone: a version-2 watcher (no
capability of its own) that lies (answers nobody asked for, a game that does not exist, a move
from a watcher's link), floods WATCH, or never reads while the game it watches goes on. Each
gets its ERROR or its documented answer, and the bot's games go on."""
import os
import struct
import time

import wire as w
from cases_auth import V2Peer, check
from common import HOST, invited_game

WATCH, WATCHING, WATCH_MOVE, WATCH_END, WATCH_STOP, GAMES, SPECTATORS = 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F


class Watcher(V2Peer):
    """A version-2 peer that offers nothing (so no lobby lists it) and sends its spectators'
    messages with IGNORABLE set, as §14 says."""

    def __init__(self, port, source=None):
        super().__init__(port, caps=0, source=source)
        self.pending = []  # frames read but not yet looked at (one read can bring several)

    def seal_flagged(self, type_, payload):
        header = w.MAGIC + struct.pack(">BBHI", 2, type_, w.IGNORABLE, len(payload) + 16)
        nonce = b"\x00" * 4 + struct.pack(">Q", self.sent)
        self.sent += 1
        return header + self.seal_key.encrypt(nonce, payload, header)

    def watch(self, action, opponent=None):
        fields = [(1, w.u8(action))] + ([(2, opponent)] if opponent else [])
        self.s.sendall(self.seal_flagged(WATCH, w.tlv(*fields)))

    def answers(self, want, timeout=3):
        """Opens sealed frames until one of the types in `want` (or ERROR) comes: (type, fields)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.pending:
                self.pending = self.sealed_frames(max(0.05, deadline - time.monotonic()))
            while self.pending:
                f = self.pending.pop(0)
                fields = w.parse_fields(self.open(f))
                if f.type in want or f.type == w.ERROR:
                    return f.type, fields
        raise AssertionError("no answer of %r" % (want,))


def error_name(fields):
    return w.ERRORS.get(struct.unpack(">H", fields[1])[0])


def watcher_that_lies_is_refused(t):
    # A WATCHING sent to the bot, as if the watcher were a player's daemon answering it.
    p = Watcher(t.bot_port).handshake()
    bogus = w.tlv((1, os.urandom(16)), (2, b"x"), (3, os.urandom(16)), (4, b"y"), (5, w.u8(3)), (6, w.u8(3)), (7, w.u8(3)),
                  (8, b""), (9, w.u16(0)), (10, w.u16(1)))
    p.s.sendall(p.seal_flagged(WATCHING, bogus))
    kind, fields = p.answers(())
    check(kind == w.ERROR and error_name(fields) == "unexpected-message", "an unasked WATCHING: %r" % fields)
    # WATCH for a game that does not exist: refused (no-game), the link stays.
    p = Watcher(t.bot_port).handshake()
    p.watch(1, opponent=os.urandom(16))
    kind, fields = p.answers((WATCH_STOP,))
    check(kind == WATCH_STOP and fields[1] == w.u8(2), "a made-up game: %r" % fields)
    # A MOVE from the watcher's link changes nothing: ERROR illegal-move, close.
    p.s.sendall(p.seal(w.MOVE, w.tlv((1, w.u16(4)))))
    kind, fields = p.answers(())
    check(kind == w.ERROR and error_name(fields) == "illegal-move", "a watcher's MOVE: %r" % fields)
    return "unasked WATCHING: unexpected-message; a made-up game: WATCH_STOP no-game; a watcher's MOVE: illegal-move"


def watch_flood_is_cut_off(t):
    p = Watcher(t.bot_port).handshake()
    for _ in range(9):
        p.watch(2)
    lists, error = 0, None
    while error is None:
        kind, fields = p.answers((GAMES,))
        if kind == GAMES:
            lists += 1
        else:
            error = error_name(fields)
    check(lists == 8 and error == "unexpected-message", "%d GAMES, then %s" % (lists, error))
    return "9 WATCHes in a second: 8 GAMES answers, then ERROR unexpected-message"


def watcher_that_never_reads_is_dropped_and_the_game_goes_on(t):
    player, g = invited_game(t.bot_port)
    g.roll()
    watcher = Watcher(t.bot_port).handshake()
    watcher.watch(1, opponent=player.ident.id)
    t0 = time.monotonic()
    result = g.play()  # every move answered while the watcher reads nothing
    check(result is not None, "the watched game did not end")
    # The watcher neither reads nor answers PING: gone after the liveness limit (§6, 5 s).
    time.sleep(max(0.0, 6.5 - (time.monotonic() - t0)))
    closed = False
    deadline = time.monotonic() + 3
    while not closed and time.monotonic() < deadline:
        try:
            watcher.sealed_frames(0.5)
        except (EOFError, ConnectionResetError):
            closed = True
        except OSError:
            pass
    check(closed, "the bot kept a watcher that never reads")
    player.send(w.leave())
    return "the game ended (%s) with every move answered; the watcher that never read was closed" % result


def watchers_from_one_address_are_bounded(t):
    # A game whose opponent allows spectators (HELLO bit 4: either player's no counts, §14).
    player, g = invited_game(t.bot_port, peer=w.Peer(HOST, t.bot_port, caps=1 | 16).handshake())
    g.roll()
    answers, kept = [], []
    for _ in range(9):  # nine watcher links from 127.0.0.1: the bound is 8 per source address
        p = Watcher(t.bot_port).handshake()
        p.watch(1, opponent=player.ident.id)
        kind, fields = p.answers((WATCHING, WATCH_STOP))
        answers.append("WATCHING" if kind == WATCHING else "STOP %d" % fields[1][0] if kind == WATCH_STOP else "ERROR")
        kept.append(p)
    check(answers == ["WATCHING"] * 8 + ["STOP 3"], "from one address: %r" % answers)
    other = Watcher(t.bot_port, source="127.0.0.2").handshake()
    other.watch(1, opponent=player.ident.id)
    kind, fields = other.answers((WATCHING, WATCH_STOP))
    check(kind == WATCHING, "a watcher from another address: %r %r" % (kind, fields))
    # One of the eight stops: the ninth's address has a place again.
    kept[0].watch(0)
    check(kept[0].answers((WATCH_STOP,))[1][1] == w.u8(0), "WATCH stop is answered stopped")
    kept[8].watch(1, opponent=player.ident.id)
    kind, fields = kept[8].answers((WATCHING, WATCH_STOP))
    check(kind == WATCHING, "after a stop: %r %r" % (kind, fields))
    player.send(w.leave())
    for p in kept + [other]:
        p.s.close()
    return "8 watchers from 127.0.0.1 served, the 9th WATCH_STOP full; 127.0.0.2 served; a stop frees a place"


def spectators_flood_and_bad_choice(t):
    # A player's daemon (version 2, tic-tac-toe) that says its choice again and again: eight within
    # a second are read (a PING behind them is answered), the ninth closes the link (§14).
    p = Watcher(t.bot_port)
    p.caps = 1 | 16
    p.handshake()
    for i in range(8):
        p.s.sendall(p.seal_flagged(SPECTATORS, w.tlv((1, w.u8(i % 2)))))
    p.s.sendall(p.seal(w.PING, w.tlv((1, w.u64(5)))))
    kind, fields = p.answers((w.PONG,))
    check(kind == w.PONG, "after eight SPECTATORS: %r" % fields)
    p.s.sendall(p.seal_flagged(SPECTATORS, w.tlv((1, w.u8(1)))))
    kind, fields = p.answers(())
    check(kind == w.ERROR and error_name(fields) == "unexpected-message", "the ninth: %r" % fields)
    # A choice other than 0 or 1 is malformed.
    q = Watcher(t.bot_port)
    q.caps = 1 | 16
    q.handshake()
    q.s.sendall(q.seal_flagged(SPECTATORS, w.tlv((1, w.u8(2)))))
    kind, fields = q.answers(())
    check(kind == w.ERROR and error_name(fields) == "malformed", "SPECTATORS 2: %r" % fields)
    return "8 SPECTATORS in a second read (PING answered), the 9th: unexpected-message; choice 2: malformed"


SERIAL = [watcher_that_lies_is_refused, watch_flood_is_cut_off, watcher_that_never_reads_is_dropped_and_the_game_goes_on,
          watchers_from_one_address_are_bounded, spectators_flood_and_bad_choice]
