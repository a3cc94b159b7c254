"""Claims (Protocol.md §13): a game whose peer stays away past the adjourn limit is claimed by
the side that waited (RESUME status 4); the peer answers 5 (accepted: its player was in another
game) or 6 (refused: the game goes on). Written from Protocol.md alone: a claim made at once after
a cut never takes the bot's game, and the bot's own claim stands or is withdrawn by our answer."""
import socket
import tempfile
import time

import wire as w
from cases_fill import RESUME, game_key, redial_with, resume
from common import HOST, check, invited_game
from targets import Process, free_port, wait_listening
from wire import Identity, Peer

CLAIM_CAPS = 1 | 8 | 32 | 64  # tic-tac-toe, resume, roll resume, claims (HELLO field 5)
READY, RESIGNED, UNKNOWN, BUSY, CLAIMED, ACCEPTED, REFUSED = range(7)


def _one_move_each_then_vanish(port, source, ident):
    """Both sides move once or twice; the link is lost. The game and its cells in order."""
    p = Peer(HOST, port, source=source, caps=CLAIM_CAPS, ident=ident).handshake()
    p, g = invited_game(port, peer=p)
    cells = []
    if not g.roll():
        f = p.next(10)
        check(f is not None and f.type == w.MOVE, "expected the bot's first MOVE, got %r" % f)
        g.board[f.int(1)] = g.them
        cells.append(f.int(1))
    cell = g.board.index(None)
    g.board[cell] = g.me
    cells.append(cell)
    p.send(w.move(cell))
    f = p.next(10)
    check(f is not None and f.type == w.MOVE, "expected the bot's answer, got %r" % f)
    g.board[f.int(1)] = g.them
    cells.append(f.int(1))
    p.conn.sock.shutdown(socket.SHUT_RDWR)
    p.close()
    return g, game_key(g.mine.commitment, g.theirs_commit), cells


def _resumes(p, key, wait):
    """The bot's RESUMEs for `key` within `wait` seconds, as (status, moves)."""
    got = []
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            f = p.next(max(0.05, deadline - time.monotonic()))
        except TimeoutError:
            break
        if f is None:
            break
        if f.type == RESUME and f.fields[1] == key:
            got.append((f.int(5), f.int(2)))
    return got


def an_early_claim_is_refused_and_the_game_goes_on(t):
    ident = Identity()
    g, key, cells = _one_move_each_then_vanish(t.bot_port, "127.0.3.1", ident)
    t.bot.drain()
    # A claim at once after the cut: the bot waited no limit and is free, so it refuses.
    p, offer = redial_with(t.bot_port, "127.0.3.1", CLAIM_CAPS, ident, resume(key, cells, status=CLAIMED), 3)
    check(offer is not None and offer.fields[1] == key, "the bot never offered the game back")
    said = [(offer.int(5), offer.int(2))] + _resumes(p, key, 2)
    check((REFUSED, len(cells)) in said, "no refusal (status 6) of the claim: %r" % said)
    check(said[-1][0] == READY, "the bot's offer did not follow its refusal: %r" % said)
    check(t.bot.wait_event(lambda e: e.get("event") == "game-claimed", 0.5) is None, "the bot counted the claim")
    # The game goes on: our offer, then a resignation the bot records as a win.
    p.send(resume(key, cells))
    time.sleep(0.3)
    p.send(w.resign())
    over = t.bot.wait_event(lambda e: e.get("event") == "game-over", 5)
    check(over is not None and over.get("result") == "won", "the bot's game-over after the game went on: %r (%r)" % (over, said))
    p.close()
    return "claim at once: refused (6), then the bot's offer; the game went on and ended %s for the bot" % over.get("result")


def the_bots_claim_stands_or_is_withdrawn_by_our_answer(t):
    port = free_port()
    state = tempfile.mkdtemp(prefix="tictac-claims-")
    bot = Process([t.tictac, "bot", "--name", "claimer", "--port", str(port), "--json", "--no-dnssd", "--no-broadcast",
                   "--max-new-players-per-address", "0", "--adjourn-limit", "2", "--state-dir", state])
    try:
        check(wait_listening(port), "the claiming bot did not start listening")
        told = []
        for answer in (ACCEPTED, REFUSED):
            ident = Identity()
            _, key, cells = _one_move_each_then_vanish(port, "127.0.3.2", ident)
            claimed = bot.wait_event(lambda e: e.get("event") == "game-claimed", 6)
            check(claimed is not None and claimed.get("result") == "won", "no claim from the bot: %r" % claimed)
            p, offer = redial_with(port, "127.0.3.2", CLAIM_CAPS, ident, resume(key, cells, status=answer), 3)
            check(offer is not None and offer.int(5) == CLAIMED and offer.int(2) == len(cells),
                  "the bot's offer after its claim: %r" % ((offer.int(5), offer.int(2)) if offer else None,))
            if answer == ACCEPTED:
                over = bot.wait_event(lambda e: e.get("event") == "game-over", 3)
                check(over is not None and over.get("result") == "won", "accepted, the bot's game-over: %r" % over)
                told.append("accepted: won")
            else:
                back = bot.wait_event(lambda e: e.get("event") == "claim-withdrawn", 3)
                check(back is not None, "refused, the bot did not withdraw its claim")
                again = _resumes(p, key, 2)
                check((READY, len(cells)) in again, "refused, the bot did not offer the game again: %r" % again)
                told.append("refused: withdrawn, offered again")
            p.send(w.leave())
            p.close()
        return "the bot claimed after 2 s; " + "; ".join(told)
    finally:
        bot.stop()


SERIAL = [an_early_claim_is_refused_and_the_game_goes_on, the_bots_claim_stands_or_is_withdrawn_by_our_answer]
