"""The tictac wire protocol, version 1, written from Protocol.md alone (no look at the Swift code).

Frames (§2), TLV payloads (§3), the messages of §6, the identity and PROOF of §4 and the fair
roll of §8. Everything here is deliberately plain so an attack can build any byte sequence,
including wrong ones.
"""
import hashlib
import os
import socket
import struct
import threading
import queue
import time

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

class Roll:
    """One side's secret: roll r and nonce n; commitment SHA-256(r as u32 || n)."""

    def __init__(self, value=None, nonce=None):
        self.value = int.from_bytes(os.urandom(4), "big") % (MAX_ROLL + 1) if value is None else value
        self.nonce = os.urandom(16) if nonce is None else nonce
        self.secret = u32(self.value) + self.nonce
        self.commitment = hashlib.sha256(self.secret).digest()


def first_mover_is_me(mine, theirs_secret, theirs_commitment):
    """§8 step 5: True when our side moves first. Returns (first, high, low)."""
    x = bytes(a ^ b for a, b in zip(mine.secret, theirs_secret))
    c1, c2 = sorted([mine.commitment, theirs_commitment])
    j = hashlib.sha256(c1 + c2 + x).digest()
    first_commitment = c1 if j[0] < 0x80 else c2
    high = 1 + int.from_bytes(j[4:8], "big") % 999_999
    low = int.from_bytes(j[8:12], "big") % high
    return first_commitment == mine.commitment, high, low


# --- a TCP client ----------------------------------------------------------------------------

class Closed(Exception):
    pass


class Conn:
    """A TCP connection with a reader thread: frames go to a queue; PINGs are answered unless
    `answer_pings` is False. Every wait is bounded."""

    def __init__(self, host, port, answer_pings=True, timeout=3.0, source=None):
        # `source`: the local address to connect from (e.g. 127.0.0.2, another loopback host).
        self.sock = socket.create_connection((host, port), timeout=timeout,
                                             source_address=(source, 0) if source else None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(None)
        self.frames = queue.Queue()
        self.answer_pings = answer_pings
        self.closed = threading.Event()
        self.decode_error = None
        self.lock = threading.Lock()
        self.log = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        dec = StreamDecoder()
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                for f in dec.feed(data):
                    self.log.append(f)
                    if f.type == PING and self.answer_pings:
                        self.send(pong(f.int(1)))
                    self.frames.put(f)
        except (OSError, ValueError) as e:
            self.decode_error = e
        finally:
            self.closed.set()
            self.frames.put(None)

    def send(self, data):
        with self.lock:
            try:
                self.sock.sendall(data)
            except OSError:
                pass

    def next(self, timeout=3.0, skip=(PING, PONG)):
        """The next frame not in `skip`, or None on close; raises TimeoutError."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame within %.1f s" % timeout)
            try:
                f = self.frames.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no frame within %.1f s" % timeout)
            if f is None:
                self.frames.put(None)  # stays closed for later calls
                return None
            if f.type in skip:
                continue
            return f

    def expect(self, type_, timeout=3.0):
        f = self.next(timeout)
        if f is None:
            raise Closed("closed while waiting for %s" % NAMES[type_])
        if f.type != type_:
            raise AssertionError("expected %s, got %r" % (NAMES[type_], f))
        return f

    def expect_error(self, code, timeout=6.0):
        """The peer sends ERROR `code` and closes (§5)."""
        f = self.next(timeout)
        if f is None:
            raise AssertionError("closed without ERROR %s" % code)
        if f.type != ERROR:
            # Skip in-flight game or lobby frames the peer sent before it saw our fault.
            while f is not None and f.type != ERROR:
                f = self.next(timeout)
            if f is None:
                raise AssertionError("closed without ERROR %s" % code)
        if f.error_name() != code:
            raise AssertionError("expected ERROR %s, got %r" % (code, f))
        if not self.closed.wait(timeout):
            raise AssertionError("ERROR %s but the connection stayed open" % code)
        return f

    def wait_closed(self, timeout):
        return self.closed.wait(timeout)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Peer:
    """A handshaken link as the dialler (§4): HELLO, then PROOF on the peer's HELLO, ready when
    the acceptor's PROOF verifies."""

    def __init__(self, host, port, name="attacker", ident=None, lo=1, hi=1, answer_pings=True, source=None, caps=1):
        self.ident = ident or Identity()
        self.caps = caps  # HELLO field 5 (16: spectators, §14)
        self.nonce = os.urandom(16)
        self.conn = Conn(host, port, answer_pings=answer_pings, source=source)
        self.name = name
        self.lo, self.hi = lo, hi

    def handshake(self, timeout=3.0):
        c = self.conn
        c.send(hello(self.ident, self.name, self.lo, self.hi, caps=self.caps, nonce=self.nonce))
        h = c.expect(HELLO, timeout)
        self.peer_hello = h
        self.peer_id, self.peer_nonce, self.peer_key = h.fields[3], h.fields[7], h.fields[6]
        if instance_id(self.peer_key) != self.peer_id:
            raise AssertionError("the daemon's HELLO id is not its key's")
        if h.version != h.int(2):
            raise AssertionError("HELLO header version %d is not its highest %d" % (h.version, h.int(2)))
        self.version = min(self.hi, h.int(2))
        if self.version < max(self.lo, h.int(1)):
            raise AssertionError("no common version")
        sig = self.ident.sign(transcript(self.version, self.ident.id, self.nonce, self.peer_id, self.peer_nonce))
        c.send(proof(sig))
        p = c.expect(PROOF, timeout)
        if not verify(self.peer_key, p.fields[1],
                      transcript(self.version, self.peer_id, self.peer_nonce, self.ident.id, self.nonce)):
            raise AssertionError("the daemon's PROOF does not verify")
        return self

    def send(self, data): self.conn.send(data)
    def next(self, timeout=3.0): return self.conn.next(timeout)
    def expect(self, t, timeout=3.0): return self.conn.expect(t, timeout)
    def expect_error(self, code, timeout=6.0): return self.conn.expect_error(code, timeout)
    def close(self): self.conn.close()


def lines(rows, cols, k):
    """Every winning line (§8): rows, columns, down-right and down-left diagonals."""
    out = []
    dirs = [(0, 1), (1, 0), (1, 1), (1, -1)]
    for dr, dc in dirs:
        for r in range(rows):
            for c in range(cols):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    out.append([rr * cols + cc for rr, cc in cells])
    return out


class Game:
    """Our side of one game on a handshaken link: the roll (§8), then moves chosen by `pick`."""

    def __init__(self, peer, rows=3, cols=3, k=3, move_time=0):
        self.p, self.rows, self.cols, self.k = peer, rows, cols, k
        self.board = [None] * (rows * cols)
        self.lines = lines(rows, cols, k)
        self.move_time = move_time
        self.mine = Roll()

    def start(self):
        """Step 1: RESET and ROLL_COMMIT."""
        self.p.send(reset() + roll_commit(self.mine.commitment, self.move_time))

    def roll(self, timeout=10.0):
        """Steps 2..5: returns True when we move first."""
        theirs_commit = theirs_secret = None
        acked = False
        sent_roll = False
        while not (acked and theirs_secret is not None):
            f = self.p.next(timeout)
            if f is None:
                raise Closed("closed during the roll")
            if f.type == RESET:
                continue
            if f.type == ROLL_COMMIT:
                theirs_commit = f.fields[1]
            elif f.type == ROLL:
                secret = u32(f.int(1)) + f.fields[2]
                if hashlib.sha256(secret).digest() != theirs_commit:
                    raise AssertionError("the daemon's ROLL does not open its commitment")
                theirs_secret = secret
                self.p.send(roll_ack(f.int(1)))
            elif f.type == ROLL_ACK:
                if f.int(1) != self.mine.value:
                    raise AssertionError("ROLL_ACK echoes %d, not our %d" % (f.int(1), self.mine.value))
                acked = True
            else:
                raise AssertionError("unexpected %r during the roll" % f)
            if theirs_commit is not None and not sent_roll:
                self.p.send(roll(self.mine.value, self.mine.nonce))
                sent_roll = True
        self.theirs_commit = theirs_commit
        self.first, self.high, self.low = first_mover_is_me(self.mine, theirs_secret, theirs_commit)
        self.me, self.them = ("O", "X") if self.first else ("X", "O")
        return self.first

    def winner(self):
        for line in self.lines:
            v = self.board[line[0]]
            if v and all(self.board[c] == v for c in line):
                return v
        return "draw" if all(self.board) else None

    def play(self, pick=None, timeout=10.0):
        """Plays to the end; returns 'won', 'lost' or 'draw' from our side."""
        pick = pick or (lambda g: g.board.index(None))
        turn = self.first
        while self.winner() is None:
            if turn:
                cell = pick(self)
                self.board[cell] = self.me
                self.p.send(move(cell))
            else:
                f = self.p.next(timeout)
                if f is None or f.type != MOVE:
                    raise AssertionError("expected the daemon's MOVE, got %r" % f)
                cell = f.int(1)
                if self.board[cell] is not None:
                    raise AssertionError("the daemon played taken cell %d" % cell)
                self.board[cell] = self.them
            turn = not turn
        w = self.winner()
        return "draw" if w == "draw" else ("won" if w == self.me else "lost")
