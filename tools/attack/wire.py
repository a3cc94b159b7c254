"""The tictac wire protocol, version 1, written from Protocol.md alone (no look at the Swift code).

The bytes (frames, TLV, messages, identity, the fair roll) are wire_bytes.py's, re-exported here;
this file adds a TCP client (`Conn`, `Peer`) and one side of a game (`Game`).
"""
import hashlib
import os
import socket
import threading
import queue
import time

from wire_bytes import *  # noqa: F401,F403 (the cases use every name as wire.X)
from wire_bytes import (ERROR, HELLO, MOVE, NAMES, PING, PONG, PROOF, RESET, ROLL, ROLL_ACK, ROLL_COMMIT,
                        Identity, Roll, StreamDecoder, first_mover_is_me, hello, instance_id, move, pong,
                        proof, reset, roll, roll_ack, roll_commit, roll_hash, transcript, u32, verify)


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

    def __init__(self, peer, rows=3, cols=3, k=3, move_time=0, quick=False):
        self.p, self.rows, self.cols, self.k = peer, rows, cols, k
        self.quick = quick  # both HELLOs set capability bit 7: no RESET, no ROLL_ACK (§8)
        self.board = [None] * (rows * cols)
        self.lines = lines(rows, cols, k)
        self.move_time = move_time
        self.mine = Roll(quick=quick)

    def start(self):
        """Step 1: RESET and ROLL_COMMIT (a quick roll: ROLL_COMMIT alone)."""
        self.p.send((b"" if self.quick else reset()) + roll_commit(self.mine.commitment, self.move_time))

    def roll(self, timeout=10.0):
        """Steps 2..5: returns True when we move first."""
        theirs_commit = theirs_secret = None
        acked = False
        sent_roll = False
        while not ((acked or self.quick) and theirs_secret is not None):
            f = self.p.next(timeout)
            if f is None:
                raise Closed("closed during the roll")
            if self.quick and f.type in (RESET, ROLL_ACK):
                raise AssertionError("%r in a quick roll" % f)
            if f.type == RESET:
                continue
            if f.type == ROLL_COMMIT:
                theirs_commit = f.fields[1]
            elif f.type == ROLL:
                secret = u32(f.int(1)) + f.fields[2]
                if roll_hash(secret, self.quick) != theirs_commit:
                    raise AssertionError("the daemon's ROLL does not open its commitment")
                theirs_secret = secret
                if not self.quick:
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
        self.first, self.high, self.low = first_mover_is_me(self.mine, theirs_secret, theirs_commit, self.quick)
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
