"""RESUME (Protocol.md §6, §13), written from Protocol.md alone: a version-2 client that says it
can resume (capability bit 3) and sends the bot RESUMEs that lie, are cut short, or come too
often. Each must get its ERROR (or the documented `unknown` answer) and the bot plays on."""
import os
import struct
import time

import wire as w
from cases_auth import V2Peer, check

RESUME = 0x28
RESUME_CAP = 1 | 8  # tic-tac-toe and resume


def resume(key, moves=0, digest=b"\x00" * 32, last=None, status=0):
    fields = [(1, key), (2, w.u16(moves)), (3, digest)]
    if last is not None:
        fields.append((4, w.u16(last)))
    fields.append((5, w.u8(status)))
    return w.tlv(*fields)


def sealed_error(p, timeout=3):
    """The first sealed ERROR the bot sends (skipping its PINGs), as (code name, text)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for f in p.sealed_frames(max(0.05, deadline - time.monotonic())):
            plain = p.open(f)
            if f.type == w.ERROR:
                fields = w.parse_fields(plain)
                return w.ERRORS.get(struct.unpack(">H", fields[1])[0]), fields.get(2, b"").decode()
    raise AssertionError("no ERROR")


def sealed_answers(p, want, timeout=3):
    """Opens the bot's sealed frames until `want` RESUMEs came (or it closed); returns them."""
    got, deadline = [], time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        try:
            frames = p.sealed_frames(max(0.05, deadline - time.monotonic()))
        except (EOFError, OSError):
            break
        for f in frames:
            plain = p.open(f)
            if f.type == RESUME:
                got.append(w.parse_fields(plain))
    return got


def resume_bad_status_is_malformed(t):
    p = V2Peer(t.bot_port, caps=RESUME_CAP).handshake()
    p.s.sendall(p.seal(RESUME, resume(os.urandom(16), status=9)))
    code, text = sealed_error(p)
    check(code == "malformed", "expected malformed, got %s %r" % (code, text))
    return "RESUME status 9: ERROR malformed (%s)" % text


def resume_without_digest_is_malformed(t):
    p = V2Peer(t.bot_port, caps=RESUME_CAP).handshake()
    p.s.sendall(p.seal(RESUME, w.tlv((1, os.urandom(16)), (2, w.u16(0)), (5, w.u8(0)))))
    code, text = sealed_error(p)
    check(code == "malformed", "expected malformed, got %s %r" % (code, text))
    return "RESUME without field 3: ERROR malformed"


def resume_for_a_game_never_played_is_answered_unknown_then_cut_off(t, most=6):
    """§13: a link carries at most six RESUMEs (an offer, a claim's answer, an offer again)."""
    p = V2Peer(t.bot_port, caps=RESUME_CAP).handshake()
    keys = [os.urandom(16) for _ in range(most + 1)]
    for k in keys[:most]:
        p.s.sendall(p.seal(RESUME, resume(k, moves=2, digest=os.urandom(32), last=4)))
    answers = sealed_answers(p, most)
    check(len(answers) == most, "expected %d answers, got %d" % (most, len(answers)))
    check(all(a[5] == w.u8(2) for a in answers), "an answer that is not `unknown`: %r" % answers)
    check([a[1] for a in answers] == keys[:most], "the answers name other keys")
    p.s.sendall(p.seal(RESUME, resume(keys[most], moves=2, digest=os.urandom(32), last=4)))
    code, text = sealed_error(p)
    check(code == "unexpected-message", "expected unexpected-message, got %s %r" % (code, text))
    return "%d RESUMEs for games never played: each `unknown`; the next: ERROR unexpected-message" % most


SERIAL = [resume_bad_status_is_malformed, resume_without_digest_is_malformed,
          resume_for_a_game_never_played_is_answered_unknown_then_cut_off]
