"""Discovery attacks (Protocol.md §7): a forged ANNOUNCE with the victim's id, a forged GOODBYE,
and a presence table filled by forged ids before a newcomer announces. The victim is the bot;
the lobby watched is the player's (`tictac play --plain --json`). On loopback every 127/8
address is ours, so "another host" is a socket bound to another 127 address."""
import os
import socket
import time

import wire as w
from cases import check

BROADCAST = "127.255.255.255"


def _sender(address):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s.bind((address, 0))
    return s


def _listed(t, id_hex):
    """The player's lobby entry for `id_hex` (None when not listed)."""
    t.play.command("peers")
    e = t.play.wait_event(lambda e: e.get("event") == "peers", 3)
    check(e is not None, "play did not answer `peers`")
    return next((p for p in e.get("peers", []) if p.get("id") == id_hex), None)


def _event_about(t, id_hex, seconds, pred):
    """The first event about `id_hex` for which `pred` holds within `seconds`, else None."""
    return t.play.wait_event(lambda e: e.get("id") == id_hex and pred(e), seconds)


def _wait_listed(t, id_hex, seconds=6.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        p = _listed(t, id_hex)
        if p is not None and "broadcast" in p.get("via", []):
            return p
        time.sleep(0.5)
    return None


def forged_announce_victim_id(t):
    """ANNOUNCEs with the bot's id but another name, state and TCP port, from another address:
    the lobby keeps the bot as the bot announced itself (signed, §7), no update from them."""
    bot = t.bot_id.hex()
    before = _wait_listed(t, bot)
    check(before is not None, "the bot is not in the player's lobby by broadcast")
    t.play.drain()
    s = _sender("127.0.0.66")
    for _ in range(3):
        s.sendto(w.announce(t.bot_id, "mallory", 6666, state=2), (BROADCAST, t.discovery_port))
        time.sleep(0.1)
    s.close()
    changed = _event_about(t, bot, 1.5, lambda e: e.get("event") in ("peer-updated", "peer-found")
                           and (e.get("name") == "mallory" or e.get("port") == 6666 or e.get("state") == "busy"))
    check(changed is None, "the forged ANNOUNCE changed the victim: %r" % changed)
    after = _listed(t, bot)
    check(after is not None and after.get("name") == "victim" and after.get("port") == t.bot_port,
          "the victim is listed as %r" % after)
    return "3 forged ANNOUNCEs with the victim's id: it stays %s on port %d" % (after["name"], after["port"])


def forged_goodbye(t):
    """A GOODBYE with the bot's id from the address the bot is heard at (spoofed: on loopback,
    any socket can use it): the lobby keeps the bot (an unsigned GOODBYE never removes a
    signed peer, §7)."""
    bot = t.bot_id.hex()
    check(_wait_listed(t, bot) is not None, "the bot is not in the player's lobby by broadcast")
    t.play.drain()
    s = _sender("127.0.0.1")
    s.sendto(w.goodbye(t.bot_id), (BROADCAST, t.discovery_port))
    s.close()
    gone = _event_about(t, bot, 1.5, lambda e: e.get("event") == "peer-lost"
                        or (e.get("event") == "peer-updated" and "broadcast" not in e.get("via", [])))
    check(gone is None, "the forged GOODBYE removed the victim: %r" % gone)
    return "a forged GOODBYE from the victim's own address: the victim stays"


def table_fill_then_new_peer(t, n=1100):
    """1,100 forged ids, one per source address in as many /24s (each claiming a 60 s interval),
    fill the player's presence table (1,024); then a new peer announces from another address:
    it is seen within 2 s (the table evicts forged hints for it, §7)."""
    t.play.drain()
    t0 = time.monotonic()
    for i in range(n):
        s = _sender("127.%d.%d.1" % (2 + i // 250, i % 250))
        s.sendto(w.announce(os.urandom(16), "fill%d" % i, 40000, interval=60000), (BROADCAST, t.discovery_port))
        s.close()
        if i % 25 == 24:
            time.sleep(0.03)  # paced: a burst beyond the receive buffer would be lost, not fill
    filled = time.monotonic() - t0
    time.sleep(0.5)
    t.play.command("peers")
    e = t.play.wait_event(lambda e: e.get("event") == "peers", 5)
    listed = len(e.get("peers", [])) if e else 0
    check(listed >= 1000, "the table did not fill (%d listed): the case proves nothing" % listed)
    t.play.drain()
    newcomer = os.urandom(16)
    s = _sender("127.0.0.77")
    s.sendto(w.announce(newcomer, "newcomer", 40077), (BROADCAST, t.discovery_port))
    s.close()
    seen = _event_about(t, newcomer.hex(), 2.0, lambda e: e.get("event") == "peer-found")
    check(seen is not None, "the new peer was not seen within 2 s of a full table")
    return "%d forged ids in %.1f s (%d listed), then a new peer: seen" % (n, filled, listed)


def announced_program(t):
    """ANNOUNCE field 13, the program (§6), from a client written from Protocol.md: signed, it
    comes before the seal and the lobby shows it; a program with an escape or bidirectional
    character, or of 65 bytes, is `malformed` and changes nothing; an unsigned ANNOUNCE with the
    bot's id cannot give the bot a program."""
    me = w.Identity()
    idhex = me.id.hex()
    t.play.drain()
    s = _sender("127.0.0.88")
    stamp = int(time.time() * 1000)
    s.sendto(w.signed_announce(me, "gomoku", 40088, stamp, caps=5, program="pbrain-evil 6.6"), (BROADCAST, t.discovery_port))
    found = _event_about(t, idhex, 3, lambda e: e.get("event") == "peer-found")
    check(found is not None and found.get("program") == "pbrain-evil 6.6", "the signed program is not shown: %r" % found)
    for bad in (b"\x1b[2Jowned", "a\u202eb".encode(), b"x" * 65):
        stamp += 10
        s.sendto(w.signed_announce(me, "gomoku", 40088, stamp, caps=5, program=bad), (BROADCAST, t.discovery_port))
    forged = w.frame(w.ANNOUNCE, w.tlv((1, t.bot_id), (2, b"victim"), (3, w.u16(t.bot_port)), (4, w.u32(5)),
                                       (5, w.u16(0)), (6, w.u8(0)), (7, w.u8(1)), (8, w.u8(2)), (9, w.u16(2000)),
                                       (13, b"world champion")))
    s.sendto(forged, (BROADCAST, t.discovery_port))
    s.close()
    time.sleep(1.0)
    listed = _listed(t, idhex)
    check(listed is not None and listed.get("program") == "pbrain-evil 6.6", "a malformed program changed the peer: %r" % listed)
    bot = _listed(t, t.bot_id.hex())
    check(bot is not None and bot.get("program") is None, "an unsigned ANNOUNCE gave the bot a program: %r" % bot)
    return "signed program shown; escape, bidi and 65-byte programs dropped; the bot's forged program ignored"


# After the rest (main.py): the table fill leaves the player's lobby crowded for half a minute.
CASES = [forged_announce_victim_id, forged_goodbye, announced_program, table_fill_then_new_peer]
