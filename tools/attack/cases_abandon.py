"""Abandonment (Protocol.md §13): a peer that loses its link mid-game and then disowns the game,
answering the bot's RESUME with "unknown" (status 2) or with a move list that contradicts the
bot's, has abandoned it: the bot records the game won, says so (`game-abandoned`, then
`game-over`), and no move is rewritten. Written from Protocol.md alone (RESUME §6 0x28, the game
key and the move digest §13)."""
import os

import socket

import wire as w
from cases_fill import RESUME, RESUME_CAPS as OLDER_CAPS, game_key, redial_with, resume
from common import HOST, check, invited_game
from wire import Identity, Peer

RESUME_CAPS = OLDER_CAPS | 32  # and bit 5, roll resume: the rules under which "unknown" is abandonment


def _one_move_then_vanish(port, source, ident):
    """A resume-capable peer invites the bot, makes one move (the bot counts only games in
    which its opponent moved), reads the bot's answer, and its link is lost."""
    p = Peer(HOST, port, source=source, caps=RESUME_CAPS, ident=ident).handshake()
    p, g = invited_game(port, peer=p)
    if not g.roll():
        f = p.next(10)
        check(f is not None and f.type == w.MOVE, "expected the bot's first MOVE, got %r" % f)
        g.board[f.int(1)] = g.them
    cell = g.board.index(None)
    g.board[cell] = g.me
    p.send(w.move(cell))
    f = p.next(10)
    check(f is not None and f.type == w.MOVE, "expected the bot's answer, got %r" % f)
    p.conn.sock.shutdown(socket.SHUT_RDWR)
    p.close()
    return g


def _disown(t, forged):
    ident = Identity()
    g = _one_move_then_vanish(t.bot_port, "127.0.2.1", ident)
    key = game_key(g.mine.commitment, g.theirs_commit)
    t.bot.drain()
    if forged:  # no moves, ready, and a digest of no list at all
        frame = w.frame(RESUME, w.tlv((1, key), (2, w.u16(0)), (3, os.urandom(32)), (5, w.u8(0))))
    else:
        frame = resume(key, [], status=2)
    p, offer = redial_with(t.bot_port, "127.0.2.1", RESUME_CAPS, ident, frame, 3)
    check(offer is not None and offer.fields[1] == key, "the bot never offered the game back")
    said = t.bot.wait_event(lambda e: e.get("event") == "game-abandoned", 5)
    check(said is not None, "no game-abandoned from the bot")
    over = t.bot.wait_event(lambda e: e.get("event") == "game-over", 5)
    check(over is not None and over.get("result") == "won", "the bot's game-over: %r" % over)
    p.close()
    return said.get("reason")


def a_peer_that_disowns_its_game_loses_it(t):
    unknown = _disown(t, forged=False)
    forged = _disown(t, forged=True)
    return "status 2: won by abandonment (%s); a forged digest: won by abandonment (%s)" % (unknown, forged)


SERIAL = [a_peer_that_disowns_its_game_loses_it]
