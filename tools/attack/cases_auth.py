"""Version 2's authenticated stream (Protocol.md §4), written from Protocol.md alone: a full
version-2 handshake with the bot (X25519, the 144-byte PROOF, HKDF keys, ChaCha20-Poly1305),
then frames a relay could inject. Registered into cases.SERIAL on import (main.py)."""
import hashlib
import os
import socket
import struct
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

import cases
import wire as w

HOST = "127.0.0.1"


def check(ok, why):
    if not ok:
        raise AssertionError(why)


class V2Peer:
    """Dials, sends a version-2 HELLO (field 8), proves, and seals/opens per §4."""

    def __init__(self, port, caps=1, source=None):
        self.caps = caps  # HELLO field 5 (1: tic-tac-toe; 8: resume, Protocol.md §13)
        # `source`: the local address to dial from (127.0.0.2: another loopback host).
        self.s = socket.create_connection((HOST, port), timeout=3, source_address=(source, 0) if source else None)
        self.dec = w.StreamDecoder()
        self.ident = w.Identity()
        self.eph = X25519PrivateKey.generate()
        self.eph_pub = self.eph.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.nonce = os.urandom(8) + b"TTAC\x00\x00\x00\x02"  # the downgrade marker, highest version 2
        self.sent = self.opened = 0

    def frames(self, timeout=3):
        self.s.settimeout(timeout)
        data = self.s.recv(65536)
        if not data:
            raise EOFError("closed")
        return self.dec.feed(data)

    def handshake(self):
        payload = w.tlv((1, w.u8(1)), (2, w.u8(2)), (3, self.ident.id), (4, b"v2-attacker"), (5, w.u32(self.caps)),
                        (6, self.ident.public), (7, self.nonce), (8, self.eph_pub))
        self.s.sendall(w.frame(w.HELLO, payload, version=2))
        got = []
        while not got:
            got = self.frames()
        h = got[0]
        check(h.type == w.HELLO and 8 in h.fields, "no version-2 HELLO: %r" % h)
        pid, pnonce, peph = h.fields[3], h.fields[7], h.fields[8]
        ours, theirs = self.ident.id + self.nonce + self.eph_pub, pid + pnonce + peph
        sig = self.ident.sign(b"tictac-proof-v2" + b"\x02" + ours + theirs)
        self.s.sendall(w.frame(w.PROOF, w.tlv((1, sig)), version=2))
        shared = self.eph.exchange(X25519PublicKey.from_public_bytes(peph))
        salt = hashlib.sha256(b"tictac-session-v2" + b"\x02" + ours + theirs).digest()
        key = lambda info: HKDF(hashes.SHA256(), 32, salt, info).derive(shared)
        self.seal_key = ChaCha20Poly1305(key(b"tictac-v2 dialler to acceptor"))
        self.open_key = ChaCha20Poly1305(key(b"tictac-v2 acceptor to dialler"))
        got = got[1:]
        while not got:
            got = self.frames()
        check(got[0].type == w.PROOF, "no PROOF: %r" % got[0])
        pub = h.fields[6]
        check(w.verify(pub, got[0].fields[1], b"tictac-proof-v2" + b"\x02" + theirs + ours), "the bot's PROOF")
        return self

    def sealed_frames(self, timeout=3):
        """Frames after the PROOFs: header parsed, the payload left sealed (no TLV to read)."""
        self.s.settimeout(timeout)
        data = self.s.recv(65536)
        if not data:
            raise EOFError("closed")
        self.raw = getattr(self, "raw", b"") + data
        out = []
        while len(self.raw) >= 12:
            version, type_, flags, n = struct.unpack(">BBHI", self.raw[4:12])
            if len(self.raw) < 12 + n:
                break
            out.append(type("Sealed", (), dict(version=version, type=type_, flags=flags, payload=self.raw[12:12 + n])))
            self.raw = self.raw[12 + n:]
        return out

    def seal(self, type_, payload):
        header = w.MAGIC + struct.pack(">BBHI", 2, type_, 0, len(payload) + 16)
        nonce = b"\x00" * 4 + struct.pack(">Q", self.sent)
        self.sent += 1
        return header + self.seal_key.encrypt(nonce, payload, header)

    def open(self, f):
        header = w.MAGIC + struct.pack(">BBHI", f.version, f.type, f.flags, len(f.payload))
        nonce = b"\x00" * 4 + struct.pack(">Q", self.opened)
        self.opened += 1
        return self.open_key.decrypt(nonce, f.payload, header)

    def closed_silently(self, timeout=3):
        """True when the peer closes with no byte sent."""
        self.s.settimeout(timeout)
        try:
            return self.s.recv(65536) == b""
        except ConnectionResetError:
            return True


def v2_sealed_ping_is_answered_sealed(t):
    p = V2Peer(t.bot_port).handshake()
    p.s.sendall(p.seal(w.PING, w.tlv((1, w.u64(77)))))
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        for f in p.sealed_frames():
            if f.type == w.PONG:
                check(p.open(f) == w.tlv((1, w.u64(77))), "PONG did not open to our nonce")
                return "a version-2 handshake from the spec; sealed PING, sealed PONG"
            p.open(f)  # a sealed PING of its own: keeps the counter in step
    raise AssertionError("no PONG")


def v2_injected_plain_frame_closes_silently(t):
    p = V2Peer(t.bot_port).handshake()
    p.s.sendall(w.frame(w.RESIGN, b"", version=2))  # what a relay injects: it has no key
    check(p.closed_silently(), "the bot answered an unsealed frame instead of closing")
    return "an unsealed RESIGN after the PROOFs: closed, nothing sent"


def v2_flipped_byte_closes_silently(t):
    p = V2Peer(t.bot_port).handshake()
    b = bytearray(p.seal(w.PING, w.tlv((1, w.u64(5)))))
    b[-1] ^= 1
    p.s.sendall(bytes(b))
    check(p.closed_silently(), "the bot answered an altered frame")
    return "a sealed PING with one tag bit flipped: closed, nothing sent"


def v2_downgrade_refused(t):
    """A v1-only relay lowers field 2 to 1 and drops field 8; the marked nonce gives it away."""
    ident = w.Identity()
    nonce = os.urandom(8) + b"TTAC\x00\x00\x00\x02"
    s = socket.create_connection((HOST, t.bot_port), timeout=3)
    s.sendall(w.hello(ident, lo=1, hi=1, nonce=nonce))
    dec, frames = w.StreamDecoder(), []
    while not any(f.type == w.ERROR for f in frames):
        data = s.recv(65536)
        check(data, "closed without ERROR")
        frames += dec.feed(data)
    e = [f for f in frames if f.type == w.ERROR][0]
    check(e.error_name() == "unsupported-version", "got %r" % e)
    return "HELLO 1..1 with a nonce declaring 2: unsupported-version"


def versions_1_to_2_without_key(t):
    """Replaces cases.versions_1_to_2: offering 2 now needs field 8."""
    p = socket.create_connection((HOST, t.bot_port), timeout=3)
    p.sendall(w.hello(w.Identity(), lo=1, hi=2, nonce=os.urandom(16)))
    dec, frames = w.StreamDecoder(), []
    while not any(f.type == w.ERROR for f in frames):
        data = p.recv(65536)
        check(data, "closed without ERROR")
        frames += dec.feed(data)
    e = [f for f in frames if f.type == w.ERROR][0]
    check(e.error_name() == "malformed", "got %r" % e)
    return "HELLO 1..2 without field 8: malformed"


CASES = [v2_sealed_ping_is_answered_sealed, v2_injected_plain_frame_closes_silently, v2_flipped_byte_closes_silently,
         v2_downgrade_refused, versions_1_to_2_without_key]
cases.SERIAL[:] = [c for c in cases.SERIAL if c is not cases.versions_1_to_2] + CASES
