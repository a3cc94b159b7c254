"""The tictac wire protocol's bytes, written from Protocol.md alone (no look at the Swift code):
frames (§2), TLV payloads (§3), the messages of §6, the identity and PROOF of §4 and the fair
roll of §8. Everything here is deliberately plain so an attack can build any byte sequence,
including wrong ones. wire.py re-exports it all beside its TCP client and game."""
import hashlib
import os
import struct

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives import serialization

MAGIC = b"TTAC"
VERSION = 1
MAX_PAYLOAD = 16384

# §6 message types.
HELLO, ERROR, PING, PONG, LEAVE, PROOF = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
INVITE, ACCEPT, DECLINE, CANCEL = 0x10, 0x11, 0x12, 0x13
RESET, ROLL_COMMIT, ROLL, ROLL_ACK, MOVE, RESIGN, TIME_UP = 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26
ANNOUNCE, QUERY, GOODBYE = 0x30, 0x31, 0x32
SPHERE, FIELD_LEAVE = 0x40, 0x41
NAMES = {v: k for k, v in dict(HELLO=HELLO, ERROR=ERROR, PING=PING, PONG=PONG, LEAVE=LEAVE, PROOF=PROOF,
                               INVITE=INVITE, ACCEPT=ACCEPT, DECLINE=DECLINE, CANCEL=CANCEL, RESET=RESET,
                               ROLL_COMMIT=ROLL_COMMIT, ROLL=ROLL, ROLL_ACK=ROLL_ACK, MOVE=MOVE, RESIGN=RESIGN,
                               TIME_UP=TIME_UP, ANNOUNCE=ANNOUNCE, QUERY=QUERY, GOODBYE=GOODBYE,
                               SPHERE=SPHERE, FIELD_LEAVE=FIELD_LEAVE).items()}
IGNORABLE = 0x0001

# §5 error codes.
ERRORS = {1: "malformed", 2: "bad-magic", 3: "unsupported-version", 4: "frame-too-large", 5: "unknown-type",
          6: "unexpected-message", 7: "illegal-move", 8: "commitment-mismatch", 9: "roll-mismatch",
          10: "timeout", 11: "busy", 12: "internal-error", 13: "bad-identity"}
CODES = {v: k for k, v in ERRORS.items()}
DECLINE_REASONS = {0: "declined", 1: "busy", 2: "no-answer", 3: "unsupported"}
MAX_ROLL = 999_999


def u8(v): return struct.pack(">B", v)
def u16(v): return struct.pack(">H", v)
def u32(v): return struct.pack(">I", v)
def u64(v): return struct.pack(">Q", v)
def i32(v): return struct.pack(">i", v)


def tlv(*fields):
    """Fields as (tag, bytes), written in the order given (senders sort them: §3)."""
    return b"".join(u8(t) + u16(len(v)) + v for t, v in fields)


def frame(type_, payload=b"", version=VERSION, flags=0, length=None):
    """One frame (§2). `length` overrides the declared length (for lies)."""
    n = len(payload) if length is None else length
    return MAGIC + u8(version) + u8(type_) + u16(flags) + u32(n) + payload


def parse_fields(payload):
    """TLV fields as {tag: bytes}; raises ValueError as §3 says a receiver must refuse."""
    out, i = {}, 0
    while i < len(payload):
        if i + 3 > len(payload):
            raise ValueError("field header past the payload")
        tag, n = payload[i], struct.unpack(">H", payload[i + 1:i + 3])[0]
        if i + 3 + n > len(payload):
            raise ValueError("field past the payload")
        if tag in out:
            raise ValueError("repeated tag")
        out[tag] = payload[i + 3:i + 3 + n]
        i += 3 + n
    return out


class Frame:
    def __init__(self, version, type_, flags, payload):
        self.version, self.type, self.flags, self.payload = version, type_, flags, payload
        self.fields = parse_fields(payload)

    @property
    def name(self): return NAMES.get(self.type, "0x%02x" % self.type)

    def int(self, tag):
        v = self.fields[tag]
        return int.from_bytes(v, "big")

    def error_name(self):
        return ERRORS.get(self.int(1), "code-%d" % self.int(1))

    def text(self, tag=2):
        return self.fields.get(tag, b"").decode("utf-8", "replace")

    def __repr__(self):
        if self.type == ERROR:
            return "ERROR %s %r" % (self.error_name(), self.text())
        return "%s %s" % (self.name, {t: v.hex() for t, v in self.fields.items()})


class StreamDecoder:
    """Splits a TCP stream into frames (§2): header first, length checked before the payload."""

    def __init__(self):
        self.buf = b""

    def feed(self, data):
        self.buf += data
        out = []
        while len(self.buf) >= 12:
            if self.buf[:4] != MAGIC:
                raise ValueError("bad magic")
            version, type_, flags, n = struct.unpack(">BBHI", self.buf[4:12])
            if n > MAX_PAYLOAD:
                raise ValueError("frame too large")
            if len(self.buf) < 12 + n:
                break
            out.append(Frame(version, type_, flags, self.buf[12:12 + n]))
            self.buf = self.buf[12 + n:]
        return out


def decode_datagram(data):
    """Exactly one frame (§2, §7); raises ValueError otherwise."""
    if len(data) < 12 or data[:4] != MAGIC:
        raise ValueError("not a frame")
    version, type_, flags, n = struct.unpack(">BBHI", data[4:12])
    if len(data) != 12 + n:
        raise ValueError("wrong length")
    return Frame(version, type_, flags, data[12:])


# --- identity (§4) ---------------------------------------------------------------------------

ID_LABEL = b"tictac-instance-id-v1"
PROOF_LABEL = b"tictac-proof-v1"


class Identity:
    def __init__(self, private_bytes=None):
        self.key = (Ed25519PrivateKey.from_private_bytes(private_bytes) if private_bytes
                    else Ed25519PrivateKey.generate())
        self.public = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.id = instance_id(self.public)

    def sign(self, data):
        return self.key.sign(data)


def instance_id(public_key):
    return hashlib.sha256(ID_LABEL + public_key).digest()[:16]


def transcript(version, signer_id, signer_nonce, verifier_id, verifier_nonce):
    return PROOF_LABEL + u8(version) + signer_id + signer_nonce + verifier_id + verifier_nonce


def verify(public_key, signature, data):
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
        return True
    except Exception:
        return False


# --- messages (§6) ---------------------------------------------------------------------------

def hello(ident, name="attacker", lo=1, hi=1, caps=1, nonce=None, claimed_id=None, public=None, version=None):
    return frame(HELLO, tlv((1, u8(lo)), (2, u8(hi)), (3, claimed_id or ident.id), (4, name.encode()),
                            (5, u32(caps)), (6, public or ident.public), (7, nonce)),
                 version=hi if version is None else version)


def error(code, message="", version=VERSION):
    return frame(ERROR, tlv((1, u16(CODES.get(code, code) if isinstance(code, str) else code)),
                            (2, message.encode())), version=version)


def proof(signature): return frame(PROOF, tlv((1, signature)))
def ping(nonce): return frame(PING, tlv((1, u64(nonce))))
def pong(nonce): return frame(PONG, tlv((1, u64(nonce))))
def leave(): return frame(LEAVE)
def invite(game_id, rows=3, cols=3, k=3): return frame(INVITE, tlv((1, game_id), (2, u8(rows)), (3, u8(cols)), (4, u8(k))))
def accept(game_id): return frame(ACCEPT, tlv((1, game_id)))
def decline(game_id, reason=0): return frame(DECLINE, tlv((1, game_id), (2, u8(reason))))
def cancel(game_id): return frame(CANCEL, tlv((1, game_id)))
def reset(): return frame(RESET)


def roll_commit(commitment, move_time=0):
    return frame(ROLL_COMMIT, tlv((1, commitment), *([(2, u16(move_time))] if move_time else [])))


def roll(value, nonce): return frame(ROLL, tlv((1, u32(value)), (2, nonce)))
def roll_ack(value): return frame(ROLL_ACK, tlv((1, u32(value))))
def move(cell): return frame(MOVE, tlv((1, u16(cell))))
def resign(): return frame(RESIGN)
def time_up(): return frame(TIME_UP)


def announce(id_, name, tcp_port, caps=1, field_port=0, state=0, lo=1, hi=1, interval=2000):
    return frame(ANNOUNCE, tlv((1, id_), (2, name.encode()), (3, u16(tcp_port)), (4, u32(caps)),
                               (5, u16(field_port)), (6, u8(state)), (7, u8(lo)), (8, u8(hi)), (9, u16(interval))))


PRESENCE_LABEL = b"tictac-presence-v2"


def signed_announce(ident, name, tcp_port, stamp_ms, caps=1, program=None, lo=1, hi=2, interval=2000):
    """§6 ANNOUNCE signed by `ident`: the version-1 fields, field 13 (the program) when given,
    then the seal (10 key, 11 timestamp, 12 signature over the label and every byte before it)."""
    fields = [(1, ident.id), (2, name.encode()), (3, u16(tcp_port)), (4, u32(caps)), (5, u16(0)), (6, u8(0)),
              (7, u8(lo)), (8, u8(hi)), (9, u16(interval))]
    if program is not None:
        fields.append((13, program if isinstance(program, bytes) else program.encode()))
    body = tlv(*fields, (10, ident.public), (11, u64(stamp_ms)))
    head = frame(ANNOUNCE, body, length=len(body) + 3 + 64)
    signature = ident.sign(PRESENCE_LABEL + head)
    return head + tlv((12, signature))


def query(id_): return frame(QUERY, tlv((1, id_)))
def goodbye(id_): return frame(GOODBYE, tlv((1, id_)))


def sphere(id_, seq, x, y, rgb=(255, 128, 0), name="s"):
    return frame(SPHERE, tlv((1, id_), (2, u32(seq)), (3, i32(x)), (4, i32(y)), (5, bytes(rgb)), (6, name.encode())))


# --- the fair roll (§8) ----------------------------------------------------------------------

def roll_hash(data, quick=False):
    """§8: SHA-256, or BLAKE2b-256 in a quick roll."""
    return hashlib.blake2b(data, digest_size=32).digest() if quick else hashlib.sha256(data).digest()


class Roll:
    """One side's secret: roll r and nonce n; commitment SHA-256(r as u32 || n) (a quick roll:
    BLAKE2b-256)."""

    def __init__(self, value=None, nonce=None, quick=False):
        self.value = int.from_bytes(os.urandom(4), "big") % (MAX_ROLL + 1) if value is None else value
        self.nonce = os.urandom(16) if nonce is None else nonce
        self.secret = u32(self.value) + self.nonce
        self.commitment = roll_hash(self.secret, quick)


def first_mover_is_me(mine, theirs_secret, theirs_commitment, quick=False):
    """§8 step 5: True when our side moves first. Returns (first, high, low)."""
    x = bytes(a ^ b for a, b in zip(mine.secret, theirs_secret))
    c1, c2 = sorted([mine.commitment, theirs_commitment])
    j = roll_hash(c1 + c2 + x, quick)
    first_commitment = c1 if j[0] < 0x80 else c2
    high = 1 + int.from_bytes(j[4:8], "big") % 999_999
    low = int.from_bytes(j[8:12], "big") % high
    return first_commitment == mine.commitment, high, low
