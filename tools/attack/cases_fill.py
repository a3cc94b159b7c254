"""Kept games have shares (Protocol.md §13): throwaway ids that each start a game with the bot
and vanish are kept at most 16 per source address and 128 per /24, so after 1,100 of them (the
daemon keeps 1,024 in all) an honest player's game from elsewhere is still kept and resumed.
Written from Protocol.md alone: RESUME (§6 0x28), the game key and the move digest (§13)."""
import hashlib
import os
import socket
import time

import wire as w
from common import HOST, check, invited_game
from wire import Identity, Peer

RESUME = 0x28
RESUME_CAPS = 1 | 8  # tic-tac-toe and resume (HELLO field 5)
# Where the fill comes from (70 addresses of one /24) and the honest player (another /24): on
# loopback here; tools/lan/test-hostile gives LAN addresses of the attacking host.
FILL_SOURCE = os.environ.get("TICTAC_ATTACK_FILL_SOURCE", "127.0.0.%d")
HONEST_SOURCE = os.environ.get("TICTAC_ATTACK_HONEST_SOURCE", "127.0.1.1")


def game_key(a, b):
    """§13: the first 16 bytes of SHA-256 over 'tictac game key' and both commitments, the smaller first."""
    return hashlib.sha256(b"tictac game key" + min(a, b) + max(a, b)).digest()[:16]


def digest(key, cells):
    return hashlib.sha256(b"tictac moves" + key + b"".join(w.u16(c) for c in cells)).digest()


def resume(key, cells, status=0):
    fields = [(1, key), (2, w.u16(len(cells))), (3, digest(key, cells))]
    if cells:
        fields.append((4, w.u16(cells[-1])))
    fields.append((5, w.u8(status)))
    return w.frame(RESUME, w.tlv(*fields))


def vanish_after_the_roll(port, source, ident=None):
    """A resume-capable peer invites the bot, the roll decides, and its link is lost."""
    p = Peer(HOST, port, source=source, caps=RESUME_CAPS, ident=ident).handshake()
    p, g = invited_game(port, peer=p)
    g.roll()
    p.conn.sock.shutdown(socket.SHUT_RDWR)  # the FIN now, not when the reader thread lets go
    p.close()
    return g


def redial_with(port, source, caps, ident, frame, wait):
    """Dials the bot as `ident` and sends `frame` (a RESUME) at once, redialling as a daemon does
    (§13) while the bot still holds the old link and closes the new one. (link, the bot's RESUME)."""
    for _ in range(10):
        p = Peer(HOST, port, source=source, caps=caps, ident=ident).handshake()
        p.send(frame)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            f = p.next(max(0.05, deadline - time.monotonic()))
            if f is None:
                break  # closed: a duplicate of the link the bot still holds
            if f.type == RESUME:
                return p, f
        p.close()
        time.sleep(0.5)
    return None, None


def kept_games_fill_leaves_room_for_an_honest_game(t, n=1100):
    start = time.monotonic()
    for i in range(n):
        vanish_after_the_roll(t.bot_port, FILL_SOURCE % (10 + i % 70))
    filled = time.monotonic() - start
    # An honest player from another /24: its game is kept when its link is lost...
    honest = Identity()
    g = vanish_after_the_roll(t.bot_port, HONEST_SOURCE, honest)
    key = game_key(g.mine.commitment, g.theirs_commit)
    # As a daemon does on a ready link (§13): our RESUME at once (no move yet), then the bot's.
    p, offer = redial_with(t.bot_port, HONEST_SOURCE, RESUME_CAPS, honest, resume(key, []), 5)
    check(offer is not None and offer.fields[1] == key, "the bot did not answer with the honest game: not kept")
    check(offer.int(5) == 0 and offer.int(2) <= 1, "offered as status %d with %d moves" % (offer.int(5), offer.int(2)))
    # ... and resumed: the bot's first move, if it made it, comes in its RESUME (its list is
    # ours plus that move: §13's table), and the game is played out.
    if offer.int(2) == 1:
        check(offer.fields[3] == digest(key, [offer.int(4)]), "the offer's digest is not its move's")
        g.board[offer.int(4)] = g.them
        g.first = True  # our turn now: play() starts with it
    g.p = p
    result = g.play()
    p.send(w.leave())
    p.close()
    return "%d throwaway ids from 70 addresses in %.1f s; an honest game from %s kept, resumed, %s" % (
        n, filled, HONEST_SOURCE, result)


SERIAL = [kept_games_fill_leaves_room_for_an_honest_game]
